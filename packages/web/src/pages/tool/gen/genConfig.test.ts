import { describe, expect, it } from 'vitest'
import type { GenColumn, GenTableConfig } from '@velo/shared'
import { draftOf, errorsByPath, MENU_AREAS, setArea, setColumn, setEntityKey, setPermission, setTemplate, setTreeParent } from './genConfig'

const column = (name: string, over: Partial<GenColumn> = {}): GenColumn => ({
  column: name,
  dbType: 'integer',
  primaryKey: false,
  nullable: true,
  comment: '',
  name,
  label: { en_US: name, zh_CN: name },
  kind: 'number',
  required: false,
  search: '',
  list: true,
  form: true,
  export: true,
  dict: '',
  max: null,
  ...over,
})

const config: GenTableConfig = {
  entityKey: 'shopItem',
  area: 'service',
  path: '/service/shopItem',
  permission: 'service:shopItem',
  label: { en_US: 'Shop items', zh_CN: '商品' },
  template: 'plain',
  treeParent: null,
  columns: [column('item_id', { primaryKey: true }), column('parent_id'), column('state', { kind: 'dict', dict: 'sys_normal_disable' })],
}

describe('generation settings being edited', () => {
  it('offers the menu catalogue areas', () => {
    expect(MENU_AREAS.map((a) => a.key)).toEqual(expect.arrayContaining(['member', 'service', 'system']))
  })

  it('the path is always the area and key; the permission follows them until written by hand, and again once written back', () => {
    let draft = setArea(setEntityKey(draftOf(config), 'shopGood'), 'member')
    expect(draft.config).toMatchObject({ path: '/member/shopGood', permission: 'member:shopGood' })
    draft = setPermission(draft, 'member:goods')
    draft = setEntityKey(draft, 'good')
    expect(draft.config).toMatchObject({ path: '/member/good', permission: 'member:goods' })
    draft = setPermission(draft, 'member:good')
    draft = setArea(draft, 'bike')
    expect(draft.config).toMatchObject({ path: '/bike/good', permission: 'bike:good' })
  })

  it('a settings document saved with another path gets the page’s path', () => {
    const draft = setEntityKey(draftOf({ ...config, path: '/service/goods' }), 'good')
    expect(draft.config).toMatchObject({ path: '/service/good', permission: 'service:good' })
  })

  it('a column that stops being a dictionary loses its dictionary', () => {
    const draft = setColumn(draftOf(config), 'state', { kind: 'text' })
    expect(draft.config.columns[2]).toMatchObject({ kind: 'text', dict: '' })
    expect(setColumn(draftOf(config), 'state', { required: true }).config.columns[2]).toMatchObject({ kind: 'dict', dict: 'sys_normal_disable' })
  })

  it('the tree parent column becomes of kind treeParent; the one it replaces goes back to a number', () => {
    let draft = setTreeParent(setTemplate(draftOf(config), 'tree'), 'state')
    expect(draft.config.treeParent).toBe('state')
    expect(draft.config.columns[2]).toMatchObject({ kind: 'treeParent', dict: '' })
    draft = setTreeParent(draft, 'parent_id')
    expect(draft.config.columns.map((c) => c.kind)).toEqual(['number', 'treeParent', 'number'])
    // A parent column given another kind is no longer the parent; a plain list has none.
    expect(setColumn(draft, 'parent_id', { kind: 'number' }).config.treeParent).toBeNull()
    expect(setTemplate(draft, 'plain').config.treeParent).toBeNull()
  })

  it('gathers the server field errors by path', () => {
    const map = errorsByPath([
      { field: 'columns.1.name', message: 'Bad name' },
      { field: 'columns.1.name', message: 'Too long' },
      { field: 'entityKey', message: 'Taken' },
    ])
    expect([...map]).toEqual([
      ['columns.1.name', 'Bad name; Too long'],
      ['entityKey', 'Taken'],
    ])
    expect(errorsByPath(null).size).toBe(0)
  })
})
