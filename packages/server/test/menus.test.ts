import type { Paged, RouteNode, UserInfo } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { addRole, addUser, idOf, limitedUser, type Refusal, snapshot, useTestApp } from './harness'

const t = useTestApp()
let systemDir: number
let dictPage: number
let dictAddButton: number
const db = () => t.app.services.db

beforeAll(async () => {
  systemDir = await idOf(t, 'menu', 'menu.system')
  dictPage = await idOf(t, 'menu', 'menu.system.dict')
  dictAddButton = (await db().selectFrom('sysMenu').select('menuId').where('perms', '=', 'system:dict:add').executeTakeFirstOrThrow()).menuId
})

const menus = () => snapshot(t, 'sysMenu', 'sysRoleMenu')
const add = <T = { menuId: number }>(body: object, token = t.admin) => t.call<T>({ method: 'POST', url: '/api/system/menu', token, body })
const edit = <T = { menuId: number }>(body: object, token = t.admin) => t.call<T>({ method: 'PUT', url: '/api/system/menu', token, body })
const page = (menuName: string, extra: object = {}) => ({ menuName, parentId: systemDir, menuType: 'C', orderNum: 50, path: menuName.toLowerCase(), component: 'system/x/index', ...extra })

describe('shape of the tree', () => {
  it('puts menus under directories and pages, never under a button', async () => {
    const before = await menus()
    const res = await add<Refusal>(page('Orphan', { parentId: dictAddButton }))
    expect(res.status).toBe(400)
    expect(res.msg).toBe('A button cannot have sub-menus: choose a directory or a menu as the parent')
    expect(res.data.errors[0]!.field).toBe('parentId')
    expect((await t.call({ method: 'POST', url: '/api/system/menu', token: t.admin, lang: 'zh_CN', body: page('Orphan', { parentId: dictAddButton }) })).msg).toBe(
      '按钮下不能有子菜单，请选择目录或菜单作为上级',
    )
    expect(await menus()).toEqual(before)

    const reports = await add(page('Reports'))
    expect(reports.status, reports.msg).toBe(200)
    const button = await add({ menuName: 'Print', parentId: reports.data.menuId, menuType: 'F', orderNum: 1, perms: 'system:reports:print' })
    expect(button.status, button.msg).toBe(200)
    // Moving a menu under a button, or turning a menu with children into a button, is the same mistake.
    const other = await add(page('Charts'))
    expect((await edit({ menuId: other.data.menuId, parentId: button.data.menuId })).status).toBe(400)
    const retyped = await edit<Refusal>({ menuId: reports.data.menuId, menuType: 'F' })
    expect(retyped.status).toBe(400)
    expect(retyped.data.errors[0]!.field).toBe('menuType')
  })

  it('never moves a menu below itself', async () => {
    const top = await add({ menuName: 'Top', parentId: 0, menuType: 'M', orderNum: 90, path: 'top' })
    const child = await add({ menuName: 'Inner', parentId: top.data.menuId, menuType: 'M', orderNum: 1, path: 'inner' })
    const before = await menus()
    expect((await edit({ menuId: top.data.menuId, parentId: child.data.menuId })).status).toBe(400)
    expect((await edit({ menuId: top.data.menuId, parentId: top.data.menuId })).status).toBe(400)
    expect(await menus()).toEqual(before)
  })

  it('needs a route address for directories and pages, and an http(s) one for external links', async () => {
    const before = await menus()
    const noPath = await add(page('Pathless', { path: '' }))
    expect(noPath.status).toBe(400)
    expect(noPath.msg).toBe('Route address is required for directories and menus')
    for (const path of ['docs', 'ftp://example.com', 'https://', 'javascript:alert(1)']) {
      const res = await add<Refusal>(page('Docs', { isFrame: '0', path }))
      expect(res.status, path).toBe(400)
      expect(res.msg).toBe('An external link needs an address starting with http:// or https://')
      expect(res.data.errors[0]!.field).toBe('path')
    }
    expect(await menus()).toEqual(before)
    const link = await add(page('Docs', { isFrame: '0', path: 'https://docs.example.com/api' }))
    expect(link.status, link.msg).toBe(200)
    // Switching an existing page to an external link is checked against its stored path.
    expect((await edit({ menuId: (await add(page('Local'))).data.menuId, isFrame: '0' })).status).toBe(400)
    const system = (await t.call<RouteNode[]>({ url: '/api/getRouters', token: t.admin })).data.find((r: { path: string }) => r.path === '/system')
    expect(system!.children!.find((c: { meta: { title: string } }) => c.meta.title === 'Docs')).toMatchObject({
      component: 'InnerLink',
      meta: { link: 'https://docs.example.com/api' },
    })
  })

  it('refuses bad input naming the field', async () => {
    const before = await menus()
    for (const [body, field] of [
      [page('', {}), 'menuName'],
      [page('Typo', { menuType: 'X' }), 'menuType'],
      [page('Typo', { parentId: 999999 }), 'parentId'],
      [page('Typo', { perms: 'system:x; drop table' }), 'perms'],
    ] as const) {
      const res = await add<Refusal>(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
    expect(await menus()).toEqual(before)
  })
})

describe('delete', () => {
  it('keeps a menu that roles hold, naming it in the caller’s language', async () => {
    // The common role holds the dictionary page; its buttons would block it first, so drop them.
    await db().deleteFrom('sysRoleMenu').where('menuId', 'in', db().selectFrom('sysMenu').select('menuId').where('parentId', '=', dictPage)).execute()
    await db().deleteFrom('sysMenu').where('parentId', '=', dictPage).execute()
    const before = await menus()
    const res = await t.call({ method: 'DELETE', url: `/api/system/menu/${dictPage}`, token: t.admin })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Menu "Dictionaries" is assigned to roles and cannot be deleted')
    expect((await t.call({ method: 'DELETE', url: `/api/system/menu/${dictPage}`, token: t.admin, lang: 'zh_CN' })).msg).toBe('菜单“字典管理”已分配给角色，不能删除')
    expect(await menus()).toEqual(before)
    await db().deleteFrom('sysRoleMenu').where('menuId', '=', dictPage).execute()
    expect((await t.call({ method: 'DELETE', url: `/api/system/menu/${dictPage}`, token: t.admin })).status).toBe(200)
  })

  it('keeps a menu with children', async () => {
    const before = await menus()
    const res = await t.call({ method: 'DELETE', url: `/api/system/menu/${await idOf(t, 'menu', 'menu.monitor')}`, token: t.admin })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Cannot delete node: Child nodes exist')
    expect(await menus()).toEqual(before)
  })
})

describe('GET /getRouters follows menu changes on the next call', () => {
  it('renames, hides, disables and re-enables a page for a user holding it', async () => {
    await addUser(t, { userName: 'follower1', roleKeys: ['common'] })
    const token = await t.login('follower1', 'secret12')
    const config = await idOf(t, 'menu', 'menu.system.config')
    const configPage = async () => {
      const system = (await t.call<RouteNode[]>({ url: '/api/getRouters', token })).data.find((r: { path: string }) => r.path === '/system')
      return system?.children!.find((c: { path: string }) => c.path === 'config')
    }
    expect(await configPage()).toMatchObject({ hidden: false, meta: { title: 'menu.system.config' } })

    expect((await edit({ menuId: config, menuName: 'Settings' })).status).toBe(200)
    expect((await configPage())!.meta.title).toBe('Settings')
    expect((await edit({ menuId: config, visible: '1' })).status).toBe(200)
    expect((await configPage())!.hidden).toBe(true)
    expect((await edit({ menuId: config, status: '1' })).status).toBe(200)
    expect(await configPage()).toBeUndefined()
    expect((await edit({ menuId: config, status: '0', visible: '0', path: 'settings' })).status).toBe(200)
    const system = (await t.call<RouteNode[]>({ url: '/api/getRouters', token })).data.find((r: { path: string }) => r.path === '/system')
    expect(system!.children!.find((c: { path: string }) => c.path === 'settings')).toMatchObject({ hidden: false, meta: { title: 'Settings' } })
  })

  it('a disabled button takes its permission away', async () => {
    const id = await addUser(t, { userName: 'follower2' })
    await db().insertInto('sysUserRole').values({ userId: id, roleId: await addRole(t, { roleKey: 'cfgreader', dataScope: '1', perms: ['system:config:list', 'system:config:query'] }) }).execute()
    const token = await t.login('follower2', 'secret12')
    const query = (await db().selectFrom('sysMenu').select('menuId').where('perms', '=', 'system:config:query').executeTakeFirstOrThrow()).menuId
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.permissions).toContain('system:config:query')
    await edit({ menuId: query, status: '1' })
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.permissions).not.toContain('system:config:query')
    expect((await t.call({ url: '/api/system/config/1', token })).status).toBe(403)
  })
})

describe('a limited role', () => {
  it('reads the menus with system:menu:list and gets 403 on the rest', async () => {
    const reader = await limitedUser(t, { userName: 'menureader', dataScope: '4', dept: 'Sales', perms: ['system:menu:list'] })
    const list = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/system/menu/list', token: reader.token, body: {} })
    expect(list.status).toBe(200)
    expect(list.data.total).toBeGreaterThan(100)
    const before = await menus()
    const refused = await add(page('Nope'), reader.token)
    expect(refused.status).toBe(403)
    expect(refused.msg).toBe('You have no permission to do this (system:menu:add)')
    expect((await edit({ menuId: systemDir, menuName: 'x' }, reader.token)).status).toBe(403)
    expect((await t.call({ method: 'DELETE', url: `/api/system/menu/${systemDir}`, token: reader.token })).status).toBe(403)
    expect(await menus()).toEqual(before)
  })
})
