import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SqliteReaders } from '../src/db/sqlite-readers'

// The reader threads of a SQLite database: an idle server holds one (each is a heap of its own), and
// more start, up to the configured number, when reads find every running one busy.

const SLOW = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) SELECT count(*) AS c FROM n'

describe('SQLite reader threads', () => {
  let dir: string
  let file: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'velo-readers-'))
    file = join(dir, 'db.sqlite')
    const db = new SQLite(file)
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES (\'a\'), (\'b\')')
    db.close()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('starts with one thread, adds one while reads overlap, never more than the size', async () => {
    const readers = new SqliteReaders(file, 2, 10)
    try {
      expect(readers.threads).toBe(1)
      // Reads one after another keep to the one thread.
      for (let i = 0; i < 3; i++) expect(await readers.query('SELECT v FROM t ORDER BY id', [])).toEqual({ rows: [{ v: 'a' }, { v: 'b' }] })
      expect(readers.threads).toBe(1)
      // Reads at once on a thread that answers at once (a start-up's) do not start another.
      await Promise.all([readers.query('SELECT 1', []), readers.query('SELECT 2', [])])
      expect(readers.threads).toBe(1)
      // A read that finds the one thread held by a long one gets a second; more do not get a third.
      const long = readers.query(SLOW, [])
      await new Promise((r) => setTimeout(r, 30))
      const overlapping = [long, readers.query(SLOW, []), readers.query(SLOW, [])]
      expect(readers.threads).toBe(2)
      for (const answer of await Promise.all(overlapping)) expect(answer).toEqual({ rows: [{ c: 1000000 }] })
      expect(readers.threads).toBe(2)
    } finally {
      await readers.close()
    }
  })

  it('a write is not run by a reader', async () => {
    const readers = new SqliteReaders(file, 2, 10)
    try {
      expect(await readers.query('DELETE FROM t', [])).toEqual({ notRead: true })
      expect(await readers.query('SELECT count(*) AS n FROM t', [])).toEqual({ rows: [{ n: 2 }] })
    } finally {
      await readers.close()
    }
  })
})
