import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { JobInfo } from '@velo/shared'
import { afterAll, describe, expect, it } from 'vitest'
import { agreementStanding } from '../src/modules/content/agreements'
import { DELIVERY_BATCH, deliverDueMessages, deliverMessage } from '../src/modules/content/messages'
import { AppError } from '../src/platform/errors'
import { sweepUnheldFiles } from '../src/platform/files/sweep'
import { type Called, createTestApp, limitedUser, type Refusal, snapshot, type TestApp, useTestApp } from './harness'

// App content's own rules (modules/content, docs/app-content.md): pushing system messages to their
// audience (a job, in batches, once), the scheduled delivery, sent messages kept as history;
// agreement versions (overwrite question, publishing, the re-sign floor); one current app version
// per platform; time windows that end after they start; cleaning up the app upload log.
const t = useTestApp()
const db = () => t.app.services.db
type Row = Record<string, unknown>
type Message = Row & { messageId: number }
type Protocol = Row & { protocolId: number }
/** What a preview of an action answers: the facts its dialog shows, and the second question when it asks one. */
type Preview = { facts: Row[]; secondConfirm?: string }
const tables = (...names: string[]) => snapshot(t, ...(names as never[]))
const apps: TestApp[] = []
afterAll(async () => {
  for (const a of apps) await a.close()
})

async function call<T = unknown>(method: string, url: string, body?: unknown, o: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) {
  return t.call<T>({ method: method as 'POST', url: `/api${url}`, token: o.token ?? t.admin, body, lang: o.lang })
}

const ok = <T extends { status: number; msg: string; data: unknown }>(res: T): T => {
  expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
  return res
}

let serial = 0
async function newCountry(): Promise<number> {
  const n = ++serial
  const code = String.fromCharCode(65 + (n % 26)) + String.fromCharCode(65 + ((n * 7) % 26))
  const row = await db()
    .insertInto('sysCountry')
    .values({ code: `${code}`, name: `Land ${n}`, nameEn: `Land ${n}`, timeZone: 'Europe/Amsterdam', createBy: 'test', createTime: new Date().toISOString() })
    .onConflict((oc) => oc.column('code').doNothing())
    .returning('countryId')
    .executeTakeFirst()
  return row ? Number(row.countryId) : newCountry()
}

