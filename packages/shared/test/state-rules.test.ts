import { describe, expect, it } from 'vitest'
import { allEntities, contentEntities, defineEntity, type EntityDef, orderEntities, serviceEntities, stateAllowsEdit, stateRules } from '../src'
import { THING, THING_ID } from './thing'

// What a row's state still allows (docs/entity-engine.md › State rules): one function for the server,
// which refuses the rest, and the web, which offers no button for it and locks the fields.

const { repairOrder } = serviceEntities

describe('stateRules', () => {
  it('keeps a service order once submitted, and read-only once over', () => {
    expect(stateRules(repairOrder, { status: 'draft' })).toEqual({ editable: 'all', editRefusal: null, deletable: true, deleteRefusal: null })
    const pending = stateRules(repairOrder, { status: 'pending' })
    expect(pending).toMatchObject({ editable: 'all', deletable: false, deleteRefusal: { reason: { en_US: 'it has been submitted: withdraw it instead' } } })
    for (const status of ['finished', 'withdrawn', 'closed']) {
      const over = stateRules(repairOrder, { status })
      expect(over.deletable).toBe(false)
      expect(over.editable).toEqual(new Set())
      expect(stateAllowsEdit(over, 'remark')).toBe(false)
    }
    // Without a reason of its own, the refusal names the state as people read it.
    expect(stateRules(repairOrder, { status: 'finished' }).editRefusal).toEqual({ state: { en_US: 'Finished', zh_CN: '已完成' } })
  })

  it('locks the template of a bike order with numbers, and keeps it', () => {
    const { deviceOrder } = orderEntities
    expect(stateRules(deviceOrder, { numbersGenerated: 0 }).editable).toBe('all')
    const numbered = stateRules(deviceOrder, { numbersGenerated: 3 })
    expect(numbered.deletable).toBe(false)
    expect(stateAllowsEdit(numbered, 'quantity')).toBe(true)
    expect(stateAllowsEdit(numbered, 'brandCode')).toBe(false)
    expect(numbered.deleteRefusal).toEqual({ reason: { en_US: 'it has frame numbers', zh_CN: '已生成车架号' }, state: { en_US: '3', zh_CN: '3' } })
  })

  it('allows a field only when every rule the row meets allows it', () => {
    const thing = defineEntity({
      ...base,
      states: [
        { when: { field: 'status', is: ['b'] }, edit: ['name', 'note'] },
        { when: { field: 'count', above: 1 }, edit: ['note', 'extra'], delete: false, reason: { en_US: 'it is counted', zh_CN: '已计数' } },
      ],
    })
    const both = stateRules(thing, { status: 'b', count: 2 })
    expect(both.editable).toEqual(new Set(['note']))
    expect(both.editRefusal).toEqual({ state: { en_US: 'B', zh_CN: '乙' } })
    expect(both.deleteRefusal?.reason?.en_US).toBe('it is counted')
    expect(stateRules(thing, { status: 'a', count: null })).toMatchObject({ editable: 'all', deletable: true })
  })

  it('is declared by the entities that keep rows: a service order, a bike order, a message, an agreement, an upgrade campaign', () => {
    const declared = allEntities().filter((e) => e.states?.length).map((e) => e.key)
    expect(declared).toEqual(expect.arrayContaining(['repairOrder', 'deviceOrder', 'message', 'protocol', 'iotUpgrade', 'bmsUpgrade', 'displayUpgrade', 'ecuUpgrade']))
    expect(stateRules(contentEntities.message, { status: 'sent' }).deletable).toBe(false)
    expect(stateAllowsEdit(stateRules(contentEntities.protocol, { status: 'published' }), 'name')).toBe(true)
    expect(stateAllowsEdit(stateRules(contentEntities.protocol, { status: 'published' }), 'content')).toBe(false)
  })
})

const base = {
  ...THING,
  fields: [
    THING_ID,
    { name: 'name', kind: 'text' as const, label: { en_US: 'Name', zh_CN: '名称' } },
    { name: 'note', kind: 'text' as const, label: { en_US: 'Note', zh_CN: '备注' } },
    { name: 'extra', kind: 'text' as const, label: { en_US: 'Extra', zh_CN: '附加' } },
    { name: 'fixed', kind: 'text' as const, label: { en_US: 'Fixed', zh_CN: '固定' }, readOnly: true },
    {
      name: 'status',
      kind: 'enum' as const,
      label: { en_US: 'Status', zh_CN: '状态' },
      options: [
        { value: 'a', label: { en_US: 'A', zh_CN: '甲' } },
        { value: 'b', label: { en_US: 'B', zh_CN: '乙' } },
      ],
    },
    { name: 'count', kind: 'number' as const, label: { en_US: 'Count', zh_CN: '数量' } },
  ],
}

describe('a definition’s states', () => {
  const define = (states: unknown, more: Partial<EntityDef> = {}) => () => defineEntity({ ...base, ...more, states } as never)

  it('fails at start on an unknown state, field or property, and on rules that say nothing', () => {
    expect(define([{ when: { field: 'status', is: ['c'] }, delete: false }])).toThrow('thing: states [0].when: c is not a state of status')
    expect(define([{ when: { field: 'nope', is: ['a'] }, delete: false }])).toThrow('thing: states [0].when: nope is not a field')
    expect(define([{ when: { field: 'status', is: ['a'] }, edit: ['nope'] }])).toThrow('thing: states [0].edit: nope is not a field')
    expect(define([{ when: { field: 'status', is: ['a'] }, edit: ['fixed'] }])).toThrow(/\[0\]\.edit: fixed is never modified/)
    expect(define([{ when: { field: 'status', is: ['a'] }, edit: ['thingId'] }])).toThrow(/\[0\]\.edit: thingId is never modified/)
    expect(define([{ when: { field: 'status', is: ['a'] } }])).toThrow('thing: states [0] allows everything: say edit, delete: false, or both')
    expect(define([{ when: { field: 'status', is: ['a'] }, delete: false, lock: true }])).toThrow('thing: states [0] has an unknown property lock')
    expect(define([{ when: { field: 'status', is: [] }, delete: false }])).toThrow('thing: states [0].when.is names no value')
  })

  it('wants a number for above, with a reason, and an entity that offers what the rule refuses', () => {
    expect(define([{ when: { field: 'name', above: 0 }, delete: false, reason: { en_US: 'x', zh_CN: 'x' } }])).toThrow(/name must be a number field/)
    expect(define([{ when: { field: 'count', above: 0 }, delete: false }])).toThrow('thing: states [0]: a rule on a number says its reason (it has no state to name)')
    expect(define([{ when: { field: 'count', above: 0 }, delete: false, reason: { en_US: 'counted', zh_CN: '' } }])).toThrow(/reason must say why in en_US and zh_CN/)
    expect(define([{ when: { field: 'status', is: ['a'] }, delete: false }], { operations: ['list', 'get', 'edit'] })).toThrow('thing: states [0].delete: the entity offers no remove')
    expect(define([{ when: { field: 'status', is: ['a'] }, edit: [] }], { operations: ['list', 'get'] })).toThrow('thing: states need an entity that offers edit or remove')
    expect(define([{ when: { field: 'status', is: ['a'] }, edit: [] }, { when: { field: 'count', above: 0 }, delete: false, reason: { en_US: 'x', zh_CN: 'x' } }])).not.toThrow()
  })
})
