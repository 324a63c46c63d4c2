import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Paged } from '@velo/shared'
import { type Kysely, sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DynamicDb, dynamicDb } from '../src/db/database'
import { createTestApp, type TestApp } from './harness'

/** What `promise` gave within `ms`, or 'waiting': whether something answered, not how fast. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'waiting'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'waiting'>((resolve) => (timer = setTimeout(() => resolve('waiting'), ms)))
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** A transaction that has run `body` and stays open until `commit` (or `fail`) is called. */
async function openTransaction<DB>(db: Kysely<DB>, body: (tx: Kysely<DB>) => Promise<unknown>) {
  let end!: (commit: boolean) => void
  const ending = new Promise<boolean>((resolve) => (end = resolve))
  let ready!: () => void
  const started = new Promise<void>((resolve) => (ready = resolve))
  const done = db.transaction().execute(async (tx) => {
    await body(tx)
    ready()
    if (!(await ending)) throw new Error('rolled back on purpose')
  })
  // A failing body must not leave the test waiting for `started`.
  await Promise.race([started, done])
  return { commit: () => (end(true), done), rollBack: () => (end(false), done.catch(() => undefined)), end }
}

describe('requests during an open write transaction (an import)', () => {
  let t: TestApp
  let admin: string
  beforeAll(async () => {
    t = await createTestApp()
    admin = await t.login()
  })
  afterAll(async () => {
    await t.close()
  })

  const listTypes = async (prefix: string) => {
    const res = await t.call<Paged<{ dictType: string }>>({ method: 'POST', url: '/api/system/dict/list', token: admin, body: { pageNum: 1, pageSize: 50, dictType: prefix } })
    expect(res.code).toBe(200)
    return res.data.rows.map((r) => r.dictType)
  }

  it('a list answers while the transaction is open, without its uncommitted row, and with it after the commit', async () => {
    const db = t.app.services.db
    const tx = await openTransaction(db, (trx) =>
      trx.insertInto('sysDictType').values({ dictName: 'Uncommitted', dictType: 'open_tx_probe', status: '0', createBy: 'test', createTime: new Date().toISOString() }).execute(),
    )
    let during: string[] | 'waiting'
    try {
      during = await within(listTypes('open_tx_'), 3000)
    } finally {
      await tx.commit()
    }
    expect(during, 'the list waited for the transaction to end').not.toBe('waiting')
    expect(during).toEqual([])
    expect(await listTypes('open_tx_')).toEqual(['open_tx_probe'])
  })

  it('a rolled-back row is never seen', async () => {
    const db = t.app.services.db
    const tx = await openTransaction(db, (trx) =>
      trx.insertInto('sysDictType').values({ dictName: 'Rolled back', dictType: 'rolled_back_probe', status: '0', createBy: 'test', createTime: new Date().toISOString() }).execute(),
    )
    let during: string[] | 'waiting'
    try {
      during = await within(listTypes('rolled_back_'), 3000)
    } finally {
      await tx.rollBack()
    }
    expect(during).toEqual([])
    expect(await listTypes('rolled_back_')).toEqual([])
  })

  it('a long transaction lets the event loop turn between its statements', async () => {
    const db = t.app.services.db
    let turned = false
    const timer = setTimeout(() => (turned = true), 0)
    let statements = 0
    await db.transaction().execute(async (tx) => {
      // Stops as soon as the timer has fired; 20,000 statements take far longer than a turn's share.
      for (; statements < 20_000 && !turned; statements++) await tx.selectFrom('sysDictType').select('dictId').limit(1).execute()
    })
    clearTimeout(timer)
    expect(turned, `the timer did not fire during ${statements} statements`).toBe(true)
    expect(statements).toBeLessThan(20_000)
  })
})

