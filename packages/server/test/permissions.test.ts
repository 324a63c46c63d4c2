import Fastify from 'fastify'
import type { Paged, RouteNode, UserInfo } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installGuard } from '../src/platform/rbac/guard'
import { addRole, addUser, createTestApp, deptId, type TestApp } from './harness'

let t: TestApp
let admin: string
beforeAll(async () => {
  t = await createTestApp()
  admin = await t.login()
})
afterAll(() => t.close())

describe('every route declares its permission', () => {
  it('walks all registered API routes', () => {
    const api = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && !r.url.startsWith('/api/docs'))
    expect(api.length).toBeGreaterThan(40)
    const undeclared = api.filter((r) => typeof r.config?.permission !== 'string' || r.config.permission === '')
    expect(undeclared.map((r) => `${String(r.method)} ${r.url}`)).toEqual([])
  })

  it('refuses at start a route that declares nothing', async () => {
    const app = Fastify()
    await app.register(async (api) => {
      installGuard(api, t.app.services)
      expect(() => api.get('/undeclared', async () => 'x')).toThrow(/declares no permission/)
    })
    await app.close()
  })
})

describe('permission checks', () => {
  it('lets admin (role admin, *:*:*) through everything', async () => {
    const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token: admin })
    expect(info.data.roles).toEqual(['admin'])
    expect(info.data.permissions).toEqual(['*:*:*'])
    expect(info.data.user).toMatchObject({ userId: 1, username: 'admin', nickName: 'Administrator', avatar: '', deptName: 'Velo HQ' })
    expect((await t.call({ method: 'POST', url: '/api/monitor/operlog/list', token: admin, body: {} })).code).toBe(200)
  })

  it('gives a user without roles ROLE_DEFAULT, no permissions and no routes', async () => {
    await addUser(t, { userName: 'norole1' })
    const token = await t.login('norole1', 'secret12')
    const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token })
    expect(info.data.roles).toEqual(['ROLE_DEFAULT'])
    expect(info.data.permissions).toEqual([])
    expect((await t.call<RouteNode[]>({ url: '/api/getRouters', token })).data).toEqual([])
  })

  it('refuses what a role does not grant with 403, naming the permission, and changes nothing', async () => {
    await addUser(t, { userName: 'reader2', roleKeys: ['common'] })
    const token = await t.login('reader2', 'secret12')
    const before = await t.app.services.db.selectFrom('sysDictType').select(['dictId']).execute()
    const res = await t.call({ method: 'DELETE', url: `/api/system/dict/${before[0]!.dictId}`, token })
    expect(res.status).toBe(403)
    expect(res.code).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (system:dict:remove)')
    expect(await t.app.services.db.selectFrom('sysDictType').select(['dictId']).execute()).toEqual(before)
    const zh = await t.call({ method: 'POST', url: '/api/monitor/operlog/list', token, lang: 'zh_CN', body: {} })
    expect(zh.msg).toBe('没有权限执行此操作（monitor:operlog:list）')
    // What the role does grant works.
    expect((await t.call({ method: 'POST', url: '/api/system/dict/list', token, body: {} })).code).toBe(200)
  })

  it('checks the permission before it reads the body', async () => {
    await addUser(t, { userName: 'reader3', roleKeys: ['common'] })
    const token = await t.login('reader3', 'secret12')
    const res = await t.call({ method: 'POST', url: '/api/system/dict', token, body: { nonsense: true } })
    expect(res.status).toBe(403)
  })
})

