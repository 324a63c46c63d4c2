import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AdminPasswordRefused, resetAdminPassword } from '../src/ops/admin/password'
import { ADMIN_PASSWORD, createTestApp, type TestApp } from './harness'

// npm run admin:password (scripts/admin-password.ts) is this function on the server's database.
describe('npm run admin:password', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  const signIn = (password: string) => t.call({ method: 'POST', url: '/api/login', body: { username: 'admin', password } })

  it('sets the given password, ends the admin’s sessions, clears a lockout and logs it', async () => {
    const { db } = t.app.services
    const token = await t.login()
    expect((await t.call({ url: '/api/getUserInfo', token })).code).toBe(200)
    // Locked out after too many guesses.
    await db.updateTable('sysUser').set({ failedLogins: 3, lockedUntil: new Date(Date.now() + 3600_000).toISOString() }).where('userName', '=', 'admin').execute()

    const result = await resetAdminPassword({ db, sessions: t.app.services.sessions, password: 'Fresh-start9' })
    expect(result).toMatchObject({ password: 'Fresh-start9', generated: false })

    expect((await t.call({ url: '/api/getUserInfo', token })).code).not.toBe(200)
    // Ended where sessions live: the database's table, or Redis (REDIS_URL), which keeps no row here.
    if (!process.env.REDIS_URL) {
      const live = await db.selectFrom('sysSession').select('endedReason').where('userName', '=', 'admin').execute()
      expect(live.length).toBeGreaterThan(0)
      expect(live.every((s) => s.endedReason !== '')).toBe(true)
    }
    expect((await signIn(ADMIN_PASSWORD)).code).not.toBe(200)
    expect((await signIn('Fresh-start9')).code).toBe(200)

    const row = await db.selectFrom('sysOperLog').selectAll().where('operName', '=', 'cli').executeTakeFirstOrThrow()
    expect(row).toMatchObject({ title: 'Administrator password', requestMethod: 'CLI', status: '0' })
    expect(row.operParam).not.toContain('Fresh-start9')
  })

  it('generates a password when none is given', async () => {
    const result = await resetAdminPassword({ db: t.app.services.db, sessions: t.app.services.sessions })
    expect(result.generated).toBe(true)
    expect(result.password).toMatch(/^[\x21-\x7e]{6,20}$/)
    expect((await signIn('Fresh-start9')).code).not.toBe(200)
    expect((await signIn(result.password)).code).toBe(200)
  })

  it('refuses a password the sign-in form would refuse', async () => {
    await expect(resetAdminPassword({ db: t.app.services.db, sessions: t.app.services.sessions, password: 'a b' })).rejects.toBeInstanceOf(AdminPasswordRefused)
  })
})
