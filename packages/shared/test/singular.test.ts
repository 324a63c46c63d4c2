import { describe, expect, it } from 'vitest'
import { allEntities, defineEntity, singularOf, systemEntities } from '../src'

// Dialogs name one row ("Add user", "新增用户"), not the list ("Add System users", "新增用户管理").
describe("an entity's singular name", () => {
  it('is given by every built-in definition, without the list words 管理 and plural', () => {
    expect(systemEntities.user.singular).toEqual({ en_US: 'user', zh_CN: '用户' })
    expect(systemEntities.role.singular).toEqual({ en_US: 'role', zh_CN: '角色' })
    for (const e of allEntities()) {
      expect(e.singular.zh_CN, e.key).not.toMatch(/管理$/)
      expect(e.singular.en_US, e.key).toBeTruthy()
    }
  })

  it('is derived from the label where a definition has none', () => {
    expect(singularOf({ en_US: 'System users', zh_CN: '用户管理' })).toEqual({ en_US: 'system user', zh_CN: '用户' })
    expect(singularOf({ en_US: 'Countries', zh_CN: '国家地区' })).toEqual({ en_US: 'country', zh_CN: '国家地区' })
    expect(singularOf({ en_US: 'IoT model', zh_CN: '设备型号' })).toEqual({ en_US: 'IoT model', zh_CN: '设备型号' })
    expect(singularOf({ en_US: 'Status', zh_CN: '状态' }).en_US).toBe('status')
    const gadget = defineEntity({
      key: 'gadget',
      table: 'gadget',
      path: '/x/gadget',
      permission: 'x:gadget',
      label: { en_US: 'Gadgets', zh_CN: '小工具管理' },
      idField: 'gadgetId',
      defaultSort: { field: 'gadgetId', order: 'asc' },
      fields: [{ name: 'gadgetId', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true }],
    })
    expect(gadget.singular).toEqual({ en_US: 'gadget', zh_CN: '小工具' })
  })
})
