import { describe, expect, it } from 'vitest'
import { useTestApp } from './harness'

// A list's statement is compiled once per shape (filters, scope, order) and then only takes each
// request's values (crud/repository.ts): requests of one shape must each get their own answer.

const t = useTestApp()
const list = async (body: object) => {
  const res = await t.call({ method: 'POST', url: '/api/system/config/list', token: t.admin, body })
  expect(res.status, res.msg).toBe(200)
  return res.data as { rows: { configKey: string }[]; total: number }
}
/** The same from the table itself. */
const stored = async (where: { configType?: string; keyPart?: string }) => {
  let q = t.app.services.db.selectFrom('sysConfig').select('configKey').orderBy('configKey')
  if (where.configType) q = q.where('configType', '=', where.configType)
  if (where.keyPart) q = q.where('configKey', 'like', `%${where.keyPart}%`)
  return (await q.execute()).map((r) => r.configKey)
}

describe('a list statement kept per shape', () => {
  it('answers each request of one shape with its own values', async () => {
    for (const [configType, keyPart] of [
      ['Y', 'account'],
      ['N', 'account'],
      ['Y', 'iot'],
      ['Y', 'nothing-like-this'],
      ['Y', 'account'],
    ] as const) {
      const want = await stored({ configType, keyPart })
      const got = await list({ configType, configKey: keyPart, orderByColumn: 'configKey', isAsc: 'ascending', pageSize: 100 })
      expect(got.total, `${configType} ${keyPart}`).toBe(want.length)
      expect(got.rows.map((r) => r.configKey)).toEqual(want)
    }
  })

  it('pages through one shape, and counts past the last page too', async () => {
    const all = await stored({ configType: 'Y' })
    expect(all.length).toBeGreaterThan(4)
    const seen: string[] = []
    for (let pageNum = 1; pageNum <= Math.ceil(all.length / 3); pageNum++) {
      const page = await list({ configType: 'Y', orderByColumn: 'configKey', isAsc: 'ascending', pageNum, pageSize: 3 })
      expect(page.total).toBe(all.length)
      seen.push(...page.rows.map((r) => r.configKey))
    }
    expect(seen).toEqual(all)
    expect(await list({ configType: 'Y', orderByColumn: 'configKey', isAsc: 'ascending', pageNum: 99, pageSize: 3 })).toEqual({ rows: [], total: all.length })
    expect(await list({ configType: 'Y', configKey: 'nothing-like-this', pageNum: 1, pageSize: 3 })).toEqual({ rows: [], total: 0 })
  })

  it('keeps shapes apart: other filters, another order', async () => {
    const asc = await list({ orderByColumn: 'configKey', isAsc: 'ascending', pageSize: 100 })
    const desc = await list({ orderByColumn: 'configKey', isAsc: 'descending', pageSize: 100 })
    expect(desc.rows.map((r) => r.configKey)).toEqual(asc.rows.map((r) => r.configKey).reverse())
    expect(asc.total).toBe((await stored({})).length)
    expect((await list({ configKey: 'account', pageSize: 100 })).total).toBe((await stored({ keyPart: 'account' })).length)
    // Rows carry their fields only: the count rides along in the statement, not in the answer.
    expect(Object.keys(asc.rows[0]!)).not.toContain('$total')
  })
})
