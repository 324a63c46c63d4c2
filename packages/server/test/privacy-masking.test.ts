import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { allEntities, entityByKey, maskText, type Paged, PERSONAL_CATEGORIES, personalDataRight, type ResolvedEntity, REVEAL_PERSONAL_DATA } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createDatabase } from '../src/db/database'
import { runDemo } from '../src/demo'
import { ADMIN_PASSWORD, createTestApp, freshDatabase, limitedUser, readWorkbook, snapshot, type TestApp, waitForJobEnd, waitForOperLog } from './harness'

// Riders' personal data (issue 41 §1), over every definition that declares any: on the demo's data,
// a staff user with every right of every page but none of personal data gets each personal value as
// a mask — in lists, details, exports (direct and as a job), pickers and the labels of references —
// where a user holding the rights gets the clear value from the same request; a search on a masked
// field matches the whole value only; a masked value cannot be overwritten; one record's values are
// revealed with their own right and a reason, which the operation log keeps without the values.

type Row = Record<string, unknown>
const PERSONAL = allEntities().filter((e) => e.fields.some((f) => f.personal))
/** Every right a page of the product offers: list, query, export and modify of each definition. */
const PAGE_RIGHTS = [...new Set(allEntities().flatMap((e) => ['list', 'query', 'export', 'edit'].map((a) => `${e.permission}:${a}`)))]
const SEES = [...PERSONAL_CATEGORIES.map(personalDataRight)]

let t: TestApp
let dir: string
let drop: () => Promise<void>
/** Every page right, no personal data. */
let blind: string
/** The same and every category of personal data. */
let sighted: string
/** Blind, and may reveal one record's values. */
let revealer: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'velo-privacy-'))
  const database = await freshDatabase(dir)
  drop = database.drop
  const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD, LOG_LEVEL: 'silent' })
  const { db, dialect } = createDatabase(config.database)
  try {
    await runDemo({ db, dialect, config }, { seed: 3, scale: 0.01, force: false, end: new Date() })
  } finally {
    await db.destroy()
  }
  t = await createTestApp({ STORAGE_DIR: join(dir, 'files') }, { databaseUrl: database.url })
  // The demo writes no telemetry (devices report it live): a few positions of one of its boxes.
  const device = await t.app.services.db.selectFrom('iotDevice').select('deviceId').where('latitude', 'is not', null).orderBy('deviceId').executeTakeFirstOrThrow()
  await t.app.services.db
    .insertInto('iotTelemetry')
    .values([0, 1, 2].map((i) => ({ deviceId: device.deviceId, receivedAt: new Date(Date.now() - i * 60_000).toISOString(), battery: 80 - i, speed: 18.5, latitude: 52.371234 + i / 1000, longitude: 4.901234 + i / 1000 })))
    .execute()
  // Nor geofences: one of its boxes left a fence, and the warning keeps where (its location fields).
  const now = new Date().toISOString()
  await t.app.services.db
    .insertInto('iotAlarm')
    .values({ deviceId: device.deviceId, type: 'geofence', code: '1', severity: 'major', state: 'activeUnack', detail: 'left Depot Amsterdam at 03:12 UTC', latitude: 52.381234, longitude: 4.911234, count: 1, startTime: now, lastTime: now, ackBy: '', ackReason: '', clearBy: '', clearReason: '' })
    .execute()
  blind = (await limitedUser(t, { userName: 'blind', perms: PAGE_RIGHTS, dataScope: '1' })).token
  sighted = (await limitedUser(t, { userName: 'sighted', perms: [...PAGE_RIGHTS, ...SEES], dataScope: '1' })).token
  revealer = (await limitedUser(t, { userName: 'revealer', perms: [...PAGE_RIGHTS, REVEAL_PERSONAL_DATA], dataScope: '1' })).token
}, 120_000)

afterAll(async () => {
  await t?.close()
  await drop?.()
  rmSync(dir, { recursive: true, force: true })
})

const list = (e: ResolvedEntity, token: string, body: Row = {}) => t.call<Paged<Row>>({ method: 'POST', url: `/api${e.path}/list`, token, body: { pageNum: 1, pageSize: 100, ...body } })

/** Whether a value is one (not null, not blank). */
const present = (v: unknown) => v !== null && v !== undefined && v !== ''

/** What the blind user must get for a clear value: the text kinds' partial mask, else null. */
function expectedMask(kind: string, clear: unknown): unknown {
  if (['email', 'phone', 'text'].includes(kind) && typeof clear === 'string') return maskText(kind, clear)
  return null
}

