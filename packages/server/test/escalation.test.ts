import type { UserInfo } from '@velo/shared'
import { answersEventStream } from '../src/platform/responses'
import { describe, expect, it } from 'vitest'
import { addRole, addUser, deptId, idOf, limitedUser, snapshot, useTestApp } from './harness'

// The grant rule, attacked the ways a penetration test did: a narrow right raised to every right.
const t = useTestApp()
const db = () => t.app.services.db
const perms = async (token: string) => {
  const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token })
  expect(info.code, info.msg).toBe(200)
  return info.data.permissions.sort()
}
const rights = () => snapshot(t, 'sysMenu', 'sysRole', 'sysRoleMenu', 'sysRoleDept', 'sysUserRole', 'sysUser')
const menuOf = async (perm: string) => (await db().selectFrom('sysMenu').select('menuId').where('perms', '=', perm).executeTakeFirstOrThrow()).menuId

describe('menu edit', () => {
  it('cannot put *:*:*, an admin-only or an unheld permission on a menu, nor switch one back on', async () => {
    const editor = await limitedUser(t, { userName: 'menuedit1', perms: ['system:menu:list', 'system:menu:query', 'system:menu:edit'], dataScope: '5' })
    const own = await menuOf('system:menu:edit')
    const before = await rights()
    for (const [value, refused] of [
      ['*:*:*', '*:*:*'],
      ['system:*:*', 'system:*:*'],
      ['iot:mqDebug:publish', 'iot:mqDebug:publish'],
      ['system:user:resetPwd', 'system:user:resetPwd'],
    ]) {
      const res = await t.call({ method: 'PUT', url: '/api/system/menu', token: editor.token, body: { menuId: own, perms: value } })
      expect(res.status, value).toBe(403)
      expect(res.msg).toBe(`You cannot grant the permission "${refused}": only what you hold yourself, and never a wildcard or an administrator-only permission`)
    }
    // A disabled menu of their own role, carrying a right they lack, stays off.
    const dormant = await menuOf('system:role:remove')
    await db().updateTable('sysMenu').set({ status: '1' }).where('menuId', '=', dormant).execute()
    await db().insertInto('sysRoleMenu').values({ roleId: editor.roleId, menuId: dormant }).execute()
    const mid = await rights()
    const wake = await t.call({ method: 'PUT', url: '/api/system/menu', token: editor.token, body: { menuId: dormant, status: '0' } })
    expect(wake.status).toBe(403)
    expect(await rights()).toEqual(mid)
    expect(await perms(editor.token)).toEqual(['system:menu:edit', 'system:menu:list', 'system:menu:query'])
    await db().deleteFrom('sysRoleMenu').where('menuId', '=', dormant).where('roleId', '=', editor.roleId).execute()
    await db().updateTable('sysMenu').set({ status: '0' }).where('menuId', '=', dormant).execute()
    expect(await rights()).toEqual(before)
    // What they hold they may write, and an admin may write anything.
    expect((await t.call({ method: 'PUT', url: '/api/system/menu', token: editor.token, body: { menuId: own, perms: 'system:menu:edit' } })).status).toBe(200)
    expect((await t.call({ method: 'POST', url: '/api/system/menu', token: editor.token, body: { menuName: 'Sneaky', menuType: 'F', parentId: 0, orderNum: 1, perms: '*:*:*' } })).status).toBe(403)
    const adminMenu = await t.call({ method: 'POST', url: '/api/system/menu', token: t.admin, body: { menuName: 'Root only', menuType: 'F', parentId: 0, orderNum: 1, perms: 'tool:sql:execute' } })
    expect(adminMenu.status, adminMenu.msg).toBe(200)
  })
})

