import type { Paged } from '@velo/shared'
import type { CompiledQuery, QueryExecutor, QueryResult } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Session, SessionLookup, SessionStore } from '../src/platform/auth/session-store'
import { AuthCache } from '../src/platform/rbac/auth-cache'
import type { AuthContext } from '../src/platform/rbac/auth-context'
import { addUser, createTestApp, deptId, limitedUser, type TestApp, useTestApp } from './harness'

// The signed-in context is kept in memory per session (rbac/auth-cache.ts): each change to what it is
// made of must still reach the very next request, on this instance and on any other.

const t = useTestApp()
const list = (token: string) => t.call({ method: 'POST', url: '/api/system/config/list', token, body: {} })
const menuOf = async (perms: string) => (await t.app.services.db.selectFrom('sysMenu').select('menuId').where('perms', '=', perms).executeTakeFirstOrThrow()).menuId
const READER = ['system:config:list', 'system:config:query']

/** A user whose one role reads the configuration, with their context kept (two calls answered). */
async function reader(userName: string) {
  const user = await limitedUser(t, { userName, perms: READER, dataScope: '1' })
  for (let i = 0; i < 2; i++) expect((await list(user.token)).status).toBe(200)
  return user
}

describe('a kept signed-in context', () => {
  it('loses a permission its role loses on the very next request', async () => {
    const user = await reader('cached1')
    const res = await t.call({ method: 'PUT', url: '/api/system/role', token: t.admin, body: { roleId: user.roleId, menuIds: [await menuOf('system:config:query')] } })
    expect(res.status, res.msg).toBe(200)
    expect((await list(user.token)).status).toBe(403)
  })

  it('loses what a role switched off, or a menu switched off, gave', async () => {
    const one = await reader('cached2')
    expect((await t.call({ method: 'PUT', url: '/api/system/role/changeStatus', token: t.admin, body: { roleId: one.roleId, status: '1' } })).status).toBe(200)
    expect((await list(one.token)).status).toBe(403)

    const two = await reader('cached3')
    // The page and its list button both carry the permission.
    const menus = await t.app.services.db.selectFrom('sysMenu').select('menuId').where('perms', '=', 'system:config:list').execute()
    const switchAll = (status: string) => Promise.all(menus.map(({ menuId }) => t.call({ method: 'PUT', url: '/api/system/menu', token: t.admin, body: { menuId, status } })))
    expect((await switchAll('1')).map((r) => r.status)).toEqual(menus.map(() => 200))
    try {
      expect((await list(two.token)).status).toBe(403)
    } finally {
      await switchAll('0')
    }
    expect((await list(two.token)).status).toBe(200)
  })

  it('ends with a user disabled, or stripped of their roles', async () => {
    const one = await reader('cached4')
    expect((await t.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: t.admin, body: { userId: one.userId, status: '1' } })).status).toBe(200)
    expect((await list(one.token)).code).toBe(50008)

    const two = await reader('cached5')
    expect((await t.call({ method: 'PUT', url: '/api/system/user', token: t.admin, body: { userId: two.userId, roleIds: [] } })).status).toBe(200)
    expect((await list(two.token)).status).toBe(403)
  })

  it('ends with its session: signed out, or forced out', async () => {
    const one = await reader('cached6')
    expect((await t.call({ method: 'POST', url: '/api/logout', token: one.token })).status).toBe(200)
    expect((await list(one.token)).status).toBe(401)

    const two = await reader('cached7')
    const online = await t.call<Paged<{ sessionId: string }>>({ method: 'POST', url: '/api/monitor/online/list', token: t.admin, body: { userName: 'cached7' } })
    expect((await t.call({ method: 'DELETE', url: `/api/monitor/online/${online.data.rows[0]!.sessionId}`, token: t.admin })).status).toBe(200)
    expect((await list(two.token)).status).toBe(401)
  })

  it('sees a new department below its own at once ("department and below" scope)', async () => {
    const rd = await deptId(t, 'Research & Development')
    const viewer = await limitedUser(t, { userName: 'cached8', perms: ['system:user:list'], dataScope: '4', dept: 'Research & Development' })
    const find = async (userName: string) => (await t.call<Paged<unknown>>({ method: 'POST', url: '/api/system/user/list', token: viewer.token, body: { userName } })).data.total
    expect(await find('cached8')).toBe(1)
    const made = await t.call<{ deptId: number }>({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { deptName: 'Cache lab', parentId: rd, orderNum: 9 } })
    expect(made.status, made.msg).toBe(200)
    await addUser(t, { userName: 'cachelab1', deptId: made.data.deptId })
    expect(await find('cachelab1')).toBe(1)
  })

  it("runs only the list's own statements, not the session's, the user's or the roles'", async () => {
    const user = await reader('cached9')
    const statements: string[] = []
    // Every executor of the database (the list reads through one without the result plugin), so the class's method.
    const executor = Object.getPrototypeOf(t.app.services.db.getExecutor()) as QueryExecutor
    const run = executor.executeQuery
    executor.executeQuery = function <R>(this: QueryExecutor, query: CompiledQuery<R>) {
      statements.push(query.sql)
      return run.call<QueryExecutor, [CompiledQuery<R>], Promise<QueryResult<R>>>(this, query)
    }
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => list(user.token)))
      expect(answers.every((a) => a.status === 200)).toBe(true)
    } finally {
      executor.executeQuery = run
    }
    expect(statements.filter((s) => /sys_session|sys_user|sys_role|sys_menu|sys_dept/.test(s))).toEqual([])
    // One per request: the page, which brings the count along.
    expect(statements.filter((s) => s.includes('sys_config'))).toHaveLength(20)
  })
})

