import ExcelJS from 'exceljs'
import type { DashboardAnswer, Paged } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { deptId, limitedUser, useTestApp } from './harness'

// Dashboards › Satisfaction (modules/dashboard/satisfaction.ts) over a small data set computed by
// hand: stars, CSAT overall and per ISO week, top tags with their CSAT, unanswered feedback, and
// the median and p90 hours to a reply, for the caller's countries and the country filter.
const t = useTestApp()
const db = () => t.app.services.db
const RANGE = 'from=2026-10-05&to=2026-10-18'
const HOUR = 3600_000

const country = async (code: string) => Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)
let serial = 0
async function member(countryId: number | null): Promise<number> {
  const row = await db()
    .insertInto('memMember')
    .values({ email: `sat${++serial}@example.com`, firstName: 'Sat', lastName: String(serial), countryId, createBy: 'app', createTime: '2026-01-01T00:00:00.000Z' })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}
const tagIds: Record<string, number> = {}
/** Feedback as the app writes it, replied `replyAfter` hours later by staff (as the reply action writes a reply). */
async function feedback(memberId: number, stars: number, at: string, replyAfter: number | null, tags: string[] = []) {
  const replyTime = replyAfter === null ? null : new Date(Date.parse(at) + replyAfter * HOUR).toISOString()
  const row = await db()
    .insertInto('memFeedback')
    .values({ memberId, stars, content: `${stars} stars`, createBy: 'app', createTime: at, reply: replyTime ? 'Thanks' : '', replyBy: replyTime ? 'agent' : '', replyTime, replied: replyTime !== null ? 1 : 0 })
    .returning('feedbackId')
    .executeTakeFirstOrThrow()
  for (const tag of tags) await db().insertInto('memFeedbackTagLink').values({ feedbackId: Number(row.feedbackId), tagId: tagIds[tag]! }).execute()
  return Number(row.feedbackId)
}

const get = (query: string, token = t.admin, lang?: 'en_US' | 'zh_CN') => t.call<DashboardAnswer>({ url: `/api/analytics/satisfaction?${query}`, token, lang })
const figure = (res: { data: { figures: { key: string; rows: unknown[][] }[] } }, key: string) => res.data.figures.find((f) => f.key === key)?.rows

let nl = 0
let de = 0
let unanswered6 = 0
beforeAll(async () => {
  ;[nl, de] = [await country('NL'), await country('DE')]
  for (const name of ['Battery', 'App', 'Brakes']) {
    const res = await t.call<{ tagId: number }>({ method: 'POST', url: '/api/member/feedbackTag', token: t.admin, body: { name, orderNum: 1 } })
    tagIds[name] = res.data.tagId
  }
  const [mNl, mDe, mNone] = [await member(nl), await member(de), await member(null)]
  // Week of Monday 5 October.
  await feedback(mNl, 5, '2026-10-05T10:00:00.000Z', 2, ['Battery', 'App'])
  await feedback(mNl, 4, '2026-10-06T10:00:00.000Z', 4, ['Battery'])
  await feedback(mDe, 2, '2026-10-07T10:00:00.000Z', null, ['Brakes'])
  await feedback(mNone, 1, '2026-10-08T10:00:00.000Z', 10, ['Battery'])
  // Week of Monday 12 October; the last one is replied after the range ends, and counts by its own time.
  await feedback(mNl, 3, '2026-10-12T09:00:00.000Z', 1, ['App'])
  unanswered6 = await feedback(mDe, 5, '2026-10-13T09:00:00.000Z', null)
  await feedback(mNl, 4, '2026-10-18T23:00:00.000Z', 30, ['App', 'Brakes'])
  // Just outside the range.
  await feedback(mNl, 1, '2026-10-04T23:59:59.999Z', null, ['Brakes'])
  await feedback(mNl, 5, '2026-10-19T00:00:00.000Z', null, ['Battery'])
})