describe('user edit', () => {
  it('cannot give anyone, themselves included, a role richer than their own, nor change their own roles', async () => {
    const manager = await limitedUser(t, { userName: 'usermgr1', perms: ['system:user:list', 'system:user:query', 'system:user:add', 'system:user:edit'], dataScope: '1' })
    const common = await idOf(t, 'role', 'common')
    const narrow = await addRole(t, { roleKey: 'narrowreader', dataScope: '5', perms: ['system:user:list'] })
    const victim = await addUser(t, { userName: 'plainuser1' })
    const before = await rights()
    const own = await t.call({ method: 'PUT', url: '/api/system/user', token: manager.token, body: { userId: manager.userId, roleIds: [manager.roleId, common] } })
    expect(own.status).toBe(403)
    expect(own.msg).toBe('You cannot change your own roles: ask someone else to')
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token: manager.token, body: { userId: manager.userId, roleIds: [manager.roleId, narrow] } })).status).toBe(403)
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token: manager.token, body: { userId: victim, roleIds: [common] } })).status).toBe(403)
    const add = await t.call({
      method: 'POST',
      url: '/api/system/user',
      token: manager.token,
      body: { userName: 'sidekick1', nickName: 'Side', password: 'Secret12!', email: 'side@example.com', phonenumber: '+31 20 123 4567', roleIds: [common] },
    })
    expect(add.status).toBe(403)
    expect(await rights()).toEqual(before)
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token: manager.token, body: { userId: victim, roleIds: [narrow] } })).status).toBe(200)
  })

  it('cannot take over a richer account by resetting its password or editing it', async () => {
    const resetter = await limitedUser(t, { userName: 'resetter1', perms: ['system:user:resetPwd', 'system:user:edit'], dataScope: '1' })
    const rich = await addUser(t, { userName: 'richuser1', roleKeys: ['common'], password: 'secret12' })
    const before = await rights()
    const reset = await t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token: resetter.token, body: { userId: rich, password: 'Owned1234' } })
    expect(reset.status).toBe(403)
    expect(reset.msg).toBe('This account holds rights you do not have: only someone who holds them all can change it')
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token: resetter.token, body: { userId: rich, email: 'mine@example.com' } })).status).toBe(403)
    expect(await rights()).toEqual(before)
    await t.login('richuser1', 'secret12')
  })
})

describe('role edit', () => {
  it('cannot widen the data scope of a role they hold, or of anyone beyond their own', async () => {
    const sales = await deptId(t, 'Sales')
    const editor = await limitedUser(t, { userName: 'roleedit1', perms: ['system:role:list', 'system:role:query', 'system:role:add', 'system:role:edit'], dataScope: '4', dept: 'Sales' })
    const other = await addRole(t, { roleKey: 'salesclerk', dataScope: '5', perms: [] })
    await addUser(t, { userName: 'clerk1', roleKeys: ['salesclerk'], deptId: await deptId(t, 'Velo HQ') })
    const before = await rights()
    const own = await t.call({ method: 'PUT', url: '/api/system/role/dataScope', token: editor.token, body: { roleId: editor.roleId, dataScope: '1' } })
    expect(own.status).toBe(403)
    expect(own.msg).toBe('You cannot change a role you hold: ask someone else to')
    const all = await t.call({ method: 'PUT', url: '/api/system/role/dataScope', token: editor.token, body: { roleId: other, dataScope: '1' } })
    expect(all.status).toBe(403)
    expect(all.msg).toBe('You cannot grant the data scope "all data": it is wider than your own')
    // "Department and below" for a clerk of Velo HQ would show them all of HQ, outside the editor's Sales.
    expect((await t.call({ method: 'PUT', url: '/api/system/role/dataScope', token: editor.token, body: { roleId: other, dataScope: '4' } })).status).toBe(403)
    expect((await t.call({ method: 'PUT', url: '/api/system/role/dataScope', token: editor.token, body: { roleId: other, dataScope: '2', deptIds: [await deptId(t, 'Research & Development')] } })).status).toBe(403)
    const created = await t.call({ method: 'POST', url: '/api/system/role', token: editor.token, body: { roleName: 'All seeing', roleKey: 'allseeing', roleSort: 1, dataScope: '1' } })
    expect(created.status).toBe(403)
    expect(await rights()).toEqual(before)
    // Within their own scope it works; a new role's scope is the narrowest unless chosen.
    expect((await t.call({ method: 'PUT', url: '/api/system/role/dataScope', token: editor.token, body: { roleId: other, dataScope: '2', deptIds: [sales] } })).status).toBe(200)
    const plain = await t.call<{ dataScope: string }>({ method: 'POST', url: '/api/system/role', token: t.admin, body: { roleName: 'Plain', roleKey: 'plainrole', roleSort: 1 } })
    expect(plain.data.dataScope).toBe('5')
  })

  it('cannot switch on a disabled role that gives its holders more than the editor has', async () => {
    const editor = await limitedUser(t, { userName: 'roleedit2', perms: ['system:role:edit'], dataScope: '1' })
    const dormant = await addRole(t, { roleKey: 'dormantpower', dataScope: '1', perms: ['system:user:resetPwd'] })
    await db().updateTable('sysRole').set({ status: '1' }).where('roleId', '=', dormant).execute()
    await addUser(t, { userName: 'sleeper2', roleKeys: ['dormantpower'] })
    const before = await rights()
    expect((await t.call({ method: 'PUT', url: '/api/system/role/changeStatus', token: editor.token, body: { roleId: dormant, status: '0' } })).status).toBe(403)
    expect(await rights()).toEqual(before)
  })
})