describe('GET /getRouters', () => {
  it('gives admin a directory per product area with its pages, and no buttons', async () => {
    const routes = (await t.call<RouteNode[]>({ url: '/api/getRouters', token: admin })).data
    expect(routes.map((r: { path: string }) => r.path)).toEqual([
      '/analytics', '/member', '/bike', '/order', '/content', '/iot', '/ota', '/service', '/tool', '/system', '/monitor',
    ])
    const system = routes.find((r: { path: string }) => r.path === '/system')
    expect(system).toMatchObject({ component: 'Layout', redirect: 'noRedirect', alwaysShow: true, hidden: false, meta: { title: 'menu.system', icon: 'setting' } })
    const dict = system!.children!.find((c: { path: string }) => c.path === 'dict')
    expect(dict).toEqual({
      name: expect.stringMatching(/^Dict\d+$/),
      path: 'dict',
      hidden: false,
      component: 'system/dict/index',
      meta: { title: 'menu.system.dict', icon: 'book', noClose: false, noCache: false, activeMenu: null, breadcrumb: true, link: null },
    })
    const all = JSON.stringify(routes)
    expect(all).not.toContain('button.')
    const names = [...all.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1])
    expect(new Set(names).size).toBe(names.length)
  })

  it('gives the common role only its menus', async () => {
    await addUser(t, { userName: 'reader4', roleKeys: ['common'] })
    const token = await t.login('reader4', 'secret12')
    const routes = (await t.call<RouteNode[]>({ url: '/api/getRouters', token })).data
    expect(routes.map((r: { path: string }) => r.path)).toEqual(['/analytics', '/system'])
    expect(routes[1]!.children!.map((c: { path: string }) => c.path)).toEqual(['dict', 'config'])
    const perms = (await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.permissions
    expect(perms).toContain('system:dict:list')
    expect(perms).toContain('system:dict:query')
    expect(perms).not.toContain('system:dict:remove')
  })

  it('marks hidden menus, drops disabled ones, nests directories as ParentView, and follows changes at once', async () => {
    const db = t.app.services.db
    const dict = await db.selectFrom('sysMenu').select(['menuId', 'parentId']).where('menuName', '=', 'menu.system.dict').executeTakeFirstOrThrow()
    const config = await db.selectFrom('sysMenu').select('menuId').where('menuName', '=', 'menu.system.config').executeTakeFirstOrThrow()
    await db.updateTable('sysMenu').set({ visible: '1' }).where('menuId', '=', dict.menuId).execute()
    await db.updateTable('sysMenu').set({ status: '1' }).where('menuId', '=', config.menuId).execute()
    const nested = await db
      .insertInto('sysMenu')
      .values({ menuName: 'Reports', parentId: dict.parentId, orderNum: 99, path: 'reports', component: null, query: null, isFrame: '1', isCache: '0', menuType: 'M', visible: '0', status: '0', perms: null, icon: 'folder', noClose: '0', createBy: 't', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' })
      .returning('menuId')
      .executeTakeFirstOrThrow()
    try {
      const system = (await t.call<RouteNode[]>({ url: '/api/getRouters', token: admin })).data.find((r: { path: string }) => r.path === '/system')
      expect(system!.children!.find((c: { path: string }) => c.path === 'dict')!.hidden).toBe(true)
      expect(system!.children!.find((c: { path: string }) => c.path === 'config')).toBeUndefined()
      expect(system!.children!.find((c: { path: string }) => c.path === 'reports')).toMatchObject({ component: 'ParentView', meta: { title: 'Reports' } })
    } finally {
      await db.updateTable('sysMenu').set({ visible: '0' }).where('menuId', '=', dict.menuId).execute()
      await db.updateTable('sysMenu').set({ status: '0' }).where('menuId', '=', config.menuId).execute()
      await db.deleteFrom('sysMenu').where('menuId', '=', nested.menuId).execute()
    }
  })
})

describe('data scope', () => {
  const viewers: Record<string, string> = {}
  beforeAll(async () => {
    const rd = await deptId(t, 'Research & Development')
    const sales = await deptId(t, 'Sales')
    const eu = await deptId(t, 'Sales Europe')
    const cn = await deptId(t, 'Sales China')
    await addUser(t, { userName: 'staffrd', deptId: rd })
    await addUser(t, { userName: 'staffsales', deptId: sales })
    await addUser(t, { userName: 'staffeu', deptId: eu })
    await addUser(t, { userName: 'staffcn', deptId: cn })
    const perms = ['system:user:list', 'system:user:query', 'system:user:export', 'system:dept:list']
    const scopes: [string, string, number[]][] = [
      ['scopeall', '1', []],
      ['scopecustom', '2', [cn]],
      ['scopeown', '3', []],
      ['scopebelow', '4', []],
      ['scopeself', '5', []],
    ]
    for (const [key, dataScope, deptIds] of scopes) {
      await addRole(t, { roleKey: key, dataScope, perms, deptIds })
      await addUser(t, { userName: `v${key}`, deptId: sales, roleKeys: [key] })
      viewers[key] = await t.login(`v${key}`, 'secret12')
    }
  })

  const userNames = async (token: string) =>
    (await t.call<Paged<{ userName: string }>>({ method: 'POST', url: '/api/system/user/list', token, body: { pageSize: 100 } })).data.rows
      .map((r: { userName: string }) => r.userName)
      .filter((n: string) => n.startsWith('staff') || n.startsWith('vscope'))
      .sort()
  const deptNames = async (token: string) =>
    (await t.call<Paged<{ deptName: string }>>({ method: 'POST', url: '/api/system/dept/list', token, body: { pageSize: 100 } })).data.rows.map((r: { deptName: string }) => r.deptName).sort()

  it('all: every row', async () => {
    expect(await userNames(viewers.scopeall!)).toEqual(
      ['staffcn', 'staffeu', 'staffrd', 'staffsales', 'vscopeall', 'vscopebelow', 'vscopecustom', 'vscopeown', 'vscopeself'],
    )
    expect(await deptNames(viewers.scopeall!)).toHaveLength(6)
  })

  it('custom: only the chosen departments', async () => {
    expect(await userNames(viewers.scopecustom!)).toEqual(['staffcn'])
    expect(await deptNames(viewers.scopecustom!)).toEqual(['Sales China'])
  })

  it('own department: only the viewer’s department', async () => {
    expect(await userNames(viewers.scopeown!)).toEqual(['staffsales', 'vscopeall', 'vscopebelow', 'vscopecustom', 'vscopeown', 'vscopeself'])
    expect(await deptNames(viewers.scopeown!)).toEqual(['Sales'])
  })

  it('department and below: the subtree', async () => {
    expect(await userNames(viewers.scopebelow!)).toEqual(
      ['staffcn', 'staffeu', 'staffsales', 'vscopeall', 'vscopebelow', 'vscopecustom', 'vscopeown', 'vscopeself'],
    )
    expect(await deptNames(viewers.scopebelow!)).toEqual(['Sales', 'Sales China', 'Sales Europe'])
  })

  it('self only: just the viewer, and no departments', async () => {
    expect(await userNames(viewers.scopeself!)).toEqual(['vscopeself'])
    expect(await deptNames(viewers.scopeself!)).toEqual([])
  })

  it('applies to single reads and exports too', async () => {
    const rd = await t.app.services.db.selectFrom('sysUser').select('userId').where('userName', '=', 'staffrd').executeTakeFirstOrThrow()
    expect((await t.call({ url: `/api/system/user/${rd.userId}`, token: viewers.scopebelow })).status).toBe(404)
    expect((await t.call<{ userName: string }>({ url: `/api/system/user/${rd.userId}`, token: viewers.scopeall })).data.userName).toBe('staffrd')
    const exported = await t.call({ method: 'POST', url: '/api/system/user/export', token: viewers.scopeself, body: {} })
    expect(exported.status).toBe(200)
    const ExcelJS = (await import('exceljs')).default
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(exported.raw as unknown as ArrayBuffer)
    const names = wb.worksheets[0]!.getColumn(2).values.slice(2)
    expect(names).toEqual(['vscopeself'])
  })

  it('never sends password hashes', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/user/list', token: viewers.scopeall, body: {} })
    expect(JSON.stringify(res.data)).not.toMatch(/password|argon2/)
  })
})
