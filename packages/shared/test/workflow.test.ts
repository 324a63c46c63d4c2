import { describe, expect, it } from 'vitest'
import { actionRefusal, defineEntity, finalStates, historyStepLabel, noteApplies, notePlaceholders, serviceEntities } from '../src'
import { thing } from './thing'

// Whether a row action is offered for a row: the web hides it, the server refuses it, by the same data.


describe('actionRefusal', () => {
  const evaluate = serviceEntities.repairOrder.actions!.find((a) => a.name === 'evaluate')!

  it('offers the evaluation of a finished order once', () => {
    expect(actionRefusal(evaluate, { status: 'finished', evaluationStars: null })).toBeNull()
    expect(actionRefusal(evaluate, { status: 'processing', evaluationStars: null })).toEqual({ rule: 'when', field: 'status' })
    expect(actionRefusal(evaluate, { status: 'finished', evaluationStars: 4 })).toEqual({ rule: 'whenEmpty', field: 'evaluationStars' })
    // Blank text is empty, as the engine stores an optional text.
    expect(actionRefusal({ whenEmpty: ['note'] }, { note: '' })).toBeNull()
    expect(actionRefusal({}, {})).toBeNull()
  })

  it('fails a definition whose whenEmpty names no field, or is not about rows', () => {
    const base = thing()
    const action = { name: 'mark', label: { en_US: 'Mark', zh_CN: '标记' } }
    expect(() => defineEntity({ ...base, actions: [{ ...action, on: 'row', whenEmpty: ['nope'] }] })).toThrow(/mark\.whenEmpty: nope is not a field/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, on: 'toolbar', whenEmpty: ['thingId'] }] })).toThrow(/only row and selection actions/)
  })

  // Issue 36: a step's dialog shows the row's fields its definition names (the feedback beside the reply box).
  it('checks the fields a dialog shows as its context: fields of the row, of a row action', () => {
    const base = thing({ name: 'secret', kind: 'password' as const, label: { en_US: 'Secret', zh_CN: '密钥' } })
    const action = { name: 'answer', label: { en_US: 'Answer', zh_CN: '回复' } }
    expect(defineEntity({ ...base, actions: [{ ...action, on: 'row', context: ['thingId'] }] }).actions?.[0]?.context).toEqual(['thingId'])
    expect(() => defineEntity({ ...base, actions: [{ ...action, on: 'row', context: ['nope'] }] })).toThrow(/answer\.context: nope is not a field/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, on: 'row', context: ['secret'] }] })).toThrow(/answer\.context: secret is a password/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, on: 'toolbar', context: ['thingId'] }] })).toThrow(/only a row action has a row to show/)
  })

  // Issue 36: a dialog says what the operation does beyond the row, from the row's values (a bike's IoT device on unbinding).
  it('checks and applies the notes a dialog says: fields of the row, in both languages, of a row action', () => {
    const base = thing(
      { name: 'deviceId', kind: 'number' as const, label: { en_US: 'Device', zh_CN: '设备' } },
      { name: 'secret', kind: 'password' as const, label: { en_US: 'Secret', zh_CN: '密钥' } },
    )
    const action = { name: 'drop', label: { en_US: 'Drop', zh_CN: '丢弃' }, on: 'row' as const }
    const note = { whenSet: ['deviceId'], text: { en_US: 'Device {deviceId} stays', zh_CN: '设备 {deviceId} 保留' } }
    expect(defineEntity({ ...base, actions: [{ ...action, notes: [note] }] }).actions?.[0]?.notes).toEqual([note])
    expect(() => defineEntity({ ...base, actions: [{ ...action, notes: [{ ...note, whenSet: ['nope'] }] }] })).toThrow(/drop\.notes\[0\]: nope is not a field/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, notes: [{ text: { en_US: 'Its {secret}', zh_CN: '{secret}' } }] }] })).toThrow(/secret is a password/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, notes: [{ text: { en_US: 'Gone', zh_CN: '{colour}' } }] }] })).toThrow(/colour is not a field/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, notes: [{ text: { en_US: 'Gone', zh_CN: '' } }] }] })).toThrow(/needs its text in en_US and zh_CN/)
    expect(() => defineEntity({ ...base, actions: [{ ...action, on: 'toolbar', notes: [note] }] })).toThrow(/only a row action has a row to read them from/)
    expect(noteApplies(note, { deviceId: 7 })).toBe(true)
    expect(noteApplies(note, { deviceId: null })).toBe(false)
    expect(noteApplies({ ...note, whenSet: undefined, whenEmpty: ['deviceId'] }, { deviceId: '' })).toBe(true)
    expect(notePlaceholders('Device {deviceId} of {thingId}, {not a field}')).toEqual(['deviceId', 'thingId'])
  })
})

// Issue 38: a timed step is a definition line; a bad one fails at start, not at its first tick.
describe('timed steps', () => {
  const base = thing({
    name: 'state',
    kind: 'enum' as const,
    label: { en_US: 'State', zh_CN: '状态' },
    options: ['open', 'waiting', 'closed'].map((value) => ({ value, label: { en_US: value, zh_CN: value }, color: 'default' as const })),
  })
  const lapse = { name: 'lapse', label: { en_US: 'Lapse', zh_CN: '失效' }, from: ['waiting'], to: 'closed', after: { days: 3 } }
  const withTimed = (timed: (typeof lapse)[], storage?: { audited: boolean }) => () =>
    defineEntity({ ...base, ...(storage ? { storage } : {}), transitions: { field: 'state', steps: [{ name: 'wait', label: { en_US: 'Wait', zh_CN: '等待' }, from: ['open'], to: 'waiting' }], timed } })

  it('checks them at start: states of the field, a step that leaves, whole days, one timed step per state, a free name', () => {
    expect(withTimed([lapse])).not.toThrow()
    expect(withTimed([{ ...lapse, to: 'gone' }])).toThrow(/gone is not a state/)
    expect(withTimed([{ ...lapse, from: [] }])).toThrow(/needs from states/)
    expect(withTimed([{ ...lapse, to: 'waiting' }])).toThrow(/must leave its states/)
    expect(withTimed([{ ...lapse, after: { days: 0 } }])).toThrow(/whole number of days/)
    expect(withTimed([{ ...lapse, after: { days: 1.5 } }])).toThrow(/whole number of days/)
    expect(withTimed([lapse, { ...lapse, name: 'lapseAgain' }])).toThrow(/both leave one state/)
    expect(withTimed([{ ...lapse, name: 'wait' }])).toThrow(/reserved or used twice/)
    expect(withTimed([lapse], { audited: false })).toThrow(/need an audited table/)
  })

  it('makes the states they leave not final, and labels their history rows', () => {
    const e = withTimed([lapse])()
    expect(finalStates(e)).toEqual(['closed'])
    expect(historyStepLabel(e, 'lapse')).toEqual(lapse.label)
    expect(historyStepLabel(e, 'wait')?.en_US).toBe('Wait')
    expect(historyStepLabel(e, 'nope')).toBeUndefined()
  })
})
