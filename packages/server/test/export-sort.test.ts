import { systemEntities } from '@velo/shared'
import { describe, expect, it } from 'vitest'
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
})