/** What every user holds, computed here straight from the tables, not by the code under test. */
async function everyonesRights() {
  const d = db()
  const users = await d.selectFrom('sysUser').select(['userId', 'deptId', 'password']).where('delFlag', '=', '0').execute()
  const links = await d
    .selectFrom('sysUserRole as ur')
    .innerJoin('sysRole as r', 'r.roleId', 'ur.roleId')
    .select(['ur.userId', 'r.roleId', 'r.roleKey', 'r.dataScope'])
    .where('r.status', '=', '0')
    .where('r.delFlag', '=', '0')
    .execute()
  const menus = await d.selectFrom('sysRoleMenu as rm').innerJoin('sysMenu as m', 'm.menuId', 'rm.menuId').select(['rm.roleId', 'm.perms']).where('m.status', '=', '0').execute()
  const roleDepts = await d.selectFrom('sysRoleDept').selectAll().execute()
  const depts = await d.selectFrom('sysDept').select(['deptId', 'ancestors']).execute()
  const out = new Map<number, { perms: Set<string>; admin: boolean; all: boolean; depts: Set<number>; password: string }>()
  for (const u of users) {
    const r = { perms: new Set<string>(), admin: false, all: false, depts: new Set<number>(), password: u.password }
    for (const l of links.filter((x) => x.userId === u.userId)) {
      if (l.roleKey === 'admin') r.admin = true
      for (const m of menus.filter((x) => x.roleId === l.roleId)) for (const p of (m.perms ?? '').split(',').filter(Boolean)) r.perms.add(p.trim())
      if (l.dataScope === '1') r.all = true
      if (l.dataScope === '2') for (const rd of roleDepts.filter((x) => x.roleId === l.roleId)) r.depts.add(rd.deptId)
      if ((l.dataScope === '3' || l.dataScope === '4') && u.deptId !== null) r.depts.add(u.deptId)
      if (l.dataScope === '4' && u.deptId !== null) for (const x of depts) if (x.ancestors.split(',').includes(String(u.deptId))) r.depts.add(x.deptId)
    }
    out.set(u.userId, r)
  }
  return out
}

