import type { Paged, UserInfo } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TreeOption } from '../src/modules/system/access'
import { verifyPassword } from '../src/platform/auth/passwords'
import { addRole, addUser, deptId, idOf, limitedUser, type Refusal, snapshot, useTestApp, waitForOperLog } from './harness'

const t = useTestApp()
let adminRole: number
let commonRole: number
const db = () => t.app.services.db

beforeAll(async () => {
  adminRole = await idOf(t, 'role', 'admin')
  commonRole = await idOf(t, 'role', 'common')
})

const payload = (userName: string, extra: object = {}) => ({
  userName,
  nickName: `Nick ${userName}`,
  password: 'Secret12!',
  email: `${userName}@example.com`,
  phonenumber: '+31 20 123 4567',
  ...extra,
})
const addViaApi = <T = unknown>(token: string, body: object) => t.call<T>({ method: 'POST', url: '/api/system/user', token, body })
const edit = (token: string, body: object) => t.call<{ nickName: string }>({ method: 'PUT', url: '/api/system/user', token, body })
const userInfo = (token: string) => t.call<UserInfo>({ url: '/api/getUserInfo', token })
const users = () => snapshot(t, 'sysUser', 'sysUserRole')

/** A second administrator (admin role), signed in. */
async function otherAdmin(userName: string) {
  const id = await addUser(t, { userName, roleKeys: ['admin'], deptId: await deptId(t, 'Velo HQ') })
  return { id, token: await t.login(userName, 'secret12') }
}

describe('add', () => {
  it('hashes the password with argon2id, links the roles, and never sends the password back', async () => {
    const sales = await deptId(t, 'Sales')
    const res = await addViaApi<{ userId: number }>(t.admin, payload('alice01', { deptId: sales, roleIds: [commonRole] }))
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ userName: 'alice01', deptId: sales, deptIdLabel: 'Sales', status: '0' })
    expect(JSON.stringify(res.data)).not.toMatch(/password|argon2|Secret12/)

    const stored = await db().selectFrom('sysUser').select('password').where('userName', '=', 'alice01').executeTakeFirstOrThrow()
    expect(stored.password).toMatch(/^\$argon2id\$/)
    expect(await verifyPassword(stored.password, 'Secret12!')).toBe(true)

    const got = await t.call<{ roleIds: number[] }>({ url: `/api/system/user/${res.data.userId}`, token: t.admin })
    expect(got.data.roleIds).toEqual([commonRole])
    expect(JSON.stringify(got.data)).not.toMatch(/password|argon2/)
    const token = await t.login('alice01', 'Secret12!')
    expect((await userInfo(token)).data.roles).toEqual(['common'])
  })

  it('refuses bad input naming the field, in the caller language, and adds nothing', async () => {
    const before = await users()
    const cases: [object, string][] = [
      [payload('ab'), 'userName'],
      [payload('bad name'), 'userName'],
      [payload('bob00001', { password: 'short' }), 'password'],
      [payload('bob00002', { password: undefined }), 'password'],
      [payload('bob00003', { email: 'not-an-email' }), 'email'],
      [payload('bob00004', { nickName: '' }), 'nickName'],
      [payload('bob00005', { roleIds: [99999] }), 'roleIds'],
      [payload('bob00006', { deptId: 99999 }), 'deptId'],
    ]
    for (const [body, field] of cases) {
      const res = await addViaApi<Refusal>(t.admin, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
    const zh = await t.call({ method: 'POST', url: '/api/system/user', token: t.admin, lang: 'zh_CN', body: payload('ab') })
    expect(zh.msg).toContain('用户名称必须是 4 到 20 位字母和数字')
    expect(await users()).toEqual(before)
  })

  it('refuses a user name that is taken with 409', async () => {
    await addViaApi(t.admin, payload('carol01'))
    const before = await users()
    const res = await addViaApi(t.admin, payload('carol01', { email: 'other@example.com' }))
    expect(res.status).toBe(409)
    expect(res.msg).toBe('User name "carol01" already exists')
    expect(await users()).toEqual(before)
  })
})

