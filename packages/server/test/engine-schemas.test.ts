import { contentEntities, fieldIssueOf, systemEntities } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { VALUE_CASES, valueCaseEntity } from '../../shared/test/value-cases'
import { localizeIssue } from '../src/platform/i18n/zod-messages'
import { addSchema, editSchema, importRowSchema, listSchema } from '../src/platform/crud/schemas'

// The definition → zod mapping on its own, without a database or HTTP.
const { country, user, menu } = systemEntities
const { faq } = contentEntities

const fieldsOf = (r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => (r.error?.issues ?? []).map((i) => String(i.path[0])).sort()

describe('add and modify schemas', () => {
  it('requires what the definition requires, lets defaults fill the rest, and normalizes values', () => {
    expect(fieldsOf(addSchema(country).safeParse({}))).toEqual(['code', 'name', 'nameEn', 'timeZone'])
    const ok = addSchema(country).parse({ code: 'nl', name: '荷兰', nameEn: ' Netherlands ', timeZone: 'Europe/Amsterdam' })
    expect(ok).toMatchObject({ code: 'NL', nameEn: 'Netherlands' })
    expect(ok.status).toBeUndefined()
  })

  it('keeps immutable fields and passwords out of modify', () => {
    const shape = Object.keys(editSchema(user).shape)
    expect(shape).toContain('nickName')
    expect(shape).not.toContain('userName')
    expect(shape).not.toContain('password')
    expect(Object.keys(addSchema(user).shape)).toEqual(expect.arrayContaining(['userName', 'password', 'roleIds']))
  })

  it('sanitizes rich text and refuses a blank one that is required', () => {
    const parsed = addSchema(faq).parse({ type: 'app', title: 'T', content: '<p onclick="x()">Hi<script>1</script></p>' })
    expect(parsed.content).toBe('<p>Hi</p>')
    expect(fieldsOf(addSchema(faq).safeParse({ type: 'app', title: 'T', content: '   ' }))).toEqual(['content'])
  })

  it('checks a menu type against its dictionary later (server), but an enum against its options now', () => {
    expect(addSchema(menu).safeParse({ menuName: 'X', parentId: 0, menuType: 'Z', isFrame: '1' }).success).toBe(true)
    expect(fieldsOf(addSchema(menu).safeParse({ menuName: 'X', parentId: 0, isFrame: '2' }))).toEqual(['isFrame'])
  })

  it('reads an import row with the template columns only', () => {
    const schema = importRowSchema(user.imported)
    expect(Object.keys(schema.shape)).not.toContain('password')
    expect(fieldsOf(schema.safeParse({ userName: 'ab' }))).toEqual(['email', 'nickName', 'phonenumber', 'userName'])
  })
})

describe('list schema', () => {
  it('takes paging, a sort and one filter per searchable field, and nothing else', () => {
    const schema = listSchema(country)
    expect(schema.parse({})).toMatchObject({ pageNum: 1, pageSize: 20 })
    expect(schema.safeParse({ nameEn: 'x', timeZone: 'UTC', pageSize: 50 }).success).toBe(true)
    expect(schema.safeParse({ remark: 'x' }).success).toBe(false)
    expect(schema.safeParse({ pageSize: 501 }).success).toBe(false)
    expect(schema.safeParse({ createTime: ['2026-01-01', null] }).success).toBe(true)
  })
})

describe('the value table the web form is tested with too (shared/test/value-cases.ts)', () => {
  // The form runs the same table through its rules (web crud/kinds/valueRules.test.tsx): what one refuses, so does the other.
  const schema = addSchema(valueCaseEntity)
  const required = { mustName: 'x', mustCount: 1, mustModels: [1], mustVersion: '1.0.0' }
  it.each(VALUE_CASES.map((c) => [c.field.kind, c.field.name, c] as const))('%s (%s): a request takes the good values and refuses the bad ones, said in both languages', (_kind, name, c) => {
    for (const value of c.good) expect(schema.safeParse({ ...required, [name]: value }).success, JSON.stringify(value)).toBe(true)
    for (const [value, problem] of c.bad) {
      const result = schema.safeParse({ ...required, [name]: value })
      const issue = result.error?.issues.find((i) => i.path[0] === name)
      expect(issue, JSON.stringify(value)).toBeDefined()
      expect(fieldIssueOf(issue!.message)).toEqual({ ...problem, label: c.field.label })
      const raw = { code: issue!.code, path: name, message: issue!.message, params: {} }
      expect(localizeIssue(raw, 'en_US')).toMatch(problem.rule === 'pattern' ? /only/ : new RegExp(`^${c.field.label.en_US} `))
      expect(localizeIssue(raw, 'zh_CN')).toMatch(/[\u4e00-\u9fff]/)
    }
  })
})
