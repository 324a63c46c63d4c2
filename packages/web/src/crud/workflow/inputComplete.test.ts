import { describe, expect, it } from 'vitest'
import type { FieldDef } from '@velo/shared'
import { inputComplete } from './operations'

const count = { name: 'count', kind: 'number', int: true, label: { en_US: 'Count', zh_CN: '数量' }, required: true } as FieldDef
const note = { name: 'note', kind: 'text', label: { en_US: 'Note', zh_CN: '备注' } } as FieldDef
const reason = { name: 'reason', kind: 'text', label: { en_US: 'Reason', zh_CN: '原因' }, required: true, when: { field: 'mode', is: ['other'] } } as FieldDef

describe('inputComplete (a preview is asked only for a complete input)', () => {
  it('waits for every required input', () => {
    expect(inputComplete([count, note], {})).toBe(false)
    expect(inputComplete([count, note], { count: '' })).toBe(false)
    expect(inputComplete([count, note], { count: 0 })).toBe(true)
    expect(inputComplete([count, note], { count: 12 })).toBe(true)
  })

  it('is complete without input, and ignores a required input another value hides', () => {
    expect(inputComplete([], {})).toBe(true)
    expect(inputComplete([reason], { mode: 'usual' })).toBe(true)
    expect(inputComplete([reason], { mode: 'other' })).toBe(false)
  })
})
