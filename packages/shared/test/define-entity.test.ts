import { describe, expect, it } from 'vitest'
import { defineEntity, MENU_CATALOGUE, MENU_TITLES, PASSWORD_PATTERN, systemEntities, USERNAME_PATTERN } from '../src'

describe('defineEntity', () => {
  const base = {
    key: 'thing',
    table: 'thing',
    path: '/x/thing',
    permission: 'x:thing',
    label: { en_US: 'Thing', zh_CN: '东西' },
    idField: 'thingId',
    defaultSort: { field: 'thingId', order: 'asc' as const },
  }
  const id = { name: 'thingId', kind: 'number' as const, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true }

  it('precomputes searchable, sortable, listed, exported and writable fields', () => {
    const e = defineEntity({
      ...base,
      fields: [
        id,
        { name: 'title', kind: 'text', label: { en_US: 'Title', zh_CN: '标题' }, search: 'like', sort: true },
        { name: 'body', kind: 'longText', label: { en_US: 'Body', zh_CN: '内容' }, hidden: true },
        { name: 'secretNote', kind: 'text', label: { en_US: 'Note', zh_CN: '备注' }, export: false, list: false },
      ],
    })
    expect(e.operations).toEqual(['list', 'get', 'add', 'edit', 'remove', 'export'])
    expect(e.searchable.map((f) => f.name)).toEqual(['title'])
    expect([...e.sortable].sort()).toEqual(['thingId', 'title'])
    expect(e.listed.map((f) => f.name)).toEqual(['thingId', 'title'])
    expect(e.exported.map((f) => f.name)).toEqual(['thingId', 'title'])
    expect(e.writable.map((f) => f.name)).toEqual(['title', 'body', 'secretNote'])
  })

  it('fails at once on a bad definition', () => {
    expect(() => defineEntity({ ...base, fields: [id, id] })).toThrow(/defined twice/)
    expect(() => defineEntity({ ...base, fields: [] })).toThrow(/idField thingId is not a field/)
    expect(() => defineEntity({ ...base, fields: [id, { ...id, name: 'Bad_name' }] })).toThrow(/camelCase/)
    expect(() => defineEntity({ ...base, fields: [id], dataScope: { deptField: 'deptId' } })).toThrow(/dataScope.deptField/)
  })

  it('defines the system entities without error', () => {
    expect(systemEntities.dictType.sortable.has('dictName')).toBe(true)
    expect(systemEntities.user.fields.some((f) => f.name === 'password')).toBe(false)
  })
})

describe('validation rules of SPEC §5', () => {
  it.each([
    ['admin', true],
    ['ab1', false],
    ['a'.repeat(20), true],
    ['a'.repeat(21), false],
    ['bad name', false],
    ['名字名字', false],
  ])('user name %s → %s', (value, valid) => expect(USERNAME_PATTERN.test(value)).toBe(valid))

  it.each([
    ['secret', true],
    ['P@ss-w0rd!', true],
    ['12345', false],
    ['a'.repeat(21), false],
    ['with space', false],
  ])('password %s → %s', (value, valid) => expect(PASSWORD_PATTERN.test(value)).toBe(valid))
})

describe('menu catalogue', () => {
  it('has a bilingual title for every area and page, and unique permission prefixes', () => {
    const pages = MENU_CATALOGUE.flatMap((a) => a.children ?? [])
    expect(Object.keys(MENU_TITLES)).toHaveLength(MENU_CATALOGUE.length + pages.length)
    for (const label of Object.values(MENU_TITLES)) {
      expect(label.en_US).toBeTruthy()
      expect(label.zh_CN).toBeTruthy()
    }
    const prefixes = pages.map((p) => p.permission)
    expect(new Set(prefixes).size).toBe(prefixes.length)
  })
})
