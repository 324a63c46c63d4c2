import type { Paged } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { addUser, deptId, limitedUser, type Refusal, snapshot, useTestApp } from './harness'

const t = useTestApp()
let hq: number
const db = () => t.app.services.db

beforeAll(async () => {
  hq = await deptId(t, 'Velo HQ')
})

const depts = () => snapshot(t, 'sysDept', 'sysRoleDept')
const add = async (deptName: string, parentId: number, extra: object = {}, token = t.admin) =>
  t.call<{ deptId: number }>({ method: 'POST', url: '/api/system/dept', token, body: { deptName, parentId, orderNum: 1, ...extra } })
const addOk = async (deptName: string, parentId: number, extra: object = {}) => {
  const res = await add(deptName, parentId, extra)
  expect(res.status, res.msg).toBe(200)
  return res.data.deptId
}
const edit = <T = unknown>(body: object, token = t.admin) => t.call<T>({ method: 'PUT', url: '/api/system/dept', token, body })
const ancestors = async (id: number) => (await db().selectFrom('sysDept').select('ancestors').where('deptId', '=', id).executeTakeFirstOrThrow()).ancestors

describe('ancestors', () => {
  it('are set on add, for roots and below', async () => {
    const root = await addOk('Second company', 0)
    expect(await ancestors(root)).toBe('0')
    const branch = await addOk('Branch', root)
    expect(await ancestors(branch)).toBe(`0,${root}`)
    const desk = await addOk('Desk', branch)
    expect(await ancestors(desk)).toBe(`0,${root},${branch}`)
  })

  it('follow a move, for the department and everything below it, and data scopes follow them', async () => {
    const a = await addOk('Move A', hq)
    const b = await addOk('Move B', a)
    const c = await addOk('Move C', b)
    const target = await addOk('Target', hq)
    const res = await edit({ deptId: a, parentId: target })
    expect(res.status, res.msg).toBe(200)
    expect(await ancestors(a)).toBe(`0,${hq},${target}`)
    expect(await ancestors(b)).toBe(`0,${hq},${target},${a}`)
    expect(await ancestors(c)).toBe(`0,${hq},${target},${a},${b}`)

    // A viewer of "Target and below" now sees the user of the moved grandchild.
    await addUser(t, { userName: 'deskuser', deptId: c })
    const viewer = await limitedUser(t, { userName: 'targetboss', dataScope: '4', dept: 'Target', perms: ['system:user:list'] })
    const seen = await t.call<Paged<{ userName: string }>>({ method: 'POST', url: '/api/system/user/list', token: viewer.token, body: {} })
    expect(seen.data.rows.map((r: { userName: string }) => r.userName)).toContain('deskuser')

    // And back to the top.
    expect((await edit({ deptId: a, parentId: 0 })).status).toBe(200)
    expect(await ancestors(c)).toBe(`0,${a},${b}`)
  })

  it('refuse a move below the department itself, changing nothing', async () => {
    const a = await addOk('Loop A', hq)
    const b = await addOk('Loop B', a)
    const before = await depts()
    const res = await edit<Refusal>({ deptId: a, parentId: b })
    expect(res.status).toBe(400)
    expect(res.data.errors[0]!.field).toBe('parentId')
    expect((await edit({ deptId: a, parentId: a })).status).toBe(400)
    expect(await depts()).toEqual(before)
  })
})

describe('status', () => {
  it('a department with enabled sub-departments cannot be disabled', async () => {
    const parent = await addOk('Workshop', hq)
    const child = await addOk('Paint shop', parent)
    const grandchild = await addOk('Paint booth', child)
    const before = await depts()
    const res = await edit({ deptId: parent, status: '1' })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Department "Workshop" has enabled sub-departments: disable them first')
    expect((await edit<Refusal>({ deptId: parent, status: '1' }, t.admin)).data.errors[0]!.field).toBe('status')
    expect(await depts()).toEqual(before)
    // Bottom-up works.
    expect((await edit({ deptId: grandchild, status: '1' })).status).toBe(200)
    expect((await edit({ deptId: child, status: '1' })).status).toBe(200)
    expect((await edit({ deptId: parent, status: '1' })).status).toBe(200)
  })

  it('nothing enabled goes below a disabled department', async () => {
    const closed = await addOk('Closed office', hq, { status: '1' })
    const open = await addOk('Open team', hq)
    const before = await depts()
    const res = await add('New team', closed)
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Department "Closed office" is disabled: no departments can be added below it')
    expect((await edit({ deptId: open, parentId: closed })).status).toBe(409)
    expect(await depts()).toEqual(before)
    // Disabled ones may go there, but are not enabled while it stays disabled.
    const archive = await add('Archive', closed, { status: '1' })
    expect(archive.status).toBe(200)
    expect((await edit({ deptId: archive.data.deptId, status: '0' })).status).toBe(409)
  })
})

describe('delete', () => {
  it('keeps a department with users', async () => {
    const team = await addOk('Staffed team', hq)
    await addUser(t, { userName: 'teammember', deptId: team })
    const before = await depts()
    const res = await t.call({ method: 'DELETE', url: `/api/system/dept/${team}`, token: t.admin })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Department "Staffed team" still has users and cannot be deleted')
    expect((await t.call({ method: 'DELETE', url: `/api/system/dept/${team}`, token: t.admin, lang: 'zh_CN' })).msg).toBe('部门“Staffed team”下存在用户，不能删除')
    expect(await depts()).toEqual(before)
  })

  it('keeps a department with sub-departments', async () => {
    const before = await depts()
    const res = await t.call({ method: 'DELETE', url: `/api/system/dept/${await deptId(t, 'Sales')}`, token: t.admin })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Cannot delete node: Child nodes exist')
    expect(await depts()).toEqual(before)
  })

  it('deletes an empty one, with the custom data scopes that named it', async () => {
    const empty = await addOk('Empty team', hq)
    const role = await db().selectFrom('sysRole').select('roleId').where('roleKey', '=', 'common').executeTakeFirstOrThrow()
    await db().insertInto('sysRoleDept').values({ roleId: role.roleId, deptId: empty }).execute()
    expect((await t.call({ method: 'DELETE', url: `/api/system/dept/${empty}`, token: t.admin })).status).toBe(200)
    expect(await db().selectFrom('sysRoleDept').select('deptId').where('deptId', '=', empty).execute()).toEqual([])
  })
})

