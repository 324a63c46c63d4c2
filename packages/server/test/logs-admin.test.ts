import { describe, expect, it } from 'vitest'
import { addUser, limitedUser, useTestApp, waitForOperLog } from './harness'

const t = useTestApp()
const db = () => t.app.services.db

const count = async (table: 'sysLoginLog' | 'sysOperLog') => Number((await db().selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
const attempt = (username: string, password: string) => t.call({ method: 'POST', url: '/api/login', body: { username, password } })

describe('DELETE /monitor/operlog/clean', () => {
  it('deletes every entry; the clean itself is then the only one, audited as "clean"', async () => {
    // Some audited calls first.
    for (let i = 0; i < 3; i++) await t.call({ method: 'POST', url: '/api/system/config', token: t.admin, body: { configName: `Key ${i}`, configKey: `test.key${i}`, configValue: 'x' } })
    await waitForOperLog(t, (r) => r.operParam.includes('test.key2'))
    const before = await count('sysOperLog')
    expect(before).toBeGreaterThanOrEqual(3)
    const res = await t.call({ method: 'DELETE', url: '/api/monitor/operlog/clean', token: t.admin })
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toEqual({ deleted: before })
    expect(res.msg).toBe(`Log cleared: ${before} entries deleted`)
    await waitForOperLog(t, (r) => r.operUrl === '/api/monitor/operlog/clean')
    const rows = await db().selectFrom('sysOperLog').selectAll().execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ title: 'Operation log', businessType: '9', operName: 'admin', operUrl: '/api/monitor/operlog/clean', status: '0' })
  })

  it('needs monitor:operlog:remove, and deleting by ids still works beside it', async () => {
    const reader = await limitedUser(t, { userName: 'logreader1', dataScope: '1', perms: ['monitor:operlog:list', 'monitor:logininfor:list'] })
    const before = await count('sysOperLog')
    const res = await t.call({ method: 'DELETE', url: '/api/monitor/operlog/clean', token: reader.token })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (monitor:operlog:remove)')
    // The refusal is logged too.
    await waitForOperLog(t, (r) => r.operUrl === '/api/monitor/operlog/clean' && r.status === '1')
    expect(await count('sysOperLog')).toBe(before + 1)
    const one = await db().selectFrom('sysOperLog').select('operId').orderBy('operId').executeTakeFirstOrThrow()
    expect((await t.call({ method: 'DELETE', url: `/api/monitor/operlog/${one.operId}`, token: t.admin })).status).toBe(200)
  })
})

describe('DELETE /monitor/logininfor/clean', () => {
  it('deletes every sign-in entry and is audited as "clean" in the operation log', async () => {
    await attempt('admin', 'wrong-password')
    await db().updateTable('sysUser').set({ failedLogins: 0 }).where('userName', '=', 'admin').execute()
    await t.login()
    const before = await count('sysLoginLog')
    expect(before).toBeGreaterThanOrEqual(3)
    const res = await t.call({ method: 'DELETE', url: '/api/monitor/logininfor/clean', token: t.admin, lang: 'zh_CN' })
    expect(res.status).toBe(200)
    expect(res.msg).toBe(`日志已清空，共删除 ${before} 条`)
    expect(await count('sysLoginLog')).toBe(0)
    const audit = await waitForOperLog(t, (r) => r.operUrl === '/api/monitor/logininfor/clean')
    expect(audit).toMatchObject({ title: 'Login log', businessType: '9', status: '0' })
  })

  it('needs monitor:logininfor:remove', async () => {
    const reader = await limitedUser(t, { userName: 'logreader2', dataScope: '1', perms: ['monitor:logininfor:list'] })
    await attempt('nobody', 'whatever')
    const before = await count('sysLoginLog')
    expect((await t.call({ method: 'DELETE', url: '/api/monitor/logininfor/clean', token: reader.token })).status).toBe(403)
    expect(await count('sysLoginLog')).toBe(before)
  })
})

describe('GET /monitor/logininfor/unlock/{userName}', () => {
  it('lifts the lock of sign-in, so the right password works again at once', async () => {
    await addUser(t, { userName: 'lockedout1' })
    for (let i = 0; i < 5; i++) await attempt('lockedout1', 'wrong')
    // Held back twice: by the lock, and at this address by the delays after three wrong passwords.
    expect((await attempt('lockedout1', 'secret12')).status).toBe(429)
    const res = await t.call({ url: '/api/monitor/logininfor/unlock/lockedout1', token: t.admin })
    expect(res.status, res.msg).toBe(200)
    expect(res.msg).toBe('Account "lockedout1" unlocked')
    expect(await db().selectFrom('sysUser').select(['failedLogins', 'lockedUntil']).where('userName', '=', 'lockedout1').executeTakeFirstOrThrow()).toEqual({
      failedLogins: 0,
      lockedUntil: null,
    })
    expect((await attempt('lockedout1', 'secret12')).code).toBe(200)
    // A GET that changes something is still in the operation log.
    const audit = await waitForOperLog(t, (r) => r.operUrl === '/api/monitor/logininfor/unlock/lockedout1')
    expect(audit).toMatchObject({ title: 'Login log', requestMethod: 'GET', businessType: '0', status: '0' })
  })

  it('answers 404 for an unknown user', async () => {
    const res = await t.call({ url: '/api/monitor/logininfor/unlock/nosuchuser', token: t.admin })
    expect(res.status).toBe(404)
  })

  it('needs monitor:logininfor:unlock; the lock stays', async () => {
    const reader = await limitedUser(t, { userName: 'logreader3', dataScope: '1', perms: ['monitor:logininfor:list'] })
    await addUser(t, { userName: 'lockedout2' })
    for (let i = 0; i < 5; i++) await attempt('lockedout2', 'wrong')
    const res = await t.call({ url: '/api/monitor/logininfor/unlock/lockedout2', token: reader.token })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('You have no permission to do this (monitor:logininfor:unlock)')
    expect((await attempt('lockedout2', 'secret12')).status).toBe(429)
  })
})