describe('satisfaction dashboard', () => {
  it('counts every country for a caller who sees all: stars, CSAT, tags, unanswered and hours to reply', async () => {
    const res = await get(RANGE)
    expect(res.status, res.msg).toBe(200)
    expect(res.data.query).toEqual({ from: '2026-10-05', to: '2026-10-18' })
    expect(res.data.refreshedAt).toBeNull()
    expect(res.data.figures.map((f: { key: string }) => f.key)).toEqual(['summary', 'stars', 'tags', 'csatTrend', 'responseTime'])
    // 7 feedback, 4 of them 4–5 stars, 24 stars in all, 2 unanswered; replied after 1, 2, 4, 10, 30 hours.
    expect(figure(res, 'summary')).toEqual([[7, 57.1, 3.43, 2, 4]])
    expect(figure(res, 'stars')).toEqual([
      ['1', 1],
      ['2', 1],
      ['3', 1],
      ['4', 2],
      ['5', 2],
    ])
    // App and Battery tie at 3 and go by name.
    expect(figure(res, 'tags')).toEqual([
      ['App', 3, 66.7],
      ['Battery', 3, 66.7],
      ['Brakes', 2, 50],
    ])
    expect(figure(res, 'csatTrend')).toEqual([
      ['2026-10-05', 50, 4, 1],
      ['2026-10-12', 66.7, 3, 1],
    ])
    // Week 1 replied after 2, 4, 10 h: median 4, p90 at rank 2.8 = 4 + 0.8 × 6. Week 2: 1 and 30 h.
    expect(figure(res, 'responseTime')).toEqual([
      ['2026-10-05', 4, 8.8, 3],
      ['2026-10-12', 15.5, 27.1, 2],
    ])
  })

  it('applies the country filter, and shows empty weeks and a range without feedback as zeros and nulls', async () => {
    const res = await get(`${RANGE}&countryId=${nl}`)
    // NL: 5, 4, 3, 4 stars, all replied (2, 4, 1, 30 h: median between 2 and 4).
    expect(figure(res, 'summary')).toEqual([[4, 75, 4, 0, 3]])
    expect(figure(res, 'tags')).toEqual([
      ['App', 3, 66.7],
      ['Battery', 2, 100],
      ['Brakes', 1, 100],
    ])
    const empty = await get('from=2026-09-21&to=2026-09-27')
    expect(figure(empty, 'summary')).toEqual([[0, null, null, 0, null]])
    expect(figure(empty, 'stars')).toEqual([['1', 0], ['2', 0], ['3', 0], ['4', 0], ['5', 0]])
    expect(figure(empty, 'tags')).toEqual([])
    expect(figure(empty, 'csatTrend')).toEqual([['2026-09-21', null, 0, 0]])
    expect(figure(empty, 'responseTime')).toEqual([['2026-09-21', null, null, 0]])
  })

  it('shows a department-scoped role its region only, and refuses a caller without the right (403)', async () => {
    const hq = await deptId(t, 'Velo HQ')
    const dept = await t.call<{ deptId: number }>({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { parentId: hq, deptName: 'Sales DACH test', orderNum: 9, countryIds: [de] } })
    expect(dept.status, dept.msg).toBe(200)
    const limited = await limitedUser(t, { userName: 'satde', dataScope: '2', deptIds: [dept.data.deptId], perms: ['dashboard:satisfaction:list'] })
    const res = await get(RANGE, limited.token)
    expect(res.status, res.msg).toBe(200)
    // DE only: 2 and 5 stars, neither replied; the unanswered card needs member:feedback:list.
    expect(figure(res, 'summary')).toEqual([[2, 50, 3.5, null, null]])
    expect(figure(res, 'tags')).toEqual([['Brakes', 1, 0]])
    // A country outside the region is nothing, not everything.
    expect(figure(await get(`${RANGE}&countryId=${nl}`, limited.token), 'summary')).toEqual([[0, null, null, null, null]])

    const none = await limitedUser(t, { userName: 'satnone', dataScope: '1', perms: ['dashboard:engagement:list'] })
    expect((await get(RANGE, none.token)).status).toBe(403)
    expect((await t.call({ url: `/api/analytics/satisfaction/export?${RANGE}`, token: limited.token })).status).toBe(403)
  })

  it('counts as unanswered what the feedback list shows with Replied = no, and a reply moves it', async () => {
    const listed = () => t.call<Paged<unknown>>({ method: 'POST', url: '/api/member/feedback/list', token: t.admin, body: { replied: false, createTime: ['2026-10-05', '2026-10-18'], pageSize: 50 } })
    expect((await listed()).data.total).toBe(2)
    const reply = await t.call<{ replied: boolean }>({ method: 'POST', url: `/api/member/feedback/${unanswered6}/action/reply`, token: t.admin, body: { reply: 'Sorry for the wait' } })
    expect(reply.status, reply.msg).toBe(200)
    expect(reply.data.replied).toBe(true)
    expect((await listed()).data.total).toBe(1)
    expect(figure(await get(RANGE), 'summary')![0]![3]).toBe(1)
    await db().updateTable('memFeedback').set({ reply: '', replyBy: '', replyTime: null, replied: 0 }).where('feedbackId', '=', unanswered6).execute()
  })

  it('downloads the figures as .xlsx, one sheet per figure in the caller’s language', async () => {
    const res = await t.call({ url: `/api/analytics/satisfaction/export?${RANGE}`, token: t.admin, lang: 'zh_CN' })
    expect(res.status).toBe(200)
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(res.raw as unknown as ArrayBuffer)
    expect(wb.worksheets.map((w) => w.name)).toEqual(['说明', '所选时段', '星级分布', '热门标签', 'CSAT 趋势', '回复耗时'])
    const rows = (name: string) => {
      const out: unknown[][] = []
      wb.getWorksheet(name)!.eachRow((r) => out.push((r.values as unknown[]).slice(1)))
      return out
    }
    expect(rows('所选时段')).toEqual([
      // A duration's header names its unit: the cells stay numbers a spreadsheet sums.
      ['反馈数', 'CSAT（4–5 星）', '平均星级', '未回复', '回复耗时中位数（小时）'],
      [7, 57.1, 3.43, 2, 4],
    ])
    expect(rows('热门标签')[1]).toEqual(['App', 3, 66.7])
    expect(rows('回复耗时')[2]).toEqual(['2026-10-12', 15.5, 27.1, 2])
    expect(rows('回复耗时')[0]!.slice(1, 3)).toEqual(['中位数（小时）', 'p90（小时）'])
  })
})