describe('bad input', () => {
  it('is refused naming the field, changing nothing', async () => {
    const before = await depts()
    for (const [body, field] of [
      [{ deptName: '', parentId: hq, orderNum: 1 }, 'deptName'],
      [{ deptName: 'X', parentId: 99999, orderNum: 1 }, 'parentId'],
      [{ deptName: 'X', parentId: hq, orderNum: 1, email: 'nope' }, 'email'],
      [{ deptName: 'X', parentId: hq, orderNum: 1, status: '7' }, 'status'],
    ] as const) {
      const res = await t.call<Refusal>({ method: 'POST', url: '/api/system/dept', token: t.admin, body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.data.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
    expect(await depts()).toEqual(before)
  })
})

describe('a limited role: data scope "department and below" (Sales)', () => {
  let limited: { token: string }
  beforeAll(async () => {
    limited = await limitedUser(t, {
      userName: 'salesadmin',
      dataScope: '4',
      dept: 'Sales',
      perms: ['system:dept:list', 'system:dept:query', 'system:dept:add', 'system:dept:edit', 'system:dept:remove'],
    })
  })

  it('lists only Sales and below', async () => {
    const res = await t.call<Paged<{ deptName: string }>>({ method: 'POST', url: '/api/system/dept/list', token: limited.token, body: {} })
    expect(res.data.rows.map((r: { deptName: string }) => r.deptName).sort()).toEqual(['Sales', 'Sales China', 'Sales Europe'])
  })

  it('adds, moves and deletes inside its scope only', async () => {
    const sales = await deptId(t, 'Sales')
    const rd = await deptId(t, 'Research & Development')
    const europe = await deptId(t, 'Sales Europe')
    const before = await depts()
    const outside = await add('Lab', rd, {}, limited.token)
    expect(outside.status).toBe(403)
    expect(outside.msg).toBe(`Department ${rd} is outside your data scope`)
    expect((await add('New root', 0, {}, limited.token)).status).toBe(403)
    expect((await edit({ deptId: europe, parentId: rd }, limited.token)).status).toBe(403)
    expect((await edit({ deptId: rd, deptName: 'Renamed' }, limited.token)).status).toBe(404)
    expect((await t.call({ method: 'DELETE', url: `/api/system/dept/${rd}`, token: limited.token })).status).toBe(404)
    expect((await t.call({ url: `/api/system/dept/${rd}`, token: limited.token })).status).toBe(404)
    expect(await depts()).toEqual(before)

    const benelux = await add('Sales Benelux', sales, {}, limited.token)
    expect(benelux.status, benelux.msg).toBe(200)
    expect(await ancestors(benelux.data.deptId)).toBe(`0,${hq},${sales}`)
    // Its own department stays editable although the parent (HQ) is outside the scope.
    expect((await edit({ deptId: sales, leader: 'Sam' }, limited.token)).status).toBe(200)
    expect((await t.call({ method: 'DELETE', url: `/api/system/dept/${benelux.data.deptId}`, token: limited.token })).status).toBe(200)
  })

  it('gets 403 on what it lacks', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/dept/export', token: limited.token, body: {} })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (system:dept:export)')
  })
})

describe('regions', () => {
  it('gain only countries the caller’s own dashboards count: no one widens a department’s view past their own', async () => {
    const countries = (await db().selectFrom('sysCountry').select('countryId').orderBy('countryId').limit(3).execute()).map((c) => Number(c.countryId))
    const [mine, other, third] = countries as [number, number, number]
    const region = await addOk('Region office', hq)
    await db().insertInto('sysDeptCountry').values({ deptId: region, countryId: mine }).execute()
    // A manager of that office who may edit departments, scoped to their own.
    const boss = await limitedUser(t, { userName: 'regionboss', dataScope: '3', dept: 'Region office', perms: ['system:dept:edit', 'system:dept:add', 'system:dept:list', 'system:dept:query'] })
    const regionOf = async (id: number) => (await db().selectFrom('sysDeptCountry').select('countryId').where('deptId', '=', id).execute()).map((r) => Number(r.countryId)).sort()

    const widen = await edit({ deptId: region, countryIds: [mine, other] }, boss.token)
    expect(widen.status).toBe(403)
    expect(widen.msg).toBe(`Countries ${other} are outside the countries your dashboards count: you cannot add them to a region`)
    expect((await t.call({ method: 'PUT', url: '/api/system/dept', token: boss.token, body: { deptId: region, countryIds: [third] }, lang: 'zh_CN' })).msg).toMatch(/[\u4e00-\u9fff]/)
    expect(await regionOf(region)).toEqual([mine])
    // What they hold stays; narrowing is theirs to do.
    expect((await edit({ deptId: region, countryIds: [mine], leader: 'Boss' }, boss.token)).status).toBe(200)
    expect((await edit({ deptId: region, countryIds: [] }, boss.token)).status).toBe(200)
    expect(await regionOf(region)).toEqual([])
    // The admin (every country) may give any.
    expect((await edit({ deptId: region, countryIds: [mine, other] })).status).toBe(200)
    expect(await regionOf(region)).toEqual([mine, other].sort())
  })
})
