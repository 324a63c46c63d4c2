import { systemEntities } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { dbProbes } from '../src/db/database'
import { isoTimestamp } from '../src/platform/crud/export-cursor'
import { EntityRepository } from '../src/platform/crud/repository'
import { readWorkbook, useTestApp } from './harness'

// Issue 36: an export is the list as the user sees it, in its current sort (it was in id order).

describe('an export follows the list’s sort', () => {
  const t = useTestApp()

  const listed = async (body: Record<string, unknown>) => {
    const res = await t.call({ method: 'POST', url: '/api/system/country/list', token: t.admin, body: { pageNum: 1, pageSize: 500, ...body } })
    expect(res.status, res.msg).toBe(200)
    return (res.data as { rows: { countryId: number; nameEn: string; code: string }[] }).rows
  }

  const exported = async (body: Record<string, unknown>) => {
    const res = await t.call({ method: 'POST', url: '/api/system/country/export', token: t.admin, body })
    expect(res.status, res.msg).toBe(200)
    const sheet = await readWorkbook(res.raw)
    const column = sheet.header.indexOf('ID')
    return sheet.rows.map((r) => Number(r[column]))
  }

  it('in the column and direction the list was sorted by, and in the default sort without one', async () => {
    for (const sort of [{ orderByColumn: 'nameEn', isAsc: 'descending' }, { orderByColumn: 'code', isAsc: 'ascending' }, {}]) {
      const rows = await listed(sort)
      expect(rows.length, 'the seeded countries').toBeGreaterThan(20)
      expect(await exported(sort), JSON.stringify(sort)).toEqual(rows.map((r) => r.countryId))
    }
    // The sort is checked as the list checks it.
    const bad = await t.call({ method: 'POST', url: '/api/system/country/export', token: t.admin, body: { orderByColumn: 'secret' } })
    expect(bad.status).toBe(400)
  })

  it('across batches, as a large export or an export job reads it, without a row twice or missed', async () => {
    const repo = new EntityRepository(t.app.services.db, systemEntities.country)
    for (const sort of [{ orderByColumn: 'nameEn', isAsc: 'desc' }, { orderByColumn: 'timeZone', isAsc: 'asc' }, { orderByColumn: 'countryId', isAsc: 'desc' }]) {
      const ids: number[] = []
      for await (const batch of repo.stream(sort, { all: true }, 7)) ids.push(...batch.map((r) => Number(r.countryId)))
      const rows = await listed(sort)
      expect(ids, JSON.stringify(sort)).toEqual(rows.map((r) => r.countryId))
    }
  })

  it('read for the workbook across batches (on PostgreSQL a cursor), and a read stopped early gives its connection back', async () => {
    const db = t.app.services.db
    const repo = new EntityRepository(db, systemEntities.country)
    for (const sort of [{ orderByColumn: 'nameEn', isAsc: 'desc' }, { orderByColumn: 'timeZone', isAsc: 'asc' }, {}]) {
      const read = repo.exportRead(sort, { all: true }, 'en_US', undefined, 7)
      const at = read.columns.indexOf('countryId')
      const ids: number[] = []
      for await (const batch of read.pages) {
        expect(batch.length).toBeLessThanOrEqual(7)
        ids.push(...batch.map((r) => Number(r[at])))
      }
      expect(ids, JSON.stringify(sort)).toEqual((await listed(sort)).map((r) => r.countryId))
    }
    const pool = dbProbes.get(db)?.pool
    for (let i = 0; i < 12; i++) {
      // More stopped reads than the pool has connections: each must give its own back.
      for await (const batch of repo.exportRead({}, { all: true }, 'en_US', undefined, 3).pages) {
        expect(batch.length).toBe(3)
        break
      }
    }
    if (pool) expect(pool.totalCount - pool.idleCount, 'connections still held').toBe(0)
    expect((await listed({})).length).toBeGreaterThan(20)
  })
})

describe('timestamptz text read for an export', () => {
  it('answers what the database layer answers (a Date’s ISO string)', () => {
    for (const text of ['2026-06-01 12:34:56+00', '2026-06-01 12:34:56.7+00', '2026-06-01 12:34:56.789+00', '2026-06-01 12:34:56.789999+00', '0999-01-31 00:00:00.0005+00', '2026-06-01 12:34:56+05:30', '2026-06-01 12:34:56.25-03'])
      expect(isoTimestamp(text), text).toBe(new Date(text).toISOString())
  })
})
