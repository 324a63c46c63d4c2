import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { limitedUser, readWorkbook, type Refusal, snapshot, useTestApp, waitForOperLog } from './harness'

// Members › Feedback and Feedback tags: feedback comes from the app; opening an unread one marks it
// read (the list and the export do not), a reply is kept with who and when, the list filters by
// stars, tag, read state and date, and a tag that feedback carries cannot be deleted.
const t = useTestApp()
const db = () => t.app.services.db
/** Every row of the member tables: what "nothing changed" is checked against. */
const tables = (...names: string[]) => snapshot(t, ...(names as never[]))
const URL = '/api/member/feedback'
type Feedback = { feedbackId: number; readState: string; readBy: string; readTime: string | null; reply: string; replyBy: string; replyTime: string | null; tagIds?: number[] }

let serial = 0
async function newMember(): Promise<number> {
  const n = ++serial
  const row = await db()
    .insertInto('memMember')
    .values({ email: `feedback${n}@example.com`, firstName: 'Fee', lastName: `Back ${n}`, createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}

async function newTag(name: string): Promise<number> {
  const res = await t.call<{ tagId: number }>({ method: 'POST', url: '/api/member/feedbackTag', token: t.admin, body: { name, orderNum: 1 } })
  expect(res.status, res.msg).toBe(200)
  return res.data.tagId
}

/** Feedback as the app writes it: the row and its tags, unread. */
async function newFeedback(o: { memberId: number; stars?: number; content?: string; tags?: number[]; createTime?: string }): Promise<number> {
  const row = await db()
    .insertInto('memFeedback')
    .values({ memberId: o.memberId, stars: o.stars ?? 4, content: o.content ?? 'The app is great', createBy: 'app', createTime: o.createTime ?? new Date().toISOString() })
    .returning('feedbackId')
    .executeTakeFirstOrThrow()
  const feedbackId = Number(row.feedbackId)
  for (const tagId of o.tags ?? []) await db().insertInto('memFeedbackTagLink').values({ feedbackId, tagId }).execute()
  return feedbackId
}

const stored = async (feedbackId: number) =>
  (await db().selectFrom('memFeedback').select(['readState', 'readBy', 'readTime', 'reply', 'replyBy', 'replyTime']).where('feedbackId', '=', feedbackId).executeTakeFirstOrThrow()) as Omit<Feedback, 'feedbackId'>

const open = (feedbackId: number, token = t.admin) => t.call<Feedback>({ url: `${URL}/${feedbackId}`, token })
const reply = <T = unknown>(feedbackId: number, body: unknown, token = t.admin, lang?: 'en_US' | 'zh_CN') => t.call<T>({ method: 'POST', url: `${URL}/${feedbackId}/action/reply`, token, body, lang })
const list = (body: Record<string, unknown>, token = t.admin) => t.call<Paged<Feedback>>({ method: 'POST', url: `${URL}/list`, token, body: { pageSize: 100, ...body } })
const ids = (res: { data: { rows: { feedbackId: number }[] } }) => res.data.rows.map((r) => r.feedbackId).sort((a, b) => a - b)

describe('feedback', () => {
  it('is marked read when opened, once: the first to open it is its reader; the list and the export mark nothing', async () => {
    const memberId = await newMember()
    const feedbackId = await newFeedback({ memberId, content: 'Opened once' })
    const readerA = await limitedUser(t, { userName: 'fbreadera', dataScope: '1', perms: ['member:feedback:list', 'member:feedback:query', 'member:feedback:export'] })
    const readerB = await limitedUser(t, { userName: 'fbreaderb', dataScope: '1', perms: ['member:feedback:list', 'member:feedback:query'] })
    const lister = await limitedUser(t, { userName: 'fblister', dataScope: '1', perms: ['member:feedback:list'] })

    // Listing, exporting, and a user who may not open it leave it unread.
    const listed = await list({ content: 'Opened once' }, readerA.token)
    expect(listed.data.rows).toMatchObject([{ feedbackId, readState: 'unread' }])
    expect((await t.call({ method: 'POST', url: `${URL}/export`, token: readerA.token, body: {} })).status).toBe(200)
    expect((await open(feedbackId, lister.token)).status).toBe(403)
    expect(await stored(feedbackId)).toMatchObject({ readState: 'unread', readBy: '', readTime: null })

    const first = await open(feedbackId, readerA.token)
    expect(first.status, first.msg).toBe(200)
    expect(first.data).toMatchObject({ feedbackId, readState: 'read', readBy: 'fbreadera' })
    expect(Math.abs(new Date(first.data.readTime!).getTime() - Date.now())).toBeLessThan(60_000)
    expect(await stored(feedbackId)).toMatchObject({ readState: 'read', readBy: 'fbreadera', readTime: first.data.readTime })
    // Marking it read is a change: the operation log says who opened it.
    const logged = await waitForOperLog(t, (r) => r.operUrl === `${URL}/${feedbackId}` && r.operName === 'fbreadera')
    expect(logged).toMatchObject({ businessType: '2', status: '0', title: 'Feedback' })

    // Opened again, by someone else: still the first reader, at the first time.
    const again = await open(feedbackId, readerB.token)
    expect(again.data).toMatchObject({ readState: 'read', readBy: 'fbreadera', readTime: first.data.readTime })
    expect(await stored(feedbackId)).toMatchObject({ readBy: 'fbreadera', readTime: first.data.readTime })
  })

  it('opened by two at once has one reader, and both are told the same', async () => {
    const feedbackId = await newFeedback({ memberId: await newMember() })
    const a = await limitedUser(t, { userName: 'fbracea', dataScope: '1', perms: ['member:feedback:query'] })
    const b = await limitedUser(t, { userName: 'fbraceb', dataScope: '1', perms: ['member:feedback:query'] })
    const answers = await Promise.all([open(feedbackId, a.token), open(feedbackId, b.token), open(feedbackId, a.token), open(feedbackId, b.token)])
    const row = await stored(feedbackId)
    expect(['fbracea', 'fbraceb']).toContain(row.readBy)
    for (const res of answers) expect(res.data).toMatchObject({ readState: 'read', readBy: row.readBy, readTime: row.readTime })
  })

  it('keeps a reply with who wrote it and when, and replying marks it read', async () => {
    const feedbackId = await newFeedback({ memberId: await newMember() })
    const agent = await limitedUser(t, { userName: 'fbagent', dataScope: '1', perms: ['member:feedback:list', 'member:feedback:query', 'member:feedback:reply'] })
    const res = await reply(feedbackId, { reply: '  Thanks, fixed in 2.1  ' }, agent.token)
    expect(res.status, res.msg).toBe(200)
    expect(res.msg).toBe('Reply: done')
    expect(res.data).toMatchObject({ feedbackId, reply: 'Thanks, fixed in 2.1', replyBy: 'fbagent', readState: 'read', readBy: 'fbagent' })
    const row = await stored(feedbackId)
    expect(row).toMatchObject({ reply: 'Thanks, fixed in 2.1', replyBy: 'fbagent', readState: 'read', readBy: 'fbagent' })
    expect(Math.abs(new Date(row.replyTime!).getTime() - Date.now())).toBeLessThan(60_000)
    expect(row.readTime).toBe(row.replyTime)
    const log = await waitForOperLog(t, (r) => r.operUrl === `${URL}/${feedbackId}/action/reply`)
    expect(log).toMatchObject({ status: '0', operName: 'fbagent' })

    // Read before, by someone else: a later reply keeps who read it first, and names the new replier.
    const seen = await newFeedback({ memberId: await newMember() })
    await open(seen)
    const later = await reply(seen, { reply: 'We will look into it' }, agent.token)
    expect(later.data).toMatchObject({ reply: 'We will look into it', replyBy: 'fbagent', readBy: 'admin' })
    expect(await stored(seen)).toMatchObject({ replyBy: 'fbagent', readBy: 'admin' })
  })

  it('refuses a blank, missing or too long reply (400) and a role without member:feedback:reply (403), changing nothing', async () => {
    const feedbackId = await newFeedback({ memberId: await newMember() })
    const before = await tables('memFeedback', 'memFeedbackTagLink')
    for (const body of [{ reply: '' }, { reply: '   ' }, {}, { reply: null }, { reply: 42 }, { reply: 'x'.repeat(2001) }]) {
      const res = await reply(feedbackId, body)
      expect(res.status, JSON.stringify(body).slice(0, 40)).toBe(400)
    }
    const blank = await reply<Refusal>(feedbackId, { reply: ' ' }, t.admin, 'zh_CN')
    expect(blank.data.errors.map((e: { field: string }) => e.field)).toEqual(['reply'])
    const reader = await limitedUser(t, { userName: 'fbnoreply', dataScope: '1', perms: ['member:feedback:list', 'member:feedback:query'] })
    expect((await reply(feedbackId, { reply: 'Not mine to say' }, reader.token)).status).toBe(403)
    expect((await reply(999_999_999, { reply: 'Nobody' })).status).toBe(404)
    expect(await tables('memFeedback', 'memFeedbackTagLink')).toEqual(before)
  })

  it('is written by the app only: staff neither add nor modify it, so its stars are never theirs to set', async () => {
    const memberId = await newMember()
    const feedbackId = await newFeedback({ memberId })
    const before = await tables('memFeedback')
    expect((await t.call({ method: 'POST', url: URL, token: t.admin, body: { memberId, stars: 6, content: 'Staff made' } })).status).toBe(404)
    expect((await t.call({ method: 'PUT', url: URL, token: t.admin, body: { feedbackId, stars: 0 } })).status).toBe(404)
    expect(await tables('memFeedback')).toEqual(before)
  })

  it('filters by stars, tag, read state and date, alone and together, in the list, its export and its count', async () => {
    const memberId = await newMember()
    const [noise, battery] = [await newTag('Filter noise'), await newTag('Filter battery')]
    const day = (d: string) => `${d}T10:00:00.000Z`
    const a = await newFeedback({ memberId, stars: 1, tags: [noise, battery], createTime: day('2031-03-01'), content: 'filter A' })
    const b = await newFeedback({ memberId, stars: 5, tags: [battery], createTime: day('2031-03-02'), content: 'filter B' })
    const c = await newFeedback({ memberId, stars: 1, tags: [], createTime: day('2031-03-03'), content: 'filter C' })
    const d = await newFeedback({ memberId, stars: 3, tags: [noise], createTime: day('2031-03-04'), content: 'filter D' })
    await open(b)
    const mine = { content: 'filter ' }

    expect(ids(await list({ ...mine, stars: 1 }))).toEqual([a, c])
    expect(ids(await list({ ...mine, tagIds: battery }))).toEqual([a, b])
    expect(ids(await list({ ...mine, tagIds: noise }))).toEqual([a, d])
    expect(ids(await list({ ...mine, readState: 'read' }))).toEqual([b])
    expect(ids(await list({ ...mine, readState: 'unread' }))).toEqual([a, c, d])
    expect(ids(await list({ ...mine, createTime: ['2031-03-02', '2031-03-03'] }))).toEqual([b, c])
    expect(ids(await list({ ...mine, tagIds: battery, readState: 'unread', stars: 1, createTime: ['2031-03-01', '2031-03-01'] }))).toEqual([a])
    expect(ids(await list({ ...mine, tagIds: noise, stars: 5 }))).toEqual([])

    // The total counts the filtered rows, across pages.
    const paged = await list({ ...mine, tagIds: noise, pageSize: 1, pageNum: 2 })
    expect(paged.data.total).toBe(2)
    expect(paged.data.rows).toHaveLength(1)

    // The export takes the list's filters.
    const exported = await t.call({ method: 'POST', url: `${URL}/export`, token: t.admin, body: { ...mine, tagIds: battery } })
    expect(exported.status, exported.msg).toBe(200)
    const sheet = await readWorkbook(exported.raw)
    const idColumn = sheet.header.indexOf('ID')
    expect(sheet.rows.map((r) => Number(r[idColumn])).sort((x, y) => x - y)).toEqual([a, b])

    // A tag is a number; anything else is refused.
    expect((await list({ tagIds: 'battery' })).status).toBe(400)
    // The list read rows without marking them.
    expect((await stored(a)).readState).toBe('unread')
  })

  it('shows its tags when opened, and deleting it removes its links', async () => {
    const tag = await newTag('Links go with it')
    const feedbackId = await newFeedback({ memberId: await newMember(), tags: [tag] })
    expect((await open(feedbackId)).data.tagIds).toEqual([tag])
    expect((await t.call({ method: 'DELETE', url: `${URL}/${feedbackId}`, token: t.admin })).status).toBe(200)
    expect(await db().selectFrom('memFeedbackTagLink').selectAll().where('feedbackId', '=', feedbackId).execute()).toEqual([])
  })
})

describe('feedback tags', () => {
  it('refuses to delete a tag that feedback carries (409, in the caller’s language), changing nothing; an unused one goes', async () => {
    const used = await newTag('In use')
    const unused = await newTag('Never used')
    const memberId = await newMember()
    const first = await newFeedback({ memberId, tags: [used] })
    await newFeedback({ memberId, tags: [used] })
    const before = await tables('memFeedbackTag', 'memFeedbackTagLink', 'memFeedback')

    const en = await t.call({ method: 'DELETE', url: `/api/member/feedbackTag/${used}`, token: t.admin, lang: 'en_US' })
    expect(en.status).toBe(409)
    expect(en.msg).toBe('Feedback tag "In use" is used by 2 feedback items and cannot be deleted')
    const zh = await t.call({ method: 'DELETE', url: `/api/member/feedbackTag/${used}`, token: t.admin, lang: 'zh_CN' })
    expect(zh.status).toBe(409)
    expect(zh.msg).toBe('反馈标签“In use”已被 2 条反馈使用，不能删除')
    // Together with an unused one: refused whole, the unused one stays too.
    expect((await t.call({ method: 'DELETE', url: `/api/member/feedbackTag/${unused},${used}`, token: t.admin })).status).toBe(409)
    expect(await tables('memFeedbackTag', 'memFeedbackTagLink', 'memFeedback')).toEqual(before)

    expect((await t.call({ method: 'DELETE', url: `/api/member/feedbackTag/${unused}`, token: t.admin })).status).toBe(200)
    // One feedback left with it: the count follows.
    expect((await t.call({ method: 'DELETE', url: `${URL}/${first}`, token: t.admin })).status).toBe(200)
    expect((await t.call({ method: 'DELETE', url: `/api/member/feedbackTag/${used}`, token: t.admin })).msg).toBe('Feedback tag "In use" is used by 1 feedback and cannot be deleted')
  })
})
