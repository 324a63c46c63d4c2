import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { readWorkbook, useTestApp } from './harness'

// The engine's `overdue` list filter of entities with due times, on repair service orders: true keeps
// the orders past their due time in a state that is not final (the home page's card opens them), false
// the others; the list, its counts and its export take it; entities without due times refuse it.
const t = useTestApp()
const db = () => t.app.services.db
const URL = '/api/service/repairOrder'
const MARK = 'overdue-filter@example.com'

/** The registered bike the orders name, as the app registers one. */
let bikeId: number | undefined
async function aBike(): Promise<number> {
  bikeId ??= Number(
    (
      await db()
        .insertInto('bikeBike')
        .values({ frameNumber: 'VL24A000999', category: 'city', modelId: 1, colourId: 1, sizeId: 1, createBy: 'test', createTime: new Date().toISOString() })
        .returning('bikeId')
        .executeTakeFirstOrThrow()
    ).bikeId,
  )
  return bikeId
}

async function order(status: string, dueTime: string | null): Promise<number> {
  const res = await t.call<{ repairOrderId: number }>({
    method: 'POST',
    url: URL,
    token: t.admin,
    body: { serviceType: 'repair', contactEmail: MARK, bikeId: await aBike(), firstName: 'Ove', lastName: 'Due', issueDescription: 'x' },
  })
  expect(res.status, res.msg).toBe(200)
  const id = res.data.repairOrderId as number
  // Moved straight to the state and due time wanted: the steps' own rules are the workflow tests'.
  await db().updateTable('serviceRepairOrder').set({ status, dueTime }).where('repairOrderId', '=', id).execute()
  return id
}

const past = new Date(Date.now() - 3 * 86_400_000).toISOString()
const future = new Date(Date.now() + 3 * 86_400_000).toISOString()
const list = (body: object) => t.call<Paged<{ repairOrderId: number; overdue: boolean }>>({ method: 'POST', url: `${URL}/list`, token: t.admin, body: { pageSize: 100, contactEmail: MARK, ...body } })
const ids = (res: { data: { rows: { repairOrderId: number }[] } }) => res.data.rows.map((r) => r.repairOrderId).sort((a, b) => a - b)

describe('engine list filter: overdue', () => {
  it('keeps the rows past due in a state that is not final, or the others, in the list, counts and export', async () => {
    const late = await order('pending', past)
    const lateProcessing = await order('processing', past)
    const onTime = await order('pending', future)
    const finishedLate = await order('finished', past)
    const noDue = await order('draft', null)

    const overdue = await list({ overdue: true })
    expect(overdue.status, overdue.msg).toBe(200)
    expect(ids(overdue)).toEqual([late, lateProcessing])
    expect(overdue.data.rows.every((r: { overdue: boolean }) => r.overdue)).toBe(true)
    expect(ids(await list({ overdue: false }))).toEqual([onTime, finishedLate, noDue].sort((a, b) => a - b))
    // A URL's text value, and no value at all.
    expect(ids(await list({ overdue: 'true' }))).toEqual([late, lateProcessing])
    expect(ids(await list({}))).toHaveLength(5)
    // Combined with another filter.
    expect(ids(await list({ overdue: true, status: 'processing' }))).toEqual([lateProcessing])

    const counts = await t.call({ method: 'POST', url: `${URL}/counts`, token: t.admin, body: { contactEmail: MARK, overdue: true } })
    expect(counts.status, counts.msg).toBe(200)
    expect(counts.data).toMatchObject({ pending: 1, processing: 1, finished: 0, draft: 0 })

    const exported = await t.call({ method: 'POST', url: `${URL}/export`, token: t.admin, body: { contactEmail: MARK, overdue: true } })
    expect(exported.status).toBe(200)
    const sheet = await readWorkbook(exported.raw)
    expect(sheet.rows).toHaveLength(2)
  })

  it('is refused where it means nothing or is malformed (400)', async () => {
    expect((await list({ overdue: 'soon' })).status).toBe(400)
    const other = await t.call({ method: 'POST', url: '/api/member/feedback/list', token: t.admin, body: { overdue: true } })
    expect(other.status).toBe(400)
  })
})