describe.each([0, 2])('the SQLite driver: one writer, readers (%i reader threads)', (readerThreads) => {
  let dir: string
  // The test's own table (item), which no type of the product's names.
  let db: DynamicDb
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'velo-sqlite-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  afterEach(async () => {
    await db?.destroy()
  })

  const open = async (file: string) => {
    db = dynamicDb(createDatabase({ dialect: 'sqlite', file }, { readerThreads }).db)
    await db.schema.createTable('item').ifNotExists().addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text', (c) => c.notNull()).execute()
    return db
  }
  const names = async (from: DynamicDb = db) => (await from.selectFrom('item').select('name').orderBy('id').execute()).map((r) => r.name as string)

  it('keeps writes in order: a write from elsewhere waits for the open transaction, then lands', async () => {
    await open(join(dir, 'order.db'))
    const tx = await openTransaction(db, (trx) => trx.insertInto('item').values({ name: 'in transaction' }).execute())
    const write = db.insertInto('item').values({ name: 'outside' }).execute()
    let during: unknown
    let read: string[] | 'waiting'
    try {
      during = await within(write, 300)
      read = await within(names(), 3000)
    } finally {
      await tx.commit()
    }
    expect(during).toBe('waiting')
    expect(read).toEqual([])
    await write
    expect(await names()).toEqual(['in transaction', 'outside'])
  })

  it('reads its own writes at once, RETURNING included', async () => {
    await open(join(dir, 'returning.db'))
    const row = await db.insertInto('item').values({ name: 'returned' }).returning(['id', 'name']).executeTakeFirstOrThrow()
    expect(row).toEqual({ id: 1, name: 'returned' })
    await db.updateTable('item').set({ name: 'renamed' }).where('id', '=', 1).execute()
    expect(await names()).toEqual(['renamed'])
  })

  it('a write that starts like a query (WITH … INSERT) goes to the writer and lands', async () => {
    await open(join(dir, 'with-insert.db'))
    await sql`with n(v) as (select 'from with') insert into item (name) select v from n`.execute(db)
    expect(await names()).toEqual(['from with'])
  })

  it('a read that fails says why, and the next read works', async () => {
    await open(join(dir, 'failing-read.db'))
    // Fails while running, not while being prepared: the reader thread, when there is one, reports it.
    await expect(sql`select abs(-9223372036854775807 - 1) as v`.execute(db)).rejects.toThrow(/integer overflow/)
    await expect(sql`select x from nowhere`.execute(db)).rejects.toThrow(/no such table/)
    expect(await names()).toEqual([])
  })

  it.runIf(readerThreads > 0)('a long read runs beside the event loop: a timer fires while it runs', async () => {
    await open(join(dir, 'long-read.db'))
    let firedAt = 0
    let readAt = 0
    const timer = setTimeout(() => (firedAt = performance.now()), 20)
    // Counts to 3 million in SQL: a few hundred milliseconds of one core, whichever thread runs it.
    const read = sql`with recursive c(n) as (select 1 union all select n + 1 from c where n < 3000000) select count(*) as n from c`
      .execute(db)
      .then((r) => ((readAt = performance.now()), r.rows))
    expect(await read).toEqual([{ n: 3_000_000 }])
    clearTimeout(timer)
    expect(firedAt, 'the timer waited for the read').toBeGreaterThan(0)
    expect(firedAt).toBeLessThan(readAt)
  })

  it('a connection that began a transaction itself keeps to the writer and sees its own rows', async () => {
    await open(join(dir, 'connection.db'))
    await db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn)
      await conn.insertInto('item').values({ name: 'mine' }).execute()
      expect(await names(conn)).toEqual(['mine'])
      expect(await names()).toEqual([])
      await sql`rollback`.execute(conn)
    })
    expect(await names()).toEqual([])
  })

  it('savepoints roll back part of a transaction', async () => {
    await open(join(dir, 'savepoint.db'))
    const trx = await db.startTransaction().execute()
    await trx.insertInto('item').values({ name: 'kept' }).execute()
    const sp = await trx.savepoint('partial').execute()
    await sp.insertInto('item').values({ name: 'dropped' }).execute()
    await sp.rollbackToSavepoint('partial').execute()
    await trx.commit().execute()
    expect(await names()).toEqual(['kept'])
  })

  it('an in-memory database keeps one connection: a read waits for the open transaction', async () => {
    await open(':memory:')
    const tx = await openTransaction(db, (trx) => trx.insertInto('item').values({ name: 'committed later' }).execute())
    const read = names()
    let during: string[] | 'waiting'
    try {
      during = await within(read, 300)
    } finally {
      await tx.commit()
    }
    expect(during).toBe('waiting')
    expect(await read).toEqual(['committed later'])
  })
})

// A commit is synced the same way on every start, whatever mode the file was in when it was opened.
describe('the SQLite writer syncs its commits as said (NORMAL)', () => {
  it('on a new file and after a restart alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-sync-'))
    try {
      for (const start of ['first', 'again']) {
        const { db } = createDatabase({ dialect: 'sqlite', file: join(dir, 'velo.db') })
        const answer = await sql<{ synchronous: number }>`pragma synchronous`.execute(db)
        await db.destroy()
        expect(answer.rows[0]?.synchronous, start).toBe(1)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
