import { describe, expect, it } from 'vitest'
import { addSchema, editSchema, fieldIssueOf, writeSchema, type WriteMode } from '../src'
import { VALUE_CASES, valueCaseEntity } from './value-cases'

const firstIssue = (mode: WriteMode, c: (typeof VALUE_CASES)[number], value: unknown) => {
  const result = writeSchema(c.field, mode).safeParse(value)
  return result.success ? null : fieldIssueOf(result.error.issues[0]?.message)
}

describe('the value schema of every kind', () => {
  describe.each(['add', 'form'] as const)('in %s mode', (mode) => {
    it.each(VALUE_CASES.map((c) => [c.field.name, c] as const))('%s takes its good values and names the problem of each bad one', (_name, c) => {
      for (const value of c.good) expect(firstIssue(mode, c, value), JSON.stringify(value)).toBeNull()
      for (const [value, problem] of c.bad) expect(firstIssue(mode, c, value), JSON.stringify(value)).toEqual({ ...problem, label: c.field.label })
    })
  })

  it('normalizes what it takes: trimmed text, upper-case codes, UTC instants, cents', () => {
    const parsed = addSchema(valueCaseEntity).parse({ title: ' abc ', code: 'nl', seen: '2026-03-01T10:00:00+02:00', price: 12.3, mustName: 'x', mustCount: 1, mustModels: [1], mustVersion: '1.0.0' })
    expect(parsed).toMatchObject({ title: 'abc', code: 'NL', seen: '2026-03-01T08:00:00.000Z', price: 12.3 })
  })

  it('lets a request leave out a required field that has a default, never a form', () => {
    const f = { name: 'status', kind: 'dict', dict: 'sys_normal_disable', required: true, default: '0', label: { en_US: 'Status', zh_CN: '状态' } } as const
    expect(writeSchema(f, 'add').safeParse(undefined).success).toBe(true)
    expect(writeSchema(f, 'edit').safeParse(undefined).success).toBe(true)
    expect(fieldIssueOf(writeSchema(f, 'form').safeParse(undefined).error?.issues[0]?.message)).toMatchObject({ rule: 'required' })
  })

  it('lets a modify leave out required fields but not blank them, and drops passwords and immutable fields', () => {
    const shape = editSchema(valueCaseEntity).shape
    expect(Object.keys(shape)).not.toContain('secret')
    expect(shape.mustName!.safeParse(undefined).success).toBe(true)
    expect(shape.mustName!.safeParse('  ').success).toBe(false)
  })

  it('reads no problem out of a message it did not write', () => {
    expect(fieldIssueOf('Invalid input')).toBeNull()
    expect(fieldIssueOf(undefined)).toBeNull()
    expect(fieldIssueOf('\u0001field:{not json')).toBeNull()
  })
})