describe('two instances on one database', () => {
  let a: TestApp
  let b: TestApp
  beforeAll(async () => {
    a = await createTestApp()
    b = await createTestApp({}, { databaseUrl: a.databaseUrl })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  const onB = (token: string) => b.call({ method: 'POST', url: '/api/system/config/list', token, body: {} })

  it(`see each other's changes on their very next request (${process.env.REDIS_URL ? 'through Redis' : 'one process, no Redis'})`, async () => {
    const admin = await a.login()
    const user = await limitedUser(a, { userName: 'twice1', perms: READER, dataScope: '1' })
    for (let i = 0; i < 2; i++) expect((await onB(user.token)).status).toBe(200)

    // A role loses the permission on A: B refuses at once.
    const menuOn = async (perms: string) => (await a.app.services.db.selectFrom('sysMenu').select('menuId').where('perms', '=', perms).executeTakeFirstOrThrow()).menuId
    const query = await menuOn('system:config:query')
    expect((await a.call({ method: 'PUT', url: '/api/system/role', token: admin, body: { roleId: user.roleId, menuIds: [query] } })).status).toBe(200)
    expect((await onB(user.token)).status).toBe(403)
    // And gets it back.
    const both = [query, await menuOn('system:config:list')]
    expect((await a.call({ method: 'PUT', url: '/api/system/role', token: admin, body: { roleId: user.roleId, menuIds: both } })).status).toBe(200)
    expect((await onB(user.token)).status).toBe(200)

    // Disabled on A: B answers 401.
    expect((await a.call({ method: 'PUT', url: '/api/system/user/changeStatus', token: admin, body: { userId: user.userId, status: '1' } })).status).toBe(200)
    expect((await onB(user.token)).code).toBe(50008)
  })

  it('end a session signed out on the other at once', async () => {
    await addUser(a, { userName: 'twice2', password: 'secret12' })
    const token = await a.login('twice2', 'secret12')
    const info = () => b.call({ url: '/api/getUserInfo', token })
    expect((await info()).status).toBe(200)
    expect((await a.call({ method: 'POST', url: '/api/logout', token })).status).toBe(200)
    expect((await info()).status).toBe(401)
  })
})

describe('AuthCache', () => {
  const session = (userId: number): Session => ({
    tokenHash: '',
    userId,
    userName: `u${userId}`,
    ipaddr: '',
    browser: '',
    os: '',
    loginTime: new Date().toISOString(),
    lastSeen: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    endedReason: '',
  })
  const context = (userId: number, permissions: string[]): AuthContext => ({ userId, userName: `u${userId}`, deptId: null, deptName: '', roles: [], roleKeys: [], permissions, isAdmin: false })

  /** A cache over a store and a context that count their reads; `gate` holds the context reads back. */
  function rig(revalidateMs = 60_000) {
    const reads = { sessions: 0, contexts: 0 }
    let permissions = ['a:b:c']
    let gate: Promise<void> = Promise.resolve()
    const sessions = {
      async lookup(): Promise<SessionLookup> {
        reads.sessions++
        return { state: 'valid', session: session(7) }
      },
    } as unknown as SessionStore
    const cache = new AuthCache({
      sessions,
      sessionTtlMinutes: 30,
      revalidateMs,
      context: async (userId) => {
        reads.contexts++
        const now = permissions
        await gate
        return context(userId, now)
      },
    })
    return {
      cache,
      reads,
      grant: (p: string[]) => (permissions = p),
      hold: () => {
        let open!: () => void
        gate = new Promise((r) => (open = r))
        return () => open()
      },
    }
  }
  const permsOf = async (cache: AuthCache) => {
    const found = await cache.signedIn('token')
    return found.state === 'valid' ? found.auth.permissions : found.state
  }

  it('reads once for concurrent callers, then serves from memory a frozen context', async () => {
    const { cache, reads } = rig()
    const all = await Promise.all(Array.from({ length: 10 }, () => cache.signedIn('token')))
    await cache.signedIn('token')
    expect(reads).toEqual({ sessions: 1, contexts: 1 })
    const found = all[0]!
    expect(found.state === 'valid' && Object.isFrozen(found.auth) && Object.isFrozen(found.auth.permissions)).toBe(true)
    cache.close()
  })

  it('does not keep what it read while a change was announced', async () => {
    const { cache, reads, grant, hold } = rig()
    const open = hold()
    const reading = permsOf(cache)
    // The change commits and is announced while the old rights are being read.
    await new Promise((r) => setTimeout(r, 5))
    grant([])
    await cache.changed({ users: [7] })
    open()
    expect(await reading).toEqual(['a:b:c'])
    expect(await permsOf(cache)).toEqual([])
    expect(reads.contexts).toBe(2)
    cache.close()
  })

  it('reads again after the revalidation time, announced or not', async () => {
    const { cache, reads, grant } = rig(20)
    expect(await permsOf(cache)).toEqual(['a:b:c'])
    grant(['x:y:z'])
    expect(await permsOf(cache)).toEqual(['a:b:c'])
    await new Promise((r) => setTimeout(r, 30))
    expect(await permsOf(cache)).toEqual(['x:y:z'])
    expect(reads).toEqual({ sessions: 2, contexts: 2 })
    cache.close()
  })

  it('keeps the data scope with the context, and drops both with it', async () => {
    const { cache } = rig()
    let resolved = 0
    const scopeOf = async () => {
      const found = await cache.signedIn('token')
      if (found.state !== 'valid') throw new Error(found.state)
      return cache.rowScope(found.auth, async () => ({ all: false, deptIds: [++resolved], countryIds: [], userId: null, userName: null }))
    }
    expect(await scopeOf()).toEqual({ all: false, deptIds: [1], countryIds: [], userId: null, userName: null })
    expect(await scopeOf()).toEqual({ all: false, deptIds: [1], countryIds: [], userId: null, userName: null })
    await cache.changed({ all: true })
    expect(await scopeOf()).toEqual({ all: false, deptIds: [2], countryIds: [], userId: null, userName: null })
    cache.close()
  })
})