/** Clear values (texts, positions) long enough that finding one in an answer cannot be chance. */
function telling(rows: readonly Row[], e: ResolvedEntity): string[] {
  const out = new Set<string>()
  for (const r of rows) {
    for (const f of e.fields) {
      const v = r[f.name]
      if (!f.personal || ['image', 'file'].includes(f.kind)) continue
      if (typeof v === 'string' && v.length >= 6) out.add(v)
      if (typeof v === 'number' && String(v).length >= 7) out.add(String(v))
    }
  }
  return [...out]
}

describe('personal data over every definition that declares it', () => {
  it('is declared on the riders’ data, and every such definition has demo rows holding it', async () => {
    expect(PERSONAL.map((e) => e.key).sort()).toEqual(['appUploadLog', 'feedback', 'iotAlarm', 'iotDevice', 'iotTelemetry', 'member', 'repairOrder'])
    for (const e of PERSONAL) {
      const page = await list(e, sighted)
      expect(page.status, `${e.key}: ${page.msg}`).toBe(200)
      const holding = page.data.rows.filter((r) => e.fields.some((f) => f.personal && present(r[f.name])))
      expect(holding.length, `${e.key}: no demo row holds a personal value, so nothing here would test its mask`).toBeGreaterThan(0)
    }
  })

  it.each(PERSONAL.map((e) => [e.key, e] as const))('%s: masked in the list and in each row’s details, clear with the rights', async (_key, e) => {
    const [clear, masked] = await Promise.all([list(e, sighted), list(e, blind)])
    expect(masked.status, masked.msg).toBe(200)
    expect(masked.data.total).toBe(clear.data.total)
    const byId = new Map(masked.data.rows.map((r) => [r[e.idField], r]))
    for (const c of clear.data.rows) {
      const m = byId.get(c[e.idField])!
      expect(m, `${e.key} ${String(c[e.idField])} listed for both`).toBeDefined()
      expect(c.masked ?? [], 'nothing is masked for a holder of the rights').toEqual([])
      const hidden: string[] = []
      for (const f of e.fields) {
        if (!f.personal || !(f.name in c)) continue
        if (present(c[f.name])) hidden.push(f.name)
        expect(m[f.name], `${e.key}.${f.name}`).toEqual(present(c[f.name]) ? expectedMask(f.kind, c[f.name]) : c[f.name])
      }
      // Named only when something was masked.
      expect(m.masked, `${e.key} ${String(c[e.idField])} names what it masks`).toEqual(hidden.length ? hidden : undefined)
      // What is not personal is the same for both.
      for (const f of e.fields) if (!f.personal && f.name in c && f.kind !== 'reference') expect(m[f.name], `${e.key}.${f.name}`).toEqual(c[f.name])
    }
    // The raw answer carries none of the clear texts.
    const raw = masked.raw.toString()
    for (const value of telling(clear.data.rows, e)) expect(raw, `${e.key}: a clear value in the list`).not.toContain(JSON.stringify(value).slice(1, -1))

    if (!e.operations.includes('get')) return
    for (const c of clear.data.rows.filter((r) => e.fields.some((f) => f.personal && present(r[f.name]))).slice(0, 3)) {
      const id = String(c[e.idField])
      const [one, other] = await Promise.all([t.call<Row>({ url: `/api${e.path}/${id}`, token: blind }), t.call<Row>({ url: `/api${e.path}/${id}`, token: sighted })])
      expect(one.status, one.msg).toBe(200)
      for (const f of e.fields) if (f.personal && f.name in other.data) expect(one.data[f.name], `${e.key} ${id} ${f.name}`).toEqual(present(other.data[f.name]) ? expectedMask(f.kind, other.data[f.name]) : other.data[f.name])
      for (const value of telling([other.data], e)) expect(one.raw.toString()).not.toContain(JSON.stringify(value).slice(1, -1))
    }
  })

  it.each(PERSONAL.filter((e) => e.operations.includes('export')).map((e) => [e.key, e] as const))('%s: masked in its export, direct and as a job', async (_key, e) => {
    const clear = await list(e, sighted)
    const values = telling(clear.data.rows, e)
    if (!values.length) return
    const [mine, theirs] = await Promise.all([
      t.call({ method: 'POST', url: `/api${e.path}/export`, token: blind, body: {} }),
      t.call({ method: 'POST', url: `/api${e.path}/export`, token: sighted, body: {} }),
    ])
    const text = (raw: Buffer) => readWorkbook(raw).then((w) => JSON.stringify(w.rows))
    const [blindText, sightedText] = await Promise.all([text(mine.raw), text(theirs.raw)])
    expect(values.some((v) => sightedText.includes(JSON.stringify(v).slice(1, -1))), 'the clear export holds them').toBe(true)
    for (const v of values) expect(blindText, `${e.key}: a clear value in the export`).not.toContain(JSON.stringify(v).slice(1, -1))

    const queued = await t.call<{ jobId: number }>({ method: 'POST', url: `/api${e.path}/export/job`, token: blind, body: {} })
    expect(queued.status, queued.msg).toBe(200)
    const job = await waitForJobEnd(t.app.services.db, queued.data.jobId)
    expect(job.state).toBe('succeeded')
    const file = await t.call({ url: `/api/monitor/job/${queued.data.jobId}/file`, token: blind })
    expect(file.status).toBe(200)
    const jobText = await text(file.raw)
    for (const v of values) expect(jobText, `${e.key}: a clear value in the export job's file`).not.toContain(JSON.stringify(v).slice(1, -1))
  })

  it('masks the member named by a reference (a ride’s, a feedback’s, a bike’s) and the member picker', async () => {
    const referrers = allEntities().filter((e) => e.operations.includes('list') && e.fields.some((f) => f.kind === 'reference' && f.entity === 'member'))
    expect(referrers.length).toBeGreaterThan(3)
    for (const e of referrers) {
      const [clear, masked] = await Promise.all([list(e, sighted), list(e, blind)])
      expect(masked.status, `${e.key}: ${masked.msg}`).toBe(200)
      const byId = new Map(masked.data.rows.map((r) => [r[e.idField], r]))
      for (const f of e.fields.filter((f) => f.kind === 'reference' && f.entity === 'member')) {
        for (const c of clear.data.rows) {
          const label = c[`${f.name}Label`]
          if (typeof label !== 'string') continue
          expect(label, `${e.key}.${f.name}: the holder sees the e-mail`).toContain('@')
          expect(byId.get(c[e.idField])![`${f.name}Label`], `${e.key}.${f.name}`).toBe(maskText('email', label))
        }
      }
    }
    const [clear, masked] = await Promise.all([t.call<{ value: number; label: string }[]>({ url: '/api/member/member/options', token: sighted }), t.call<{ value: number; label: string }[]>({ url: '/api/member/member/options', token: blind })])
    expect(masked.data.map((o) => o.value)).toEqual(clear.data.map((o) => o.value))
    expect(masked.data.map((o) => o.label)).toEqual(clear.data.map((o) => maskText('email', o.label)))
    // A part of a name finds nothing; the whole name finds its member, still masked.
    const email = clear.data[0]!.label
    const part = await t.call<{ value: number; label: string }[]>({ url: `/api/member/member/options?keyword=${encodeURIComponent(email.slice(1, 6))}`, token: blind })
    expect(part.data).toEqual([])
    const whole = await t.call<{ value: number; label: string }[]>({ url: `/api/member/member/options?keyword=${encodeURIComponent(email.toUpperCase())}`, token: blind })
    expect(whole.data).toEqual([{ value: clear.data[0]!.value, label: maskText('email', email) }])
  })

  it('masks a position inside a device message’s payload, keeping the rest of it', async () => {
    const db = t.app.services.db
    const device = await db.selectFrom('iotDevice').select(['deviceId', 'sn']).where('latitude', 'is not', null).orderBy('deviceId').executeTakeFirstOrThrow()
    const payload = JSON.stringify({ v: 1, battery: 64, speed: 21.5, gps: { lat: 52.379189, lng: 4.899431, sats: 9 } })
    await db.insertInto('iotMessage').values({ deviceId: device.deviceId, direction: 'up', kind: 'telemetry', topic: `velo/v1/${device.sn}/up/telemetry`, payload, createTime: new Date().toISOString() }).execute()
    const message = entityByKey('iotMessage')
    const [clear, masked] = await Promise.all([list(message, sighted, { deviceId: device.deviceId }), list(message, blind, { deviceId: device.deviceId })])
    const seen = clear.data.rows.find((r) => String(r.payload).includes('52.379189'))!
    expect(seen, 'the holder of the right reads the position').toBeDefined()
    const hidden = masked.data.rows.find((r) => r.messageId === seen.messageId)!
    expect(JSON.parse(String(hidden.payload))).toEqual({ v: 1, battery: 64, speed: 21.5, gps: '•••' })
    expect(masked.raw.toString()).not.toContain('52.379189')
    const exported = await t.call({ method: 'POST', url: '/api/iot/message/export', token: blind, body: { deviceId: device.deviceId } })
    expect(JSON.stringify((await readWorkbook(exported.raw)).rows)).not.toContain('52.379189')
  })

  it('finds a masked field by its whole value only: a part finds nothing, in the list and in the export', async () => {
    const member = entityByKey('member')
    const clear = await list(member, sighted)
    const one = clear.data.rows.find((r) => typeof r.email === 'string')!
    const email = one.email as string
    const part = email.slice(1, email.indexOf('@'))
    expect((await list(member, sighted, { email: part })).data.total, 'a holder of the right searches by a part').toBeGreaterThan(0)
    expect((await list(member, blind, { email: part })).data.total).toBe(0)
    const whole = await list(member, blind, { email: email.toUpperCase() })
    expect(whole.data.rows.map((r) => r.memberId)).toEqual([one.memberId])
    const service = entityByKey('repairOrder')
    const order = (await list(service, sighted)).data.rows.find((r) => typeof r.contactEmail === 'string')!
    const counts = await t.call<Record<string, number>>({ method: 'POST', url: '/api/service/repairOrder/counts', token: blind, body: { contactEmail: String(order.contactEmail).slice(1, 5) } })
    expect(counts.status, counts.msg).toBe(200)
    expect(Object.values(counts.data).every((n) => n === 0), 'counts of a part reveal nothing').toBe(true)
  })

  it('refuses to overwrite a value the user sees masked (403), changing nothing; the rest may be modified', async () => {
    const member = entityByKey('member')
    const row = (await list(member, sighted)).data.rows[0]!
    const before = await snapshot(t, 'memMember')
    const refused = await t.call({ method: 'PUT', url: '/api/member/member', token: blind, body: { memberId: row.memberId, firstName: 'Overwritten' } })
    expect(refused.status).toBe(403)
    expect(refused.msg).toContain('First name')
    expect(await snapshot(t, 'memMember')).toEqual(before)
    const zh = await t.call({ method: 'PUT', url: '/api/member/member', token: blind, lang: 'zh_CN', body: { memberId: row.memberId, phone: '+31 6 1234 5678' } })
    expect(zh.status).toBe(403)
    expect(zh.msg).toContain('手机号码')
    const allowed = await t.call<Row>({ method: 'PUT', url: '/api/member/member', token: blind, body: { memberId: row.memberId, remark: 'called back' } })
    expect(allowed.status, allowed.msg).toBe(200)
    expect(allowed.data.remark).toBe('called back')
    expect(allowed.data.email).toBe(maskText('email', row.email as string))
  })

  it('keeps no personal value in the operation log: a modify and an export’s search are logged with them replaced', async () => {
    const member = entityByKey('member')
    const row = (await list(member, sighted)).data.rows[0]!
    const phone = '+31 6 1357 9246'
    const changed = await t.call<Row>({ method: 'PUT', url: '/api/member/member', token: sighted, body: { memberId: row.memberId, phone, remark: 'new phone' } })
    expect(changed.status, changed.msg).toBe(200)
    expect(changed.data.phone).toBe(phone)
    const log = await waitForOperLog(t, (r) => r.operUrl === '/api/member/member' && r.operName === 'sighted' && r.operParam.includes('new phone'))
    expect(log.operParam).not.toContain('1357')
    expect(JSON.parse(log.operParam).body).toMatchObject({ memberId: row.memberId, phone: '•••', remark: 'new phone' })
    const exported = await t.call({ method: 'POST', url: '/api/member/member/export', token: sighted, body: { email: row.email } })
    expect(exported.status).toBe(200)
    const searched = await waitForOperLog(t, (r) => r.operUrl === '/api/member/member/export' && r.operName === 'sighted')
    expect(searched.operParam).not.toContain(String(row.email))
  })

  it('reveals one record’s values with its right and a reason, which the log keeps without the values', async () => {
    const member = entityByKey('member')
    const row = (await list(member, sighted)).data.rows.find((r) => present(r.phone) && present(r.email))!
    const id = row.memberId as number
    const url = `/api/member/member/${id}/reveal`
    expect((await t.call({ method: 'POST', url, token: blind, body: { reason: 'Rider called about a refund' } })).status, 'without the right').toBe(403)
    const short = await t.call({ method: 'POST', url, token: revealer, body: { reason: 'why' } })
    expect(short.status, 'a reason of a word or two').toBe(400)
    const shown = await t.call<{ values: Row }>({ method: 'POST', url, token: revealer, body: { reason: 'Rider called about a refund' } })
    expect(shown.status, shown.msg).toBe(200)
    const full = (await t.call<Row>({ url: `/api/member/member/${id}`, token: sighted })).data
    const expected = Object.fromEntries(member.fields.filter((f) => f.personal).map((f) => [f.name, full[f.name] ?? null]))
    expect(shown.data.values).toEqual(expected)
    const log = await waitForOperLog(t, (r) => r.operUrl === url && r.status === '0')
    expect(log.operName).toBe('revealer')
    expect(log.operParam).toContain('Rider called about a refund')
    for (const value of [row.email, row.phone, full.firstName, full.lastName].filter((v): v is string => typeof v === 'string' && v.length > 3)) {
      expect(log.operParam).not.toContain(value)
      expect(log.jsonResult).not.toContain(value)
    }
    // Out of the revealer's data scope, or past the last id: nothing revealed.
    expect((await t.call({ method: 'POST', url: '/api/member/member/999999/reveal', token: revealer, body: { reason: 'Rider called about a refund' } })).status).toBe(404)
  })
})