async function newMember(o: { countryId?: number | null; status?: string; memberId?: number } = {}): Promise<number> {
  const n = ++serial
  const row = await db()
    .insertInto('memMember')
    .values({ ...(o.memberId ? { memberId: o.memberId } : {}), email: `content${n}@example.com`, firstName: 'Con', lastName: `Tent ${n}`, countryId: o.countryId ?? null, status: o.status ?? '0', createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}

async function finished(jobId: number, app: Pick<TestApp, 'call'> = t) {
  for (let i = 0; i < 1500; i++) {
    const job = (await app.call<JobInfo>({ url: `/api/monitor/job/${jobId}`, token: t.admin })).data
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) return job
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`job ${jobId} did not finish`)
}

const later = (ms: number) => new Date(Date.now() + ms).toISOString()
const HOUR = 3_600_000

// ——— System messages ———

async function addMessage(values: Row = {}): Promise<Message> {
  return ok(await call<Message>('POST', '/content/message', { title: `Message ${++serial}`, content: '<p>Hello riders</p>', audience: 'all', sendMode: 'now', ...values })).data
}
const message = async (id: number) => ok(await call<Row & { sentTime: string }>('GET', `/content/message/${id}`)).data
const preview = (id: number, lang?: 'en_US' | 'zh_CN') => call<Preview>('POST', `/content/message/${id}/action/push/preview`, {}, { lang })
const facts = (res: { data: Preview }) => Object.fromEntries(res.data.facts.map((f: Row) => [f.label, f.value]))
const recipients = async (messageId: number) =>
  (await db().selectFrom('cntMessageRecipient').select('memberId').where('messageId', '=', messageId).orderBy('memberId').execute()).map((r) => Number(r.memberId))

async function push(id: number) {
  const res = ok(await call<{ jobId: number }>('POST', `/content/message/${id}/action/push`, {}))
  const job = await finished(res.data.jobId)
  expect(job.state, job.error ?? undefined).toBe('succeeded')
  return job.result as Row
}

const enabledMembers = async () =>
  Number((await db().selectFrom('memMember').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', '0').executeTakeFirstOrThrow()).n)

describe('system messages', () => {
  let country: number
  let inCountry: number[]
  let disabledInCountry: number
  let elsewhere: number[]
  it('sets up members in and out of a country', async () => {
    country = await newCountry()
    inCountry = [await newMember({ countryId: country }), await newMember({ countryId: country }), await newMember({ countryId: country })]
    disabledInCountry = await newMember({ countryId: country, status: '1' })
    elsewhere = [await newMember(), await newMember()]
  })

  it('previews how many enabled members of its audience it reaches, and when', async () => {
    const all = await addMessage({ audience: 'all' })
    expect(facts(ok(await preview(all.messageId)))).toEqual({ Recipients: (await enabledMembers()).toLocaleString('en-US'), Delivered: 'Now' })
    const byCountry = await addMessage({ audience: 'country', countryId: country })
    expect(facts(ok(await preview(byCountry.messageId)))).toEqual({ Recipients: '3', Delivered: 'Now' })
    // Selected members count only while enabled.
    const selected = await addMessage({ audience: 'members', memberIds: [inCountry[0], disabledInCountry, elsewhere[1]] })
    expect(facts(ok(await preview(selected.messageId)))).toMatchObject({ Recipients: '2' })
    const scheduled = await addMessage({ audience: 'country', countryId: country, sendMode: 'scheduled', sendTime: '2099-12-01T08:00:00.000Z' })
    expect(facts(ok(await preview(scheduled.messageId)))).toEqual({ Recipients: '3', Delivered: '2099-12-01 08:00 (UTC)' })
    expect(facts(ok(await preview(scheduled.messageId, 'zh_CN')))).toEqual({ 接收会员数: '3', 送达时间: '2099-12-01 08:00（UTC）' })
    // Its time already past: delivered at once.
    const overdue = await addMessage({ audience: 'all', sendMode: 'scheduled', sendTime: '2020-01-01T00:00:00.000Z' })
    expect(facts(ok(await preview(overdue.messageId))).Delivered).toBe('Now')
  })

  it('refuses an audience without what chooses it on add and modify (400 naming the field), storing nothing', async () => {
    const before = await tables('cntMessage', 'cntMessageMember')
    const cases: [Row, string, string][] = [
      [{ audience: 'country' }, 'countryId', 'Country / region: choose the country whose members receive this message'],
      [{ audience: 'members', memberIds: [] }, 'memberIds', 'Members: choose at least one member to receive this message'],
      [{ audience: 'members' }, 'memberIds', 'Members: choose at least one member to receive this message'],
      [{ sendMode: 'scheduled' }, 'sendTime', 'Send time: give the time this message is sent at'],
    ]
    for (const [values, field, text] of cases) {
      const res = await call<Refusal>('POST', '/content/message', { title: 'Bad', content: '<p>x</p>', ...values })
      expect(res.status, JSON.stringify(values)).toBe(400)
      expect(res.msg).toBe(text)
      expect(res.data.errors.map((e) => e.field)).toEqual([field])
    }
    const zh = await call('POST', '/content/message', { title: 'Bad', content: '<p>x</p>', audience: 'country' }, { lang: 'zh_CN' })
    expect(zh.msg).toBe('国家/地区：请选择接收此消息的会员所在的国家')
    expect(await tables('cntMessage', 'cntMessageMember')).toEqual(before)

    const draft = await addMessage({ audience: 'members', memberIds: [elsewhere[0]] })
    const stored = await tables('cntMessage', 'cntMessageMember')
    for (const [values, field] of [
      [{ audience: 'country' }, 'countryId'],
      [{ memberIds: [] }, 'memberIds'],
      [{ sendMode: 'scheduled' }, 'sendTime'],
    ] as const) {
      const res = await call<Refusal>('PUT', '/content/message', { messageId: draft.messageId, ...values })
      expect(res.status, JSON.stringify(values)).toBe(400)
      expect(res.data.errors.map((e) => e.field)).toEqual([field])
    }
    expect(await tables('cntMessage', 'cntMessageMember')).toEqual(stored)
    // Its stored members still choose it when the audience is not sent again.
    ok(await call('PUT', '/content/message', { messageId: draft.messageId, title: 'Renamed' }))
  })

  it('refuses to push to an audience with no enabled member (400), queueing nothing', async () => {
    const empty = await newCountry()
    await newMember({ countryId: empty, status: '1' })
    const msg = await addMessage({ audience: 'country', countryId: empty })
    const res = await preview(msg.messageId)
    expect(res.status).toBe(400)
    expect(res.msg).toBe(`No enabled member is in the audience of message "${msg.title}": there is no one to push it to`)
    const jobs = await tables('sysJob')
    expect((await call('POST', `/content/message/${msg.messageId}/action/push`, {})).status).toBe(400)
    expect(await tables('sysJob')).toEqual(jobs)
    expect((await message(msg.messageId)).status).toBe('draft')
  })

  it('pushes as a job: one inbox row per enabled recipient, then the message is sent and history', async () => {
    const msg = await addMessage({ audience: 'country', countryId: country })
    expect(await push(msg.messageId)).toEqual({ status: 'sent', delivered: 3 })
    expect(await recipients(msg.messageId)).toEqual([...inCountry].sort((a, b) => a - b))
    const sent = await message(msg.messageId)
    expect(sent).toMatchObject({ status: 'sent', sentCount: 3, readCount: 0 })
    expect(Date.parse(sent.sentTime)).toBeGreaterThan(Date.now() - 60_000)

    // Pushed once only; neither changed nor deleted afterwards, alone or with a draft.
    const again = await call('POST', `/content/message/${msg.messageId}/action/push`, {})
    expect(again.status).toBe(409)
    expect(again.msg).toBe('Cannot Push while it is Sent')
    const stored = await tables('cntMessage', 'cntMessageMember', 'cntMessageRecipient')
    const edit = await call('PUT', '/content/message', { messageId: msg.messageId, title: 'Changed' })
    expect(edit.status).toBe(409)
    expect(edit.msg).toBe(`Cannot modify system message "${msg.title}": it is being sent or has been sent`)
    const draft = await addMessage()
    const withDraft = await call('DELETE', `/content/message/${draft.messageId},${msg.messageId}`)
    expect(withDraft.status).toBe(409)
    expect(withDraft.msg).toBe(`Cannot delete system message "${msg.title}": it is being sent or has been sent`)
    expect((await call('DELETE', `/content/message/${msg.messageId}`, undefined, { lang: 'zh_CN' })).msg).toBe(`不能删除系统消息“${msg.title}”：正在发送或已发送`)
    expect(await tables('cntMessageRecipient')).toEqual({ cntMessageRecipient: stored.cntMessageRecipient })
    expect((await message(draft.messageId)).status).toBe('draft')
    // A draft goes, with its selected members.
    const selected = await addMessage({ audience: 'members', memberIds: [elsewhere[0]] })
    ok(await call('DELETE', `/content/message/${draft.messageId},${selected.messageId}`))
    expect(await db().selectFrom('cntMessageMember').select('memberId').where('messageId', '=', selected.messageId).execute()).toEqual([])
  })

  it('delivers in batches of member ids, moves the progress, stops on cancel and does not double when run again', async () => {
    const spread = await newCountry()
    // Ids a batch apart and more: three INSERT … SELECT statements, and none for the gaps.
    const base = 5_000_000
    const ids = [base, base + DELIVERY_BATCH + 7, base + 5 * DELIVERY_BATCH]
    for (const memberId of ids) await newMember({ countryId: spread, memberId })
    const msg = await addMessage({ audience: 'country', countryId: spread })

    const stop = new AbortController()
    const seen: [number, number][] = []
    const stopped = deliverMessage(db(), msg.messageId, {
      signal: stop.signal,
      progress: (done, total) => {
        seen.push([done, total])
        if (done === 1) stop.abort()
      },
    })
    await expect(stopped).rejects.toThrow()
    expect(await recipients(msg.messageId)).toEqual([ids[0]])
    // Back to draft: it may be pushed again.
    expect((await message(msg.messageId)).status).toBe('draft')

    const progress: [number, number][] = []
    expect(await deliverMessage(db(), msg.messageId, { progress: (done, total) => progress.push([done, total]) })).toBe(3)
    expect(await recipients(msg.messageId)).toEqual(ids)
    expect(progress).toEqual([
      [0, 3],
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
    ])
    expect(await message(msg.messageId)).toMatchObject({ status: 'sent', sentCount: 3 })
  })

  it('lets one of two pushes at once deliver, and refuses the other', async () => {
    const msg = await addMessage({ audience: 'country', countryId: country })
    const outcomes = await Promise.allSettled([deliverMessage(db(), msg.messageId), deliverMessage(db(), msg.messageId)])
    const delivered = outcomes.filter((o) => o.status === 'fulfilled')
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')
    expect(delivered).toHaveLength(1)
    expect(refused).toHaveLength(1)
    expect(refused[0]!.reason).toBeInstanceOf(AppError)
    expect((refused[0]!.reason as AppError).status).toBe(409)
    expect(await recipients(msg.messageId)).toHaveLength(3)
  })

  // Two instances share a PostgreSQL database; SQLite is one server's file, so there it is one instance.
  const instances = process.env.TEST_DATABASE_URL ? 'two server instances' : 'one server'
  it(`delivers a scheduled message when its time comes, once when ticks of ${instances} run at once`, async () => {
    const sendTime = later(HOUR)
    const msg = await addMessage({ audience: 'country', countryId: country, sendMode: 'scheduled', sendTime })
    expect(await push(msg.messageId)).toEqual({ status: 'scheduled', sendTime })
    expect((await message(msg.messageId)).status).toBe('scheduled')
    expect(await deliverDueMessages(db())).toBe(0)
    expect(await recipients(msg.messageId)).toEqual([])
    // Waiting for its time, it may still be changed, and is not pushed again.
    ok(await call('PUT', '/content/message', { messageId: msg.messageId, title: 'Scheduled, renamed' }))
    expect((await message(msg.messageId)).status).toBe('scheduled')
    expect((await call('POST', `/content/message/${msg.messageId}/action/push`, {})).status).toBe(409)

    const other = process.env.TEST_DATABASE_URL ? await createTestApp({}, { databaseUrl: t.databaseUrl }) : t
    if (other !== t) apps.push(other as TestApp)
    const now = new Date(Date.parse(sendTime) + 60_000)
    const ticks = await Promise.all([deliverDueMessages(db(), { now }), deliverDueMessages(other.app.services.db, { now })])
    expect(ticks[0]! + ticks[1]!).toBe(1)
    expect(await recipients(msg.messageId)).toEqual([...inCountry].sort((a, b) => a - b))
    expect(await message(msg.messageId)).toMatchObject({ status: 'sent', sentCount: 3, title: 'Scheduled, renamed' })
    expect(await deliverDueMessages(db(), { now })).toBe(0)
  })

  it('lets a scheduled message be deleted before its time, and takes it back to draft when its schedule is dropped', async () => {
    const a = await addMessage({ sendMode: 'scheduled', sendTime: later(HOUR) })
    await push(a.messageId)
    ok(await call('PUT', '/content/message', { messageId: a.messageId, sendMode: 'now' }))
    expect((await message(a.messageId)).status).toBe('draft')
    const b = await addMessage({ sendMode: 'scheduled', sendTime: later(HOUR) })
    await push(b.messageId)
    ok(await call('DELETE', `/content/message/${b.messageId}`))
    expect((await call('GET', `/content/message/${b.messageId}`)).status).toBe(404)
  })

  it('takes over a delivery left sending by a server that stopped', async () => {
    const msg = await addMessage({ audience: 'country', countryId: country })
    await db()
      .updateTable('cntMessage')
      .set({ status: 'sending', sentTime: new Date(Date.now() - 11 * 60_000).toISOString() })
      .where('messageId', '=', msg.messageId)
      .execute()
    await db().insertInto('cntMessageRecipient').values({ messageId: msg.messageId, memberId: inCountry[0]!, createTime: new Date().toISOString() }).execute()
    expect(await deliverDueMessages(db())).toBe(1)
    expect(await recipients(msg.messageId)).toEqual([...inCountry].sort((a, b) => a - b))
    expect(await message(msg.messageId)).toMatchObject({ status: 'sent', sentCount: 3 })
  })

  it('refuses push to a user without its right (403)', async () => {
    const msg = await addMessage()
    const { token } = await limitedUser(t, { userName: 'contentreader', perms: ['content:message:list', 'content:message:query', 'content:protocol:list', 'content:protocol:query'], dataScope: '1' })
    expect((await call('POST', `/content/message/${msg.messageId}/action/push/preview`, {}, { token })).status).toBe(403)
    expect((await call('POST', `/content/message/${msg.messageId}/action/push`, {}, { token })).status).toBe(403)
    expect((await message(msg.messageId)).status).toBe('draft')
    const p = await addProtocol({ versionCode: '9.9.9', language: 'fr_FR' })
    expect((await call('POST', `/content/protocol/${p.protocolId}/action/publish`, {}, { token })).status).toBe(403)
    expect((await protocol(p.protocolId)).status).toBe('draft')
  })
})

// ——— Agreements ———

async function addProtocol(values: Row = {}, query = ''): Promise<Protocol> {
  return ok(await call<Protocol>('POST', `/content/protocol${query}`, { name: `Agreement ${++serial}`, type: 'privacy', content: '<p>Terms</p>', language: 'en_US', versionCode: '1.0.0', ...values })).data
}
const protocol = async (id: number) => ok(await call<Row & { publishTime: string }>('GET', `/content/protocol/${id}`)).data
const publish = (id: number, body: Row = {}) => call('POST', `/content/protocol/${id}/action/publish`, body)

async function sign(protocolId: number, memberId: number) {
  const p = await db().selectFrom('cntProtocol').select(['type', 'language', 'versionCode']).where('protocolId', '=', protocolId).executeTakeFirstOrThrow()
  await db().insertInto('cntProtocolSignature').values({ protocolId, memberId, ...p, state: 'signed', signTime: new Date().toISOString() }).execute()
  await db().updateTable('cntProtocol').set((eb) => ({ signCount: eb('signCount', '+', 1) })).where('protocolId', '=', protocolId).execute()
  if (p.type === 'privacy') await db().updateTable('memMember').set({ privacyAgreement: 'agreed' }).where('memberId', '=', memberId).execute()
}
const signaturesOf = async (protocolId: number) =>
  (await db().selectFrom('cntProtocolSignature').select('memberId').where('protocolId', '=', protocolId).orderBy('memberId').execute()).map((r) => Number(r.memberId))
const privacyOf = async (memberId: number) => (await db().selectFrom('memMember').select('privacyAgreement').where('memberId', '=', memberId).executeTakeFirstOrThrow()).privacyAgreement

describe('agreements', () => {
  it('asks before overwriting a version, and confirmed replaces it, keeping its signatures and its published state', async () => {
    const first = await addProtocol({ type: 'emailSubscription', language: 'nl_NL', versionCode: '1.0.0' })
    ok(await publish(first.protocolId))
    const members = [await newMember(), await newMember()]
    for (const m of members) await sign(first.protocolId, m)

    const before = await tables('cntProtocol', 'cntProtocolSignature')
    const asked = await call('POST', '/content/protocol', { name: 'Newer text', type: 'emailSubscription', content: '<p>New terms</p>', language: 'nl_NL', versionCode: '1.0.0' })
    expect(asked.status).toBe(409)
    expect(asked.data).toEqual({ confirm: true })
    expect(asked.msg).toBe('Protocol already exists, overwrite? (Email subscription agreement, Dutch, version 1.0.0)')
    const zh = await call('POST', '/content/protocol', { name: 'Newer text', type: 'emailSubscription', content: '<p>x</p>', language: 'nl_NL', versionCode: '1.0.0' }, { lang: 'zh_CN' })
    expect(zh.msg).toBe('协议已存在，是否覆盖？（邮件订阅协议，荷兰语，版本 1.0.0）')
    expect(await tables('cntProtocol', 'cntProtocolSignature')).toEqual(before)

    const replaced = await addProtocol({ name: 'Newer text', type: 'emailSubscription', content: '<p>New terms</p>', language: 'nl_NL', versionCode: '1.0.0' }, '?confirmed=true')
    expect(replaced).toMatchObject({ name: 'Newer text', content: '<p>New terms</p>', status: 'published', signCount: 2 })
    expect(replaced.publishTime).toBe((before.cntProtocol!.map((r) => JSON.parse(r)).find((r: Row) => Number(r.protocolId) === first.protocolId) as Row).publishTime)
    expect((await call('GET', `/content/protocol/${first.protocolId}`)).status).toBe(404)
    expect(await signaturesOf(replaced.protocolId)).toEqual(members.sort((a, b) => a - b))
    expect(await signaturesOf(first.protocolId)).toEqual([])
  })

  it('asks before a modify takes another version’s place, and confirmed moves its signatures to the modified row', async () => {
    const draft = await addProtocol({ language: 'nl_NL', versionCode: '2.0.0' })
    const other = await addProtocol({ language: 'nl_NL', versionCode: '2.1.0' })
    const member = await newMember()
    await sign(other.protocolId, member)
    const asked = await call('PUT', '/content/protocol', { protocolId: draft.protocolId, versionCode: '2.1.0' })
    expect(asked.status).toBe(409)
    expect(asked.data).toEqual({ confirm: true })
    expect((await protocol(draft.protocolId)).versionCode).toBe('2.0.0')
    const res = ok(await call('PUT', '/content/protocol?confirmed=true', { protocolId: draft.protocolId, versionCode: '2.1.0' }))
    expect(res.data).toMatchObject({ versionCode: '2.1.0', signCount: 1 })
    expect((await call('GET', `/content/protocol/${other.protocolId}`)).status).toBe(404)
    expect(await signaturesOf(draft.protocolId)).toEqual([member])
  })

  it('publishes a version in place of the current one of its type and language, which is retired', async () => {
    const v1 = await addProtocol({ language: 'de_DE', versionCode: '1.0.0', name: 'Datenschutz' })
    const none = facts(ok(await call<Preview>('POST', `/content/protocol/${v1.protocolId}/action/publish/preview`, {})))
    expect(none).toEqual({ Replaces: 'None', 'Members who signed this type and language': '0' })
    ok(await publish(v1.protocolId))
    await sign(v1.protocolId, await newMember())
    const otherLanguage = await addProtocol({ language: 'fr_FR', versionCode: '1.0.0' })
    ok(await publish(otherLanguage.protocolId))
    const v2 = await addProtocol({ language: 'de_DE', versionCode: '1.1.0', name: 'Datenschutz' })
    const previewed = ok(await call<Preview>('POST', `/content/protocol/${v2.protocolId}/action/publish/preview`, {}))
    expect(facts(previewed)).toEqual({ Replaces: 'Datenschutz 1.0.0', 'Members who signed this type and language': '1' })
    expect(previewed.data.secondConfirm).toBeUndefined()
    const done = ok(await publish(v2.protocolId))
    expect(done.data).toMatchObject({ status: 'published', retired: 1 })
    expect(await protocol(v2.protocolId)).toMatchObject({ status: 'published' })
    expect(Date.parse((await protocol(v2.protocolId)).publishTime)).toBeGreaterThan(Date.now() - 60_000)
    expect(await protocol(v1.protocolId)).toMatchObject({ status: 'retired' })
    expect(await protocol(otherLanguage.protocolId)).toMatchObject({ status: 'published' })
    expect((await publish(v2.protocolId)).status).toBe(409)
  })

  it('wants a second confirmation for an update, then members who signed an older version count as not signed', async () => {
    // 1.9.0 and 1.10.0: compared as numbers, 1.10.0 is the newer.
    const old = await addProtocol({ language: 'nl_NL', versionCode: '1.9.0', name: 'Privacy NL' })
    ok(await publish(old.protocolId))
    const [a, b] = [await newMember(), await newMember()]
    await sign(old.protocolId, a)
    await sign(old.protocolId, b)
    expect(await agreementStanding(db(), a, 'privacy', 'nl_NL')).toMatchObject({ signed: true, signedVersion: '1.9.0', current: { protocolId: old.protocolId, versionCode: '1.9.0' } })

    const update = await addProtocol({ language: 'nl_NL', versionCode: '1.10.0', name: 'Privacy NL', isUpdate: true })
    const previewed = ok(await call('POST', `/content/protocol/${update.protocolId}/action/publish/preview`, {}))
    const text = 'All users must sign the agreement again: 2 members who signed an earlier version will count as not signed'
    expect(previewed.data).toMatchObject({ warning: text, secondConfirm: text })
    const zh = await call<Preview>('POST', `/content/protocol/${update.protocolId}/action/publish/preview`, {}, { lang: 'zh_CN' })
    expect(zh.data.secondConfirm).toBe('所有用户需重新签署协议：2 名签署过旧版本的会员将视为未签署')

    const before = await tables('cntProtocol', 'memMember')
    const refused = await publish(update.protocolId)
    expect(refused.status).toBe(409)
    expect(refused.msg).toBe(`Needs a second confirmation: ${text}`)
    expect(await tables('cntProtocol', 'memMember')).toEqual(before)

    ok(await publish(update.protocolId, { confirmed: true }))
    expect(await protocol(old.protocolId)).toMatchObject({ status: 'retired' })
    expect([await privacyOf(a), await privacyOf(b)]).toEqual(['disagreed', 'disagreed'])
    expect(await agreementStanding(db(), a, 'privacy', 'nl_NL')).toMatchObject({ signed: false, signedVersion: '1.9.0', current: { versionCode: '1.10.0', isUpdate: true } })

    // Signing the update counts; a later version that is no update keeps it counting.
    await sign(update.protocolId, a)
    expect(await agreementStanding(db(), a, 'privacy', 'nl_NL')).toMatchObject({ signed: true, signedVersion: '1.10.0' })
    const minor = await addProtocol({ language: 'nl_NL', versionCode: '1.10.1', name: 'Privacy NL' })
    ok(await publish(minor.protocolId))
    expect(await agreementStanding(db(), a, 'privacy', 'nl_NL')).toMatchObject({ signed: true, signedVersion: '1.10.0', current: { versionCode: '1.10.1' } })
    expect(await agreementStanding(db(), b, 'privacy', 'nl_NL')).toMatchObject({ signed: false })
    // No update ever published: any signed version counts; none signed, not signed.
    expect(await agreementStanding(db(), a, 'emailSubscription', 'fr_FR')).toEqual({ current: null, signed: false, signedVersion: null })
  })

  it('deletes only drafts, and fixes a published version’s text (a new version instead)', async () => {
    const p = await addProtocol({ language: 'fr_FR', versionCode: '3.0.0', name: 'Confidentialité' })
    ok(await publish(p.protocolId))
    const del = await call('DELETE', `/content/protocol/${p.protocolId}`)
    expect(del.status).toBe(409)
    expect(del.msg).toBe('Cannot delete agreement "Confidentialité": it has been published and members may have signed it: publish a new version instead')
    const edit = await call('PUT', '/content/protocol', { protocolId: p.protocolId, content: '<p>Other</p>' })
    expect(edit.status).toBe(409)
    expect(edit.msg).toBe('Cannot change Agreement content of agreement "Confidentialité": it has been published and members may have signed it: publish a new version instead')
    expect((await call('PUT', '/content/protocol', { protocolId: p.protocolId, content: '<p>Other</p>' }, { lang: 'zh_CN' })).msg).toBe(
      '不能修改协议“Confidentialité”的协议内容：已发布，会员可能已签署；请发布新版本',
    )
    expect((await protocol(p.protocolId)).content).toBe('<p>Terms</p>')
    // Its name and remark are no part of what members signed; the same text sent again changes nothing.
    ok(await call('PUT', '/content/protocol', { protocolId: p.protocolId, name: 'Confidentialité (FR)', content: '<p>Terms</p>' }))
    const draft = await addProtocol({ language: 'fr_FR', versionCode: '3.1.0' })
    ok(await call('PUT', '/content/protocol', { protocolId: draft.protocolId, content: '<p>Draft text</p>' }))
    ok(await call('DELETE', `/content/protocol/${draft.protocolId}`))
  })
})

// ——— App versions ———

async function addVersion<T = { versionId: number }>(values: Row): Promise<Called<T>> {
  return call<T>('POST', '/content/appVersion', { platform: 'ios', versionType: 'normal', downloadUrl: 'https://example.com/app', updateInterval: 24, releaseTime: '2026-11-24T08:00:00.000Z', ...values })
}
const currents = async (platform: string) =>
  (await db().selectFrom('cntAppVersion').select('versionCode').where('platform', '=', platform).where('current', '=', 1).execute()).map((r) => r.versionCode)

describe('app versions', () => {
  it('keeps one current version per platform', async () => {
    const a = ok(await addVersion({ versionCode: '1.0.0', current: true })).data
    ok(await addVersion({ platform: 'android', versionCode: '1.0.0', current: true }))
    const b = ok(await addVersion({ versionCode: '1.1.0', current: true })).data
    expect(await currents('ios')).toEqual(['1.1.0'])
    expect(await currents('android')).toEqual(['1.0.0'])
    ok(await call('PUT', '/content/appVersion', { versionId: a.versionId, current: true }))
    expect(await currents('ios')).toEqual(['1.0.0'])
    ok(await addVersion({ versionCode: '1.2.0', current: false }))
    expect(await currents('ios')).toEqual(['1.0.0'])
    expect((await call<{ current: boolean }>('GET', `/content/appVersion/${b.versionId}`)).data.current).toBe(false)
  })

  it('refuses a version code the platform has (409 naming it) instead of a database error', async () => {
    ok(await addVersion({ platform: 'android', versionCode: '2.0.0' }))
    const before = await tables('cntAppVersion')
    const res = await addVersion<Refusal>({ platform: 'android', versionCode: '2.0.0' })
    expect(res.status).toBe(409)
    expect(res.msg).toBe('Version code: Android version 2.0.0 already exists')
    expect(res.data.errors.map((e) => e.field)).toEqual(['versionCode'])
    expect((await call('POST', '/content/appVersion', { platform: 'android', versionCode: '2.0.0', downloadUrl: 'https://example.com/a', releaseTime: '2026-11-24T08:00:00.000Z' }, { lang: 'zh_CN' })).msg).toBe(
      '版本号：Android 版本 2.0.0 已存在',
    )
    expect(await tables('cntAppVersion')).toEqual(before)
    const other = ok(await addVersion({ platform: 'ios', versionCode: '2.0.0' })).data
    expect((await call('PUT', '/content/appVersion', { versionId: other.versionId, platform: 'android' })).status).toBe(409)
    ok(await call('PUT', '/content/appVersion', { versionId: other.versionId, versionCode: '2.0.0', updateInterval: 12 }))
  })
})

// ——— Activities and banners ———

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex')
async function uploadedImage(): Promise<string> {
  const boundary = `----content${++serial}`
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="banner.png"\r\nContent-Type: image/png\r\n\r\n`),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const res = ok(await t.call<{ fileName: string }>({ method: 'POST', url: '/api/common/upload', token: t.admin, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }))
  return res.data.fileName
}

describe('activities and banners', () => {
  const activity = <T = Refusal>(values: Row) => call<T>('POST', '/content/activity', { name: `Ride out ${++serial}`, description: '<p>Join us</p>', bikeType: 'city', startTime: '2026-12-01T08:00:00.000Z', endTime: '2026-12-02T08:00:00.000Z', ...values })

  it('end after the start (400 naming the end), and an activity’s tag not ending before it starts', async () => {
    const before = await tables('cntActivity', 'cntBanner')
    for (const endTime of ['2026-12-01T08:00:00.000Z', '2026-11-30T08:00:00.000Z']) {
      const res = await activity({ endTime })
      expect(res.status).toBe(400)
      expect(res.msg).toBe('End time must be after the start time')
      expect(res.data.errors.map((e) => e.field)).toEqual(['endTime'])
    }
    expect((await call('POST', '/content/activity', { name: 'x', description: '<p>x</p>', bikeType: 'city', startTime: '2026-12-01T08:00:00.000Z', endTime: '2026-11-01T08:00:00.000Z' }, { lang: 'zh_CN' })).msg).toBe('结束时间必须晚于开始时间')
    const tag = await activity({ tagEndTime: '2026-11-30T08:00:00.000Z' })
    expect(tag.status).toBe(400)
    expect(tag.msg).toBe('Tag end time must not be before the start time')
    expect(tag.data.errors.map((e) => e.field)).toEqual(['tagEndTime'])
    const image = await uploadedImage()
    const banner = await call<Refusal>('POST', '/content/banner', { title: 'Winter', image, startTime: '2026-12-01T08:00:00.000Z', endTime: '2026-12-01T07:00:00.000Z' })
    expect(banner.status).toBe(400)
    expect(banner.data.errors.map((e) => e.field)).toEqual(['endTime'])
    expect(await tables('cntActivity', 'cntBanner')).toEqual(before)

    const a = ok(await activity<{ activityId: number }>({ tagEndTime: '2026-12-01T08:00:00.000Z' })).data
    // A modify is checked on the row as it will be: a start moved past the stored end is refused.
    const moved = await call<Refusal>('PUT', '/content/activity', { activityId: a.activityId, startTime: '2026-12-03T08:00:00.000Z' })
    expect(moved.status).toBe(400)
    expect(moved.data.errors.map((e) => e.field)).toEqual(['endTime'])
    ok(await call('PUT', '/content/activity', { activityId: a.activityId, startTime: '2026-12-01T09:00:00.000Z', tagEndTime: null }))
    // A banner without an end, or without a start, has no window to check.
    const open = ok(await call<{ bannerId: number }>('POST', '/content/banner', { title: 'Open', image, startTime: '2026-12-01T08:00:00.000Z' })).data
    ok(await call('PUT', '/content/banner', { bannerId: open.bannerId, startTime: null, endTime: '2026-01-01T00:00:00.000Z' }))
    expect((await call('PUT', '/content/banner', { bannerId: open.bannerId, startTime: '2026-02-01T00:00:00.000Z' })).status).toBe(400)
  })

  it('saves an activity for every bike type: its optional dictionary field left blank', async () => {
    for (const bikeType of [undefined, '', null]) {
      const saved = ok(await activity<{ bikeType: string }>({ bikeType })).data
      expect(saved.bikeType).toBe('')
    }
    expect((await activity({ bikeType: 'no-such-type' })).status).toBe(400)
  })
})

// ——— App upload log ———

describe('app upload log', () => {
  const DAY = 86_400_000
  async function upload(ageDays: number): Promise<{ uploadId: number; fileName: string; path: string }> {
    const fileName = `file/appUploadLog/test/${++serial}.log`
    const path = t.app.services.storage.resolve(fileName)!
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, 'log line\n')
    const at = new Date(Date.now() - ageDays * DAY).toISOString()
    await db()
      .insertInto('sysFile')
      .values({ fileName, originalName: 'app.log', size: 9, contentType: 'text/plain', sha256: 'x', md5: 'x', crc8: '00', crc8Variant: 'SMBUS', entity: 'appUploadLog', field: 'file', createBy: 'member:1', createTime: at })
      .execute()
    const row = await db()
      .insertInto('monAppUploadLog')
      .values({ deviceId: 'phone-1', logType: 'crash', platform: 'ios', appVersion: '1.0.0', file: fileName, originalName: 'app.log', fileSize: 9, uploadTime: at })
      .returning('uploadId')
      .executeTakeFirstOrThrow()
    return { uploadId: Number(row.uploadId), fileName, path }
  }

  it('cleans up uploads older than N days; the file sweep then deletes their files', async () => {
    const old = await upload(40)
    const recent = await upload(10)
    const today = await upload(0)
    const { token } = await limitedUser(t, { userName: 'logreader', perms: ['monitor:appUploadLog:list', 'monitor:appUploadLog:query'], dataScope: '1' })
    expect((await call('POST', '/monitor/appUploadLog/action/cleanUp', { olderThanDays: 30 }, { token })).status).toBe(403)
    expect((await call('POST', '/monitor/appUploadLog/action/cleanUp', { olderThanDays: -1 })).status).toBe(400)

    const res = ok(await call('POST', '/monitor/appUploadLog/action/cleanUp', { olderThanDays: 30 }))
    expect(res.data).toEqual({ deleted: 1, message: '1 upload older than 30 days was deleted; their files are removed by the hourly file sweep' })
    const zh = ok(await call('POST', '/monitor/appUploadLog/action/cleanUp', { olderThanDays: 30 }, { lang: 'zh_CN' }))
    expect(zh.data).toEqual({ deleted: 0, message: '已删除 0 条早于 30 天的上传记录；其文件由每小时的文件清理删除' })
    // Left out, the input's default (30 days) is what the handler gets, not nothing.
    expect(ok(await call<{ deleted: number }>('POST', '/monitor/appUploadLog/action/cleanUp', {})).data.deleted).toBe(0)
    const left = (await db().selectFrom('monAppUploadLog').select('uploadId').execute()).map((r) => Number(r.uploadId))
    expect(left).not.toContain(old.uploadId)
    expect(left).toEqual(expect.arrayContaining([recent.uploadId, today.uploadId]))

    await sweepUnheldFiles(t.app.services)
    expect(existsSync(old.path)).toBe(false)
    expect(await db().selectFrom('sysFile').select('fileId').where('fileName', '=', old.fileName).execute()).toEqual([])
    // Still held by their rows: kept.
    expect(existsSync(recent.path)).toBe(true)
    expect(existsSync(today.path)).toBe(true)
  })
})
