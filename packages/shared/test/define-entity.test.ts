import { describe, expect, it } from 'vitest'
import { defineEntity, entityByKey, entityForComponent, MENU_CATALOGUE, MENU_TITLES, PASSWORD_PATTERN, systemEntities, USERNAME_PATTERN } from '../src'
import { THING, THING_ID } from './thing'

describe('defineEntity', () => {
  const base = THING
  const id = THING_ID

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
    expect(e.operations).toEqual(['list', 'get', 'add', 'edit', 'remove', 'export', 'import'])
    expect(e.labelField).toBe('title')
    expect(e.imported.map((f) => f.name)).toEqual(['title', 'body', 'secretNote'])
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
  })

  it('checks what a scope declaration says alone', () => {
    const countryRef = { name: 'countryId', kind: 'reference', entity: 'country', label: { en_US: 'Country', zh_CN: '国家' } } as const
    expect(() => defineEntity({ ...base, fields: [id], scope: { country: 'countryId' } })).toThrow(/scope.country countryId must be a reference to country/)
    expect(() => defineEntity({ ...base, fields: [id, { ...countryRef, entity: 'dept' }], scope: { country: 'countryId' } })).toThrow(/must be a reference to country/)
    expect(() => defineEntity({ ...base, fields: [id], scope: {} })).toThrow(/names no owner/)
    expect(() => defineEntity({ ...base, fields: [id], scope: { via: 'title' } })).toThrow(/scope.via title must be a reference field/)
    expect(() => defineEntity({ ...base, fields: [id], scope: { none: { en_US: 'Settings', zh_CN: ' ' } } })).toThrow(/must say why in en_US and zh_CN/)
    expect(() => defineEntity({ ...base, fields: [id], scope: { person: 'title' } })).toThrow(/scope.person title/)
    expect(defineEntity({ ...base, fields: [id, countryRef], scope: { country: 'countryId', person: 'createBy' } }).scope).toEqual({ country: 'countryId', person: 'createBy' })
  })

  it('keeps passwords and links out of what is read, and files out of imports', () => {
    const e = defineEntity({
      ...base,
      fields: [
        id,
        { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, unique: true, immutable: true },
        { name: 'password', kind: 'password', label: { en_US: 'Password', zh_CN: '密码' } },
        { name: 'photo', kind: 'image', label: { en_US: 'Photo', zh_CN: '照片' } },
        { name: 'roleIds', kind: 'referenceMany', entity: 'role', through: { table: 't', from: 'a', to: 'b' }, label: { en_US: 'Roles', zh_CN: '角色' } },
        { name: 'parentId', kind: 'treeParent', label: { en_US: 'Parent', zh_CN: '上级' } },
      ],
    })
    expect(e.columns).toEqual(['thingId', 'name', 'photo', 'parentId'])
    expect(e.listed.map((f) => f.name)).toEqual(['thingId', 'name', 'photo', 'parentId'])
    expect(e.exported.map((f) => f.name)).toEqual(['thingId', 'name', 'photo', 'parentId'])
    expect(e.imported.map((f) => f.name)).toEqual(['name', 'parentId'])
    expect(e.formFields.map((f) => f.name)).toEqual(['name', 'password', 'photo', 'roleIds', 'parentId'])
    expect(e.importKey).toBe('name')
    expect(e.treeParent).toBe('parentId')
  })

  it('sorts a field by a storage column only when the field sorts and the column exists', () => {
    const version = { name: 'version', kind: 'version' as const, label: { en_US: 'V', zh_CN: 'V' }, sort: true, sortBy: 'versionNumber' }
    const versionNumber = { name: 'versionNumber', kind: 'number' as const, int: true }
    expect(defineEntity({ ...base, storage: { columns: [versionNumber] }, fields: [id, version] }).fieldMap.get('version')!.sortBy).toBe('versionNumber')
    expect(() => defineEntity({ ...base, fields: [id, version] })).toThrow(/sortBy versionNumber/)
    expect(() => defineEntity({ ...base, storage: { columns: [versionNumber] }, fields: [id, { ...version, sort: false }] })).toThrow(/sortBy versionNumber needs sort/)
  })

  it("refuses a field named as a list's page or sort (the list call and the list's URL use those names)", () => {
    for (const name of ['pageNum', 'pageSize', 'orderByColumn', 'isAsc']) {
      expect(() => defineEntity({ ...base, fields: [id, { name, kind: 'text', label: { en_US: 'T', zh_CN: 'T' } }] })).toThrow(/a list's page or sort/)
    }
  })

  it('refuses a subtree search on a field that names no tree, and two parents', () => {
    const text = { name: 'title', kind: 'text' as const, label: { en_US: 'T', zh_CN: 'T' } }
    expect(() => defineEntity({ ...base, fields: [id, { ...text, search: 'subtree' }] })).toThrow(/subtree/)
    const parent = { kind: 'treeParent' as const, label: { en_US: 'P', zh_CN: 'P' } }
    expect(() => defineEntity({ ...base, fields: [id, { ...parent, name: 'a' }, { ...parent, name: 'b' }] })).toThrow(/one parent/)
  })

  it('defines the system entities and finds them by key and by menu component', () => {
    expect(systemEntities.dictType.sortable.has('dictName')).toBe(true)
    expect(systemEntities.user.columns).not.toContain('password')
    expect(entityByKey('dept')).toBe(systemEntities.dept)
    expect(entityForComponent('system/country/index')).toBe(systemEntities.country)
    expect(entityForComponent('monitor/logininfor/index')).toBe(systemEntities.loginLog)
    expect(entityForComponent('system/nothing/index')).toBeUndefined()
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