describe('the built-in administrator', () => {
  it('cannot be deleted, even by another administrator', async () => {
    const other = await otherAdmin('admintwo')
    const before = await users()
    const res = await t.call({ method: 'DELETE', url: '/api/system/user/1', token: other.token })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('The built-in administrator cannot be deleted or disabled')
    expect((await t.call({ method: 'DELETE', url: '/api/system/user/1', token: other.token, lang: 'zh_CN' })).msg).toBe('不允许删除或停用内置管理员')
    expect(await users()).toEqual(before)
  })

  it('cannot be disabled, through modify or changeStatus', async () => {
    const other = await otherAdmin('adminthree')
    const before = await users()
    expect((await edit(other.token, { userId: 1, status: '1' })).status).toBe(409)
    const res = await t.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: other.token, body: { userId: 1, status: '1' } })
    expect(res.status).toBe(409)
    expect(res.msg).toMatch(/built-in administrator/)
    expect(await users()).toEqual(before)
    expect((await userInfo(t.admin)).code).toBe(200)
  })

  it('keeps the administrator role', async () => {
    const before = await users()
    const res = await edit(t.admin, { userId: 1, roleIds: [commonRole] })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('The built-in administrator must keep the administrator role')
    expect(await users()).toEqual(before)
    // Other changes to it are fine.
    expect((await edit(t.admin, { userId: 1, nickName: 'Chief' })).data.nickName).toBe('Chief')
  })
})

describe('self-protection', () => {
  it('nobody deletes themselves', async () => {
    const other = await otherAdmin('adminfour')
    const before = await users()
    const res = await t.call({ method: 'DELETE', url: `/api/system/user/${other.id}`, token: other.token })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('You cannot delete your own account')
    expect(await users()).toEqual(before)
  })

  it('nobody disables themselves', async () => {
    const other = await otherAdmin('adminfive')
    const res = await t.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: other.token, body: { userId: other.id, status: '1' } })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('You cannot disable your own account')
    expect((await userInfo(other.token)).code).toBe(200)
  })
})

describe('a user manager who is not an administrator', () => {
  let manager: { userId: number; token: string }
  beforeAll(async () => {
    manager = await limitedUser(t, {
      userName: 'manager1',
      dataScope: '1',
      dept: 'Velo HQ',
      perms: ['system:user:list', 'system:user:query', 'system:user:add', 'system:user:edit', 'system:user:remove', 'system:user:resetPwd'],
    })
  })

  it('cannot grant the administrator role, on add or modify', async () => {
    const before = await users()
    const add = await addViaApi(manager.token, payload('sneaky01', { roleIds: [adminRole] }))
    expect(add.status).toBe(403)
    expect(add.msg).toBe('Only an administrator can grant the administrator role')
    const target = await addUser(t, { userName: 'plain01' })
    const mid = await users()
    expect((await edit(manager.token, { userId: target, roleIds: [commonRole, adminRole] })).status).toBe(403)
    expect(await users()).toEqual(mid)
    expect(before.sysUser!.length + 1).toBe(mid.sysUser!.length)
    // A role within the manager's own rights is fine; one giving more (common: dashboards) is not;
    // an administrator may grant anything.
    const narrow = await addRole(t, { roleKey: 'userreader', dataScope: '5', perms: ['system:user:list'] })
    expect((await edit(manager.token, { userId: target, roleIds: [narrow] })).status).toBe(200)
    const richer = await edit(manager.token, { userId: target, roleIds: [commonRole] })
    expect(richer.status).toBe(403)
    expect(richer.msg).toMatch(/^You cannot grant the permission "[^"]+"/)
    expect((await edit(t.admin, { userId: target, roleIds: [adminRole] })).status).toBe(200)
  })

  it('cannot change, reset or delete an administrator account', async () => {
    const other = await otherAdmin('adminsix')
    const before = await users()
    const modify = await edit(manager.token, { userId: other.id, email: 'taken@example.com' })
    expect(modify.status).toBe(403)
    expect(modify.msg).toBe('Only an administrator can change an administrator account')
    expect((await t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token: manager.token, body: { userId: other.id, password: 'Owned123!' } })).status).toBe(403)
    expect((await t.call({ method: 'DELETE', url: `/api/system/user/${other.id}`, token: manager.token })).status).toBe(403)
    expect(await users()).toEqual(before)
    expect((await userInfo(other.token)).code).toBe(200)
  })
})

