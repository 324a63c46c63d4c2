import type { Paged, UserInfo } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TreeOption } from '../src/modules/system/access'
import { addUser, deptId, idOf, limitedUser, type Refusal, snapshot, useTestApp } from './harness'

const t = useTestApp()
let adminRole: number
const db = () => t.app.services.db

beforeAll(async () => {
  adminRole = await idOf(t, 'role', 'admin')
})

const roles = () => snapshot(t, 'sysRole', 'sysRoleMenu', 'sysRoleDept', 'sysUserRole')
const put = <T = unknown>(url: string, body: object, token = t.admin) => t.call<T>({ method: 'PUT', url: `/api/system/role${url}`, token, body })
const userInfo = (token: string) => t.call<UserInfo>({ url: '/api/getUserInfo', token })

async function addRoleViaApi(roleKey: string, extra: object = {}) {
  const res = await t.call<{ roleId: number; roleKey: string; dataScope: string; status: string }>({ method: 'POST', url: '/api/system/role', token: t.admin, body: { roleName: `Role ${roleKey}`, roleKey, roleSort: 5, ...extra } })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

async function grant(userId: number, roleId: number) {
  await db().insertInto('sysUserRole').values({ userId, roleId }).execute()
}

describe('add and modify', () => {
  it('keeps the menu permissions of a role, which its users then hold', async () => {
    const menus = [await idOf(t, 'menu', 'menu.system'), await idOf(t, 'menu', 'menu.system.country')]
    const role = await addRoleViaApi('countrykeeper', { menuIds: menus })
    expect((await t.call<{ menuIds: number[] }>({ url: `/api/system/role/${role.roleId}`, token: t.admin })).data.menuIds.sort()).toEqual(menus.sort())
    const id = await addUser(t, { userName: 'keeper1' })
    await grant(id, role.roleId)
    const info = await userInfo(await t.login('keeper1', 'secret12'))
    expect(info.data.roles).toEqual(['countrykeeper'])
    expect(info.data.permissions).toEqual(['system:country:list'])
  })

  it('refuses bad input naming the field, and a taken code, changing nothing', async () => {
    const before = await roles()
    const cases: [object, string][] = [
      [{ roleName: 'X', roleKey: '1abc', roleSort: 1 }, 'roleKey'],
      [{ roleName: '', roleKey: 'okkey', roleSort: 1 }, 'roleName'],
      [{ roleName: 'X', roleKey: 'okkey', roleSort: -1 }, 'roleSort'],
      [{ roleName: 'X', roleKey: 'okkey', roleSort: 1, dataScope: '9' }, 'dataScope'],
      [{ roleName: 'X', roleKey: 'okkey', roleSort: 1, menuIds: [999999] }, 'menuIds'],
    ]
    for (const [body, field] of cases) {
      const res = await t.call<Refusal>({ method: 'POST', url: '/api/system/role', token: t.admin, body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
    const taken = await t.call({ method: 'POST', url: '/api/system/role', token: t.admin, body: { roleName: 'Again', roleKey: 'common', roleSort: 1 } })
    expect(taken.status).toBe(409)
    expect(await roles()).toEqual(before)
  })
})

describe('the admin role', () => {
  it('cannot be modified, disabled, rescoped or deleted', async () => {
    const before = await roles()
    const modify = await put('', { roleId: adminRole, roleName: 'Not admin' })
    expect(modify.status).toBe(409)
    expect(modify.msg).toBe('The administrator role cannot be modified or deleted')
    expect((await t.call({ method: 'PUT', url: '/api/system/role', token: t.admin, lang: 'zh_CN', body: { roleId: adminRole, roleSort: 3 } })).msg).toBe('不允许修改或删除管理员角色')
    expect((await put('/changeStatus', { roleId: adminRole, status: '1' })).status).toBe(409)
    expect((await put('/dataScope', { roleId: adminRole, dataScope: '5' })).status).toBe(409)
    const del = await t.call({ method: 'DELETE', url: `/api/system/role/${adminRole}`, token: t.admin })
    expect(del.status).toBe(409)
    expect(await roles()).toEqual(before)
    expect((await userInfo(t.admin)).data.permissions).toEqual(['*:*:*'])
  })
})

describe('delete', () => {
  it('refuses a role still assigned to users with 409, then deletes it with its links once unassigned', async () => {
    const role = await addRoleViaApi('shortlived', { menuIds: [await idOf(t, 'menu', 'menu.system')] })
    const a = await addUser(t, { userName: 'holder1' })
    const b = await addUser(t, { userName: 'holder2' })
    await grant(a, role.roleId)
    await grant(b, role.roleId)
    const before = await roles()
    const res = await t.call({ method: 'DELETE', url: `/api/system/role/${role.roleId}`, token: t.admin })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Role "Role shortlived" is assigned to 2 users and cannot be deleted')
    expect((await t.call({ method: 'DELETE', url: `/api/system/role/${role.roleId}`, token: t.admin, lang: 'zh_CN' })).msg).toBe('角色“Role shortlived”已分配给 2 个用户，不能删除')
    expect(await roles()).toEqual(before)

    expect((await put(`/${role.roleId}/users/cancel`, { userIds: [a, b] })).data).toEqual({ removed: 2 })
    expect((await t.call({ method: 'DELETE', url: `/api/system/role/${role.roleId}`, token: t.admin })).status).toBe(200)
    expect(await db().selectFrom('sysRoleMenu').select('menuId').where('roleId', '=', role.roleId).execute()).toEqual([])
  })
})

describe('PUT /system/role/changeStatus', () => {
  it('a disabled role grants nothing from its users’ next call on', async () => {
    const role = await addRoleViaApi('switchable', { menuIds: [await idOf(t, 'menu', 'menu.system.country')] })
    const id = await addUser(t, { userName: 'switched1' })
    await grant(id, role.roleId)
    const token = await t.login('switched1', 'secret12')
    expect((await t.call({ method: 'POST', url: '/api/system/country/list', token, body: {} })).status).toBe(200)
    const res = await put<{ status: string }>('/changeStatus', { roleId: role.roleId, status: '1' })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.status).toBe('1')
    expect((await t.call({ method: 'POST', url: '/api/system/country/list', token, body: {} })).status).toBe(403)
    await put('/changeStatus', { roleId: role.roleId, status: '0' })
    expect((await t.call({ method: 'POST', url: '/api/system/country/list', token, body: {} })).status).toBe(200)
  })

  it('refuses a bad status and unknown roles', async () => {
    const before = await roles()
    expect((await put('/changeStatus', { roleId: adminRole + 1, status: 'x' })).status).toBe(400)
    expect((await put('/changeStatus', { roleId: 99999, status: '1' })).status).toBe(404)
    expect(await roles()).toEqual(before)
  })
})

describe('PUT /system/role/dataScope', () => {
  it('keeps departments for the custom scope only, and the scope decides which users its holders see', async () => {
    const role = await addRoleViaApi('scoped', { menuIds: [await idOf(t, 'menu', 'menu.system.user')] })
    const cn = await deptId(t, 'Sales China')
    const eu = await deptId(t, 'Sales Europe')
    await addUser(t, { userName: 'cnstaff1', deptId: cn })
    await addUser(t, { userName: 'eustaff1', deptId: eu })
    const viewer = await addUser(t, { userName: 'scopeviewer', deptId: eu })
    await grant(viewer, role.roleId)
    const token = await t.login('scopeviewer', 'secret12')
    const seen = async () =>
      (await t.call<Paged<{ userName: string }>>({ method: 'POST', url: '/api/system/user/list', token, body: { pageSize: 500 } })).data.rows.map((r: { userName: string }) => r.userName).sort()

    const custom = await put('/dataScope', { roleId: role.roleId, dataScope: '2', deptIds: [cn] })
    expect(custom.status, custom.msg).toBe(200)
    expect((await t.call({ url: `/api/system/role/${role.roleId}`, token: t.admin })).data).toMatchObject({ dataScope: '2', deptIds: [cn] })
    expect(await seen()).toEqual(['cnstaff1'])

    const own = await put('/dataScope', { roleId: role.roleId, dataScope: '3', deptIds: [cn] })
    expect(own.status).toBe(200)
    expect((await t.call({ url: `/api/system/role/${role.roleId}`, token: t.admin })).data).toMatchObject({ dataScope: '3', deptIds: [] })
    expect(await seen()).toEqual(['eustaff1', 'scopeviewer'])

    // A plain modify that leaves the custom scope drops its departments too.
    await put('/dataScope', { roleId: role.roleId, dataScope: '2', deptIds: [cn, eu] })
    await put('', { roleId: role.roleId, dataScope: '5' })
    expect(await db().selectFrom('sysRoleDept').select('deptId').where('roleId', '=', role.roleId).execute()).toEqual([])
    expect(await seen()).toEqual(['scopeviewer'])
  })

  it('refuses an unknown scope or department, changing nothing', async () => {
    const role = await addRoleViaApi('scoped2')
    const before = await roles()
    const bad = await put<Refusal>('/dataScope', { roleId: role.roleId, dataScope: '7', deptIds: [] })
    expect(bad.status).toBe(400)
    expect(bad.data.errors[0]!.field).toBe('dataScope')
    const missing = await put<Refusal>('/dataScope', { roleId: role.roleId, dataScope: '2', deptIds: [99999] })
    expect(missing.status).toBe(400)
    expect(missing.data.errors[0]!.field).toBe('deptIds')
    expect(await roles()).toEqual(before)
  })
})

describe('users of a role', () => {
  let role: number
  let limited: { userId: number; token: string }
  beforeAll(async () => {
    role = (await addRoleViaApi('crew')).roleId
    for (const [name, dept] of [['crewhq', 'Velo HQ'], ['crewsales', 'Sales'], ['creweu', 'Sales Europe'], ['crewrd', 'Research & Development']] as const) {
      await grant(await addUser(t, { userName: name, deptId: await deptId(t, dept) }), role)
    }
    limited = await limitedUser(t, { userName: 'crewlead', dataScope: '4', dept: 'Sales', perms: ['system:role:list', 'system:role:edit'] })
  })

  it('lists them paged, filtered by user name, with their department', async () => {
    const all = await t.call<Paged<{ userName: string }>>({ method: 'POST', url: `/api/system/role/${role}/users/list`, token: t.admin, body: {} })
    expect(all.status, all.msg).toBe(200)
    expect(all.data.total).toBe(4)
    expect(all.data.rows.map((r: { userName: string }) => r.userName)).toEqual(['crewhq', 'crewsales', 'creweu', 'crewrd'])
    expect(all.data.rows[1]).toMatchObject({ userName: 'crewsales', deptName: 'Sales', status: '0' })
    expect(JSON.stringify(all.data)).not.toMatch(/password|argon2/)
    const page = await t.call({ method: 'POST', url: `/api/system/role/${role}/users/list`, token: t.admin, body: { pageNum: 2, pageSize: 3 } })
    expect(page.data).toMatchObject({ total: 4, rows: [{ userName: 'crewrd' }] })
    const filtered = await t.call<Paged<{ userName: string }>>({ method: 'POST', url: `/api/system/role/${role}/users/list`, token: t.admin, body: { userName: 'SALES' } })
    expect(filtered.data.rows.map((r: { userName: string }) => r.userName)).toEqual(['crewsales'])
    expect((await t.call({ method: 'POST', url: '/api/system/role/99999/users/list', token: t.admin, body: {} })).status).toBe(404)
  })

  it('keeps to the caller’s data scope, listing and cancelling', async () => {
    const listed = await t.call<Paged<{ userName: string }>>({ method: 'POST', url: `/api/system/role/${role}/users/list`, token: limited.token, body: {} })
    expect(listed.data.rows.map((r: { userName: string }) => r.userName)).toEqual(['crewsales', 'creweu'])
    const before = await roles()
    const rd = await idOf(t, 'user', 'crewrd')
    const eu = await idOf(t, 'user', 'creweu')
    expect((await put(`/${role}/users/cancel`, { userIds: [eu, rd] }, limited.token)).status).toBe(404)
    expect(await roles()).toEqual(before)
    expect((await put(`/${role}/users/cancel`, { userIds: [eu] }, limited.token)).data).toEqual({ removed: 1 })
  })

  it('keeps the built-in admin in the admin role, and lets only administrators change that role’s members', async () => {
    const before = await roles()
    const self = await put(`/${adminRole}/users/cancel`, { userIds: [1] })
    expect(self.status).toBe(409)
    expect(self.msg).toBe('The built-in administrator must keep the administrator role')
    const other = await addUser(t, { userName: 'extraadmin', roleKeys: ['admin'], deptId: await deptId(t, 'Sales') })
    const mid = await roles()
    const refused = await put(`/${adminRole}/users/cancel`, { userIds: [other] }, limited.token)
    expect(refused.status).toBe(403)
    expect(refused.msg).toBe('Only an administrator can change who holds the administrator role')
    expect(await roles()).toEqual(mid)
    expect(before.sysUserRole!.length + 1).toBe(mid.sysUserRole!.length)
    expect((await put(`/${adminRole}/users/cancel`, { userIds: [other] })).status).toBe(200)
  })

  it('refuses an empty or malformed user list', async () => {
    expect((await put(`/${role}/users/cancel`, { userIds: [] })).status).toBe(400)
    expect((await put(`/${role}/users/cancel`, { userIds: ['x'] })).status).toBe(400)
  })
})

describe('a role editor who is not an administrator', () => {
  it('grants only menus it holds itself', async () => {
    const editor = await limitedUser(t, { userName: 'roleeditor', dataScope: '1', perms: ['system:role:list', 'system:role:add', 'system:role:edit'] })
    const held = await db().selectFrom('sysRoleMenu').select('menuId').where('roleId', '=', editor.roleId).execute()
    const notHeld = await idOf(t, 'menu', 'menu.monitor.operlog')
    const before = await roles()
    const res = await t.call({ method: 'POST', url: '/api/system/role', token: editor.token, body: { roleName: 'Spy', roleKey: 'spy', roleSort: 1, menuIds: [notHeld] } })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You can only grant menus you have yourself')
    expect(await roles()).toEqual(before)
    const ok = await t.call({ method: 'POST', url: '/api/system/role', token: editor.token, body: { roleName: 'Helper', roleKey: 'helper', roleSort: 1, menuIds: held.map((m) => m.menuId) } })
    expect(ok.status, ok.msg).toBe(200)
  })

  it('keeps the menus of a role that it cannot see when it saves the role', async () => {
    const editor = await limitedUser(t, { userName: 'roleeditor2', dataScope: '1', perms: ['system:role:list', 'system:role:edit'] })
    const held = (await db().selectFrom('sysRoleMenu').select('menuId').where('roleId', '=', editor.roleId).execute()).map((m) => Number(m.menuId))
    const unseen = await idOf(t, 'menu', 'menu.monitor.operlog')
    const target = await addRoleViaApi('audited', { menuIds: [unseen, held[0]] })
    const res = await put('', { roleId: target.roleId, menuIds: held.slice(0, 2) }, editor.token)
    expect(res.status, res.msg).toBe(200)
    const after = (await t.call<{ menuIds: number[] }>({ url: `/api/system/role/${target.roleId}`, token: t.admin })).data.menuIds
    expect([...after].sort()).toEqual([...new Set([unseen, ...held.slice(0, 2)])].sort())
  })

  it('sets custom-scope departments only inside its own data scope', async () => {
    const lead = await limitedUser(t, { userName: 'scopeeditor', dataScope: '4', dept: 'Sales', perms: ['system:role:edit'] })
    const role = await addRoleViaApi('scoped3')
    const rd = await deptId(t, 'Research & Development')
    const before = await roles()
    const res = await put('/dataScope', { roleId: role.roleId, dataScope: '2', deptIds: [rd] }, lead.token)
    expect(res.status).toBe(403)
    expect(res.msg).toBe(`Department ${rd} is outside your data scope`)
    expect(await roles()).toEqual(before)
    expect((await put('/dataScope', { roleId: role.roleId, dataScope: '2', deptIds: [await deptId(t, 'Sales China')] }, lead.token)).status).toBe(200)
  })
})

describe('tree options', () => {
  it('GET /system/menu/treeselect titles i18n keys and buttons in the caller’s language', async () => {
    const find = (nodes: TreeOption[], label: string) => nodes.find((n) => n.label === label) as TreeOption & { children: TreeOption[] }
    const en = (await t.call<TreeOption[]>({ url: '/api/system/menu/treeselect', token: t.admin })).data
    const system = find(en, 'System')
    const users = find(system.children, 'System users')
    expect(users.id).toBe(await idOf(t, 'menu', 'menu.system.user'))
    expect(users.children.map((c: { label: string }) => c.label)).toEqual(['List', 'Query', 'Add', 'Modify', 'Delete', 'Export', 'Import', 'Reset password'])
    const zh = (await t.call<TreeOption[]>({ url: '/api/system/menu/treeselect', token: t.admin, lang: 'zh_CN' })).data
    const zhUsers = find(find(zh, '系统管理').children, '用户管理')
    expect(zhUsers.children.map((c: { label: string }) => c.label)).toContain('新增')
    expect(JSON.stringify(zh)).not.toMatch(/"(menu|button)\./)
  })

  it('offers a non-administrator only its own menus, and departments in its scope', async () => {
    const reader = await limitedUser(t, { userName: 'treereader', dataScope: '4', dept: 'Sales', perms: [], menus: ['menu.system', 'menu.system.dict'] })
    const menus = (await t.call({ url: '/api/system/menu/treeselect', token: reader.token })).data
    expect(menus).toEqual([{ id: await idOf(t, 'menu', 'menu.system'), label: 'System', children: [{ id: await idOf(t, 'menu', 'menu.system.dict'), label: 'Dictionaries' }] }])
    const depts = (await t.call<TreeOption[]>({ url: '/api/system/dept/treeselect', token: reader.token })).data
    expect(depts.map((d: { label: string }) => d.label)).toEqual(['Sales'])
    expect(depts[0]!.children!.map((d: { label: string }) => d.label)).toEqual(['Sales Europe', 'Sales China'])
  })
})