describe('every route, one right at a time', () => {
  it('no sequence of one user’s calls raises the rights or data scope of anyone, their own included', { timeout: 300_000 }, async () => {
    const d = db()
    const sales = await deptId(t, 'Sales')
    const hq = await deptId(t, 'Velo HQ')
    const rd = await deptId(t, 'Research & Development')
    const common = await idOf(t, 'role', 'common')
    const attacker = await limitedUser(t, { userName: 'walker1', perms: [], dataScope: '4', dept: 'Sales' })
    const powerful = await addRole(t, { roleKey: 'walkpower', dataScope: '1', perms: ['system:user:resetPwd', 'system:role:edit', 'system:menu:edit', 'system:user:edit'] })
    const dormant = await addRole(t, { roleKey: 'walkdormant', dataScope: '1', perms: ['system:config:remove', 'system:dict:remove'] })
    await d.updateTable('sysRole').set({ status: '1' }).where('roleId', '=', dormant).execute()
    const rich = await addUser(t, { userName: 'walkrich', roleKeys: ['common', 'walkpower'], deptId: hq })
    const poor = await addUser(t, { userName: 'walkpoor', roleKeys: ['walkdormant'], deptId: sales })
    const dormantMenu = (
      await d
        .insertInto('sysMenu')
        .values({ menuName: 'Dormant', parentId: 0, orderNum: 1, path: '', component: '', query: '', isFrame: '1', isCache: '0', noClose: '0', menuType: 'F', visible: '0', status: '1', perms: 'system:user:remove', icon: '#', createBy: 'test', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' })
        .returning('menuId')
        .executeTakeFirstOrThrow()
    ).menuId
    const responses = new Map<number, number>()
    const allRoles = (await d.selectFrom('sysRole').select('roleId').execute()).map((r) => r.roleId)
    const allMenus = (await d.selectFrom('sysMenu').select('menuId').execute()).map((r) => r.menuId)
    const allDepts = (await d.selectFrom('sysDept').select('deptId').execute()).map((r) => r.deptId)
    const resetPwdMenu = await menuOf('system:user:resetPwd')
    const candidates = [...new Set([attacker.userId, attacker.roleId, rich, poor, powerful, dormant, common, 1, dormantMenu, resetPwdMenu, hq, sales, rd])]
    let n = 0
    const bodies = (id: number) => {
      const ids = { userId: id, roleId: id, menuId: id, id, ids: [id], userIds: [id, attacker.userId] }
      const fresh = () => ({
        userName: `walk${++n}x`,
        nickName: 'Walker',
        password: 'Secret12!',
        email: `walk${n}@example.com`,
        phonenumber: '+31 20 123 4567',
        roleName: `Walk ${n}`,
        roleKey: `walk${n}k`,
        roleSort: 1,
        menuName: `Walk ${n}`,
        orderNum: 1,
        deptName: `Walk ${n}`,
        menuType: 'F',
      })
      return [
        { ...fresh(), ...ids, perms: '*:*:*', status: '0', dataScope: '1', deptId: id, parentId: 0, roleIds: allRoles, menuIds: allMenus, deptIds: allDepts },
        { ...fresh(), ...ids, perms: 'system:user:resetPwd', status: '0', dataScope: '4', deptId: hq, parentId: hq, roleIds: [common, powerful], menuIds: [resetPwdMenu], deptIds: [hq] },
        { ...fresh(), ...ids, perms: 'system:config:remove', status: '0', dataScope: '2', deptId: rd, parentId: sales, roleIds: [attacker.roleId, dormant], menuIds: [dormantMenu], deptIds: [rd] },
      ]
    }
    const routes = t.app.routeTable.filter((r) => {
      const p = r.config?.permission
      return r.url.startsWith('/api/') && p && p !== 'public' && !answersEventStream(r) && r.url !== '/api/logout' && r.method !== 'HEAD'
    })
    // On PostgreSQL, the rights of the menus that write rights and scopes (System, Tool) and the signed-in
    // routes: the checks are the same code on both databases, and the SQLite pass walks every right
    // (on PostgreSQL the whole walk took two minutes of the CI's budget).
    const walked = (p: string) => !process.env.TEST_DATABASE_URL || p === 'signedIn' || /^(system|tool):/.test(p)
    const rightsToTry = [...new Set(routes.map((r) => r.config!.permission!))].filter(walked).sort((a, b) => (a === 'signedIn' ? 1 : b === 'signedIn' ? -1 : a.localeCompare(b)))
    // Each right is tried on the same world: what an earlier round deleted or rewrote (dictionaries,
    // departments, menus) is put back, so no round passes only because an earlier one broke its inputs.
    const WORLD = ['sysDictType', 'sysDictData', 'sysConfig', 'sysDept', 'sysMenu', 'sysRole', 'sysRoleMenu', 'sysRoleDept', 'sysUserRole', 'sysUser'] as const
    const world = new Map<string, Record<string, unknown>[]>()
    for (const table of WORLD) world.set(table, await d.selectFrom(table).selectAll().execute())
    // One transaction: on PostgreSQL each statement of its own was a commit waiting for the disk, 400 times.
    const restoreWorld = () =>
      d.transaction().execute(async (tx) => {
        for (const table of WORLD) {
          await tx.deleteFrom(table).execute()
          const rows = world.get(table)!
          for (let i = 0; i < rows.length; i += 200) await tx.insertInto(table).values(rows.slice(i, i + 200) as never).execute()
        }
      })
    let ownMenu = dormantMenu
    let token = attacker.token
    const attackerPassword = (await d.selectFrom('sysUser').select('password').where('userId', '=', attacker.userId).executeTakeFirstOrThrow()).password
    let renewals = 0
    const serverErrors: string[] = []
    const violations: string[] = []
    for (const right of rightsToTry) {
      await restoreWorld()
      // The attacker's role carries this one right (and a switched-off menu of a right it lacks).
      await d.deleteFrom('sysRoleMenu').where('roleId', '=', attacker.roleId).execute()
      if (right !== 'signedIn') {
        let menu = await d.selectFrom('sysMenu').select('menuId').where('perms', '=', right).executeTakeFirst()
        menu ??= await d
          .insertInto('sysMenu')
          .values({ menuName: right, parentId: 0, orderNum: 1, path: '', component: '', query: '', isFrame: '1', isCache: '0', noClose: '0', menuType: 'F', visible: '0', status: '0', perms: right, icon: '#', createBy: 'test', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' })
          .returning('menuId')
          .executeTakeFirstOrThrow()
        await d.insertInto('sysRoleMenu').values({ roleId: attacker.roleId, menuId: menu.menuId }).execute()
        ownMenu = menu.menuId
      }
      await d.insertInto('sysRoleMenu').values({ roleId: attacker.roleId, menuId: dormantMenu }).execute()
      // Their own account as it was (a reset of their own password is theirs to make).
      await d.updateTable('sysUser').set({ status: '0', delFlag: '0', lockedUntil: null, failedLogins: 0, password: attackerPassword }).where('userId', '=', attacker.userId).execute()
      // Written behind the app's back: told to every instance, as the app's own writes are.
      await t.app.services.authCache.changed({ all: true })
      // One session for the walk, renewed (from an address of its own: sign-in is rate-limited) if a call ended it.
      if ((await t.call({ url: '/api/getUserInfo', token })).code !== 200) {
        const res = await t.app.inject({ method: 'POST', url: '/api/login', payload: { username: 'walker1', password: 'secret12' }, remoteAddress: `10.99.0.${++renewals}` })
        token = (res.json() as { data: { token: string } }).data.token
      }
      const before = await everyonesRights()
      const deptsBefore = new Set((await d.selectFrom('sysDept').select('deptId').execute()).map((r) => r.deptId))
      const mine = before.get(attacker.userId)!
      for (const route of routes.filter((r) => r.config!.permission === right)) {
        for (const method of [route.method].flat()) {
          if (method === 'HEAD') continue
          for (const id of [...candidates, ownMenu]) {
            const url = route.url.replace(/:ids?\b/g, String(id)).replace(/:[a-zA-Z]+/g, String(id))
            for (const body of bodies(id)) {
              const res = await t.call({ method: method as 'POST', url, token, ...(method === 'GET' || method === 'DELETE' ? {} : { body }) })
              responses.set(res.status, (responses.get(res.status) ?? 0) + 1)
              if (res.status >= 500) serverErrors.push(`${method} ${url} (${right}): ${res.status} ${res.msg}`)
              if (method === 'GET' || method === 'DELETE') break
            }
          }
        }
      }
      const after = await everyonesRights()
      // A department the attacker made inside their own scope is seen by those who see that part of the tree.
      const madeInScope = new Set((await d.selectFrom('sysDept').select('deptId').execute()).map((r) => r.deptId).filter((id) => !deptsBefore.has(id) && after.get(attacker.userId)!.depts.has(id)))
      const allowedDepts = new Set([...mine.depts, ...madeInScope])
      const grantable = (p: string) => p === right && !/\*|^iot:mqDebug:|^tool:sql:/.test(p)
      for (const [userId, now] of after) {
        const was = before.get(userId) ?? { perms: new Set<string>(), admin: false, all: false, depts: new Set<number>(), password: '' }
        const who = `${right}: user ${userId}`
        if (now.admin && !was.admin) violations.push(`${who} became an administrator`)
        for (const p of now.perms) if (!was.perms.has(p) && (userId === attacker.userId || !grantable(p))) violations.push(`${who} gained ${p}`)
        if (now.all && !was.all && !mine.all) violations.push(`${who} gained data scope all`)
        if (!was.all && !mine.all) for (const dept of now.depts) if (!was.depts.has(dept) && !madeInScope.has(dept) && (userId === attacker.userId || !allowedDepts.has(dept))) violations.push(`${who} gained department ${dept}`)
        if (was.password && now.password !== was.password && userId !== attacker.userId && (was.admin || [...was.perms].some((p) => !mine.perms.has(p)))) violations.push(`${who}: a richer account's password changed`)
      }
    }
    expect(violations).toEqual([])
    expect(serverErrors).toEqual([])
    expect(rightsToTry.length).toBeGreaterThan(process.env.TEST_DATABASE_URL ? 20 : 40)
    // The walk is not vacuous: many calls got through.
    expect(responses.get(200) ?? 0).toBeGreaterThan(300)
  })
})