describe('PUT /system/user/resetPwd', () => {
  it('sets the password, clears a lockout and ends the user’s sessions', async () => {
    const id = await addUser(t, { userName: 'forgetful1' })
    const token = await t.login('forgetful1', 'secret12')
    await db().updateTable('sysUser').set({ lockedUntil: new Date(Date.now() + 600_000).toISOString(), failedLogins: 3 }).where('userId', '=', id).execute()
    const res = await t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token: t.admin, body: { userId: id, password: 'Fresh123!' } })
    expect(res.status, res.msg).toBe(200)
    expect(res.msg).toBe('The password of forgetful1 has been reset')
    expect((await userInfo(token)).code).toBe(50008)
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'forgetful1', password: 'secret12' } })).status).toBe(400)
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'forgetful1', password: 'Fresh123!' } })).code).toBe(200)
    // The operation log keeps the call, never the password.
    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/system/user/resetPwd')
    expect(log.operParam).not.toContain('Fresh123!')
  })

  it('refuses a password outside the rules, and unknown users, changing nothing', async () => {
    const id = await addUser(t, { userName: 'forgetful2' })
    const before = await users()
    for (const password of ['short', 'has space 1', 'x'.repeat(21)]) {
      const res = await t.call<Refusal>({ method: 'PUT', url: '/api/system/user/resetPwd', token: t.admin, body: { userId: id, password } })
      expect(res.status).toBe(400)
      expect(res.data.errors[0]!.field).toBe('password')
      expect(res.msg).toMatch(/Password must be 6 to 20/)
    }
    expect((await t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token: t.admin, body: { userId: 99999, password: 'Fresh123!' } })).status).toBe(404)
    expect(await users()).toEqual(before)
  })

  it('needs system:user:resetPwd', async () => {
    const editor = await limitedUser(t, { userName: 'editor1', dataScope: '1', perms: ['system:user:list', 'system:user:edit'] })
    const id = await addUser(t, { userName: 'forgetful3' })
    const res = await t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token: editor.token, body: { userId: id, password: 'Fresh123!' } })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (system:user:resetPwd)')
  })
})

describe('PUT /system/user/changeStatus', () => {
  it('disabling ends the user’s sessions at once; enabling lets them sign in again', async () => {
    const id = await addUser(t, { userName: 'leaver2' })
    const token = await t.login('leaver2', 'secret12')
    const res = await t.call<{ status: string }>({ method: 'PUT', url: '/api/system/user/changeStatus', token: t.admin, body: { userId: id, status: '1' } })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.status).toBe('1')
    expect((await t.app.services.sessions.listActive()).some((s) => s.userId === id)).toBe(false)
    expect((await userInfo(token)).code).toBe(50008)
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'leaver2', password: 'secret12' } })).status).toBe(403)
    await t.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: t.admin, body: { userId: id, status: '0' } })
    expect((await t.call({ method: 'POST', url: '/api/login', body: { username: 'leaver2', password: 'secret12' } })).code).toBe(200)
  })

  it('disabling through modify ends the sessions too', async () => {
    const id = await addUser(t, { userName: 'leaver4' })
    const token = await t.login('leaver4', 'secret12')
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token: t.admin, body: { userId: id, status: '1' } })).status).toBe(200)
    expect((await userInfo(token)).code).toBe(50008)
  })

  it('refuses a status other than 0 or 1, and unknown users', async () => {
    const id = await addUser(t, { userName: 'leaver3' })
    const before = await users()
    const res = await t.call<Refusal>({ method: 'PUT', url: '/api/system/user/changeStatus', token: t.admin, body: { userId: id, status: '2' } })
    expect(res.status).toBe(400)
    expect(res.data.errors[0]!.field).toBe('status')
    expect((await t.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: t.admin, body: { userId: 99999, status: '1' } })).status).toBe(404)
    expect(await users()).toEqual(before)
  })
})

