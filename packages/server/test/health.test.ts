import { mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestApp, freshDatabase, type TestApp, useTestApp } from './harness'
import { waitFor } from './iot-helpers'
import { TcpProxy } from './ops-proxy'

// Health probes against real parts: the database (a renamed SQLite file, a PostgreSQL behind a proxy
// that is cut), Redis behind a proxy that is cut, and the migration table.

const ready = async (t: Pick<TestApp, 'call'>) => {
  const res = await t.call({ url: '/health/ready' })
  expect(JSON.parse(res.raw.toString())).toEqual({ status: res.status === 200 ? 'ok' : 'unavailable' })
  return res.status
}
const becomes = (t: Pick<TestApp, 'call'>, status: number, what: string) => waitFor(async () => ((await ready(t)) === status ? true : null), what, 15_000)

describe('health', () => {
  const t = useTestApp()

  it('answers live and ready with only a status, at the root, without a token', async () => {
    const live = await t.call({ url: '/health/live' })
    expect(live.status).toBe(200)
    expect(JSON.parse(live.raw.toString())).toEqual({ status: 'ok' })
    expect(await ready(t)).toBe(200)
    // Not under the API prefix: no envelope, no operation-log row.
    expect((await t.call({ url: '/api/health/ready' })).status).not.toBe(200)
    const logged = await t.app.services.db.selectFrom('sysOperLog').select('operUrl').where('operUrl', 'like', '%health%').execute()
    expect(logged).toEqual([])
  })

  it('is not ready while a migration of this build is not applied, and ready once it is', async () => {
    const db = t.app.services.db.withoutPlugins()
    const row = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name desc limit 1`.execute(db)
    const last = row.rows[0]!
    await sql`delete from kysely_migration where name = ${last.name}`.execute(db)
    try {
      expect(await ready(t)).toBe(503)
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last.name}, ${last.timestamp})`.execute(db)
    }
    expect(await ready(t)).toBe(200)
  })

  it('answers many probes without a rate limit', async () => {
    const statuses = await Promise.all(Array.from({ length: 50 }, () => t.call({ url: '/health/live' }).then((r) => r.status)))
    expect(new Set(statuses)).toEqual(new Set([200]))
  })
})

describe('health when the database goes away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'velo-health-'))
  let proxy: TcpProxy | undefined
  let t: TestApp | undefined
  let drop = async () => {}
  afterAll(async () => {
    await proxy?.start().catch(() => {})
    await t?.close()
    await proxy?.cut()
    await drop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('turns not ready and back', async () => {
    const database = await freshDatabase(dir)
    drop = database.drop
    if (database.url.startsWith('sqlite:')) {
      // The file the server opened is moved away (a volume gone, a copy put in its place): not ready.
      t = await createTestApp({}, { databaseUrl: database.url })
      const file = database.url.slice('sqlite:'.length)
      expect(await ready(t)).toBe(200)
      renameSync(file, `${file}.away`)
      expect(await ready(t)).toBe(503)
      renameSync(`${file}.away`, file)
      expect(await ready(t)).toBe(200)
    } else {
      // PostgreSQL through a proxy that is cut: every connection dropped and new ones refused.
      const url = new URL(database.url)
      proxy = await new TcpProxy(url.hostname, Number(url.port || 5432)).start()
      url.hostname = '127.0.0.1'
      url.port = String(proxy.port)
      t = await createTestApp({}, { databaseUrl: url.toString() })
      expect(await ready(t)).toBe(200)
      await proxy.cut()
      await becomes(t, 503, 'not ready without the database')
      await proxy.start()
      await becomes(t, 200, 'ready with the database back')
    }
  })
})

describe.runIf(process.env.REDIS_URL)('health when Redis goes away', () => {
  let proxy: TcpProxy | undefined
  let t: TestApp | undefined
  afterAll(async () => {
    await proxy?.start().catch(() => {})
    await t?.close()
    await proxy?.cut()
  })

  it('turns not ready and back', async () => {
    const redis = new URL(process.env.REDIS_URL!)
    proxy = await new TcpProxy(redis.hostname, Number(redis.port || 6379)).start()
    t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` })
    expect(await ready(t)).toBe(200)
    await proxy.cut()
    await becomes(t, 503, 'not ready without Redis')
    await proxy.start()
    await becomes(t, 200, 'ready with Redis back')
  })
})
