import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Db } from '../src/db/database'
import { SharedCommits } from '../src/gateway/write-behind'

// On SQLite the telemetry rows, the device state and the message log that fall due together share
// one commit (issue 45). Sharing must not tie their fates: a write that fails is undone alone.

describe('shared commits (SQLite)', () => {
  let dir: string
  let db: Db
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'velo-shared-commits-'))
    db = createDatabase({ dialect: 'sqlite', file: join(dir, 'test.db') }).db
    await sql`create table shared_part (name text not null unique)`.execute(db)
  })
  afterAll(async () => {
    await db.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  const names = async () => (await sql<{ name: string }>`select name from shared_part order by name`.execute(db)).rows.map((r) => r.name)

  it('commits the writes that fall due together, and undoes a failing one alone', async () => {
    const commits = new SharedCommits(db)
    const transactions = new Set<unknown>()
    const write = (name: string, fail = false) =>
      commits.run(async (tx) => {
        transactions.add(tx)
        await sql`insert into shared_part (name) values (${name})`.execute(tx)
        if (fail) throw new Error(`${name} failed`)
        return name
      })
    const results = await Promise.allSettled([write('a'), write('b', true), write('c')])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[0] as PromiseFulfilledResult<string>).value).toBe('a')
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('b failed')
    // One transaction for the three.
    expect(transactions.size).toBe(1)
    expect(await names()).toEqual(['a', 'c'])
    // A statement that fails (the unique name) fails its write only, in the next shared transaction too.
    const again = await Promise.allSettled([write('a'), write('d')])
    expect(again.map((r) => r.status)).toEqual(['rejected', 'fulfilled'])
    expect(await names()).toEqual(['a', 'c', 'd'])
  })

  it('answers a write alone as its own transaction would', async () => {
    const commits = new SharedCommits(db)
    await expect(commits.run(async (tx) => (await sql<{ n: number }>`select count(*) as n from shared_part`.execute(tx)).rows[0]!.n)).resolves.toBe(3)
    await expect(
      commits.run(async (tx) => {
        await sql`insert into shared_part (name) values ('e')`.execute(tx)
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    expect(await names()).toEqual(['a', 'c', 'd'])
  })
})