describe('a limited role: its own menus, data scope "department and below" (Sales)', () => {
  let limited: { userId: number; token: string }
  let inside: number
  let outside: number
  beforeAll(async () => {
    limited = await limitedUser(t, {
      userName: 'salesboss',
      dataScope: '4',
      dept: 'Sales',
      perms: ['system:user:list', 'system:user:query', 'system:user:edit', 'system:user:add', 'system:user:resetPwd'],
    })
    inside = await addUser(t, { userName: 'euseller', deptId: await deptId(t, 'Sales Europe') })
    outside = await addUser(t, { userName: 'engineer1', deptId: await deptId(t, 'Research & Development') })
  })

  it('lists only users of Sales and below', async () => {
    const res = await t.call<Paged<{ userName: string; deptId: number }>>({ method: 'POST', url: '/api/system/user/list', token: limited.token, body: { pageSize: 500 } })
    expect(res.status).toBe(200)
    const names = res.data.rows.map((r: { userName: string }) => r.userName)
    expect(names).toContain('euseller')
    expect(names).toContain('salesboss')
    expect(names).not.toContain('engineer1')
    expect(names).not.toContain('admin')
    const sales = await deptId(t, 'Sales')
    const europe = await deptId(t, 'Sales Europe')
    const china = await deptId(t, 'Sales China')
    expect(res.data.rows.every((r: { deptId: number }) => [sales, europe, china].includes(r.deptId))).toBe(true)
  })

  it('answers 404 for users outside its scope, on every call, and changes nothing', async () => {
    const before = await users()
    expect((await t.call({ url: `/api/system/user/${outside}`, token: limited.token })).status).toBe(404)
    expect((await edit(limited.token, { userId: outside, nickName: 'x' })).status).toBe(404)
    expect((await t.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: limited.token, body: { userId: outside, status: '1' } })).status).toBe(404)
    expect((await t.call({ method: 'PUT', url: '/api/system/user/resetPwd', token: limited.token, body: { userId: outside, password: 'Fresh123!' } })).status).toBe(404)
    expect(await users()).toEqual(before)
    // Inside the scope the same calls work.
    expect((await edit(limited.token, { userId: inside, nickName: 'Euro seller' })).data.nickName).toBe('Euro seller')
  })

  it('cannot place a user in a department outside its scope', async () => {
    const rd = await deptId(t, 'Research & Development')
    const before = await users()
    const add = await addViaApi(limited.token, payload('rdhire01', { deptId: rd }))
    expect(add.status).toBe(403)
    expect(add.msg).toBe(`Department ${rd} is outside your data scope`)
    expect((await addViaApi(limited.token, payload('nodept01'))).status).toBe(403)
    expect((await edit(limited.token, { userId: inside, deptId: rd })).status).toBe(403)
    expect(await users()).toEqual(before)
    const china = await deptId(t, 'Sales China')
    expect((await addViaApi(limited.token, payload('cnhire01', { deptId: china }))).status).toBe(200)
  })

  it('gets 403 on actions its role lacks', async () => {
    const before = await users()
    const del = await t.call({ method: 'DELETE', url: `/api/system/user/${inside}`, token: limited.token })
    expect(del.status).toBe(403)
    expect(del.msg).toBe('You have no permission to do this (system:user:remove)')
    expect((await t.call({ method: 'POST', url: '/api/system/user/export', token: limited.token, body: {} })).status).toBe(403)
    expect((await t.call({ method: 'POST', url: '/api/system/role/list', token: limited.token, body: {} })).status).toBe(403)
    expect(await users()).toEqual(before)
  })

  it('GET /system/user/deptTree gives its departments only, as a tree', async () => {
    const res = await t.call({ url: '/api/system/user/deptTree', token: limited.token })
    expect(res.status).toBe(200)
    expect(res.data).toEqual([
      {
        id: await deptId(t, 'Sales'),
        label: 'Sales',
        disabled: false,
        children: [
          { id: await deptId(t, 'Sales Europe'), label: 'Sales Europe', disabled: false },
          { id: await deptId(t, 'Sales China'), label: 'Sales China', disabled: false },
        ],
      },
    ])
    const full = await t.call<TreeOption[]>({ url: '/api/system/user/deptTree', token: t.admin })
    expect(full.data.map((n: { label: string }) => n.label)).toEqual(['Velo HQ'])
    expect(full.data[0]!.children!.map((n: { label: string }) => n.label)).toEqual(['Research & Development', 'Sales', 'After-sales Service'])
  })
})
