import { existsSync } from 'node:fs'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { entityByKey, type FieldDef, isSecretColumn, type JobInfo, labelWithUnit, type ResolvedEntity, SEE_ALL_PERSONAL_DATA, storedColumns } from '@velo/shared'
import { filled } from './definition-rows'
import ExcelJS from 'exceljs'
import { unzipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { hashPassword } from '../src/platform/auth/passwords'
import { packagedEntities, SESSIONS_FILE, SUMMARY_FILE, writeDataPackage } from '../src/platform/privacy/data-package'
import { riderEntities } from '../src/platform/privacy/rider-rows'
import { createTestApp, limitedUser, type TestApp, waitForJobEnd } from './harness'

// A rider's data package (GDPR Art. 15, 20; docs/privacy.md › Data package), generated over every
// definition that declares how its rows belong to a rider: two riders get rows in each such table
// (filled from the definitions, not by hand), and the package of one holds exactly theirs, in a JSON
// file per packaged entity, with their stored files and a readable summary, and nothing of the
// other's nor any secret. Staff need the action's right and every personal-data right; the file is
// its starter's (and admins'); a rider asks for theirs in the app and only they download it; either
// is deleted after 7 days, even when finished jobs are kept longer.

type Row = Record<string, unknown>
const APP = '/api/app/v1'
const PASSWORD = 'Rider2026!'
const DAY_MS = 86_400_000

let t: TestApp
let admin: string

/** What one planted rider holds: their ids per entity and the files their rows name. */
interface Planted {
  memberId: number
  email: string
  ids: Map<string, number[]>
  /** Rows of their bike's device from before it was theirs: a previous owner's, never in their package. */
  before: Map<string, number[]>
  files: { entity: string; field: string; stored: string; bytes: Buffer }[]
}

let a: Planted
let b: Planted
let serial = 0

const db = () => t.app.services.db

async function insert(e: ResolvedEntity, values: Row): Promise<number> {
  const row = await dynamicDb(db()).insertInto(e.table).values(values).returning(e.idField).executeTakeFirstOrThrow()
  return Number(row[e.idField])
}

const png = (tag: string) => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(`a picture of ${tag} ${++serial}`)])

/** Stores a file for each image and file field of the entity: the values to set, and what was stored. */
async function filesFor(e: ResolvedEntity, tag: string, planted: Planted): Promise<Row> {
  const set: Row = {}
  for (const f of e.fields) {
    if (f.kind !== 'image' && f.kind !== 'file') continue
    const bytes = png(`${tag} ${e.key}.${f.name}`)
    const stored = await t.app.services.storage.save(`upload/test-${tag}`, 'png', bytes)
    planted.files.push({ entity: e.key, field: f.name, stored, bytes })
    set[f.name] = stored
  }
  return set
}

/**
 * A rider with rows in every rider entity: their member row, a device fitted to their bike (bound an
 * hour ago), the bike, and two rows of each other entity linked to them as its declaration says (the
 * member, their e-mail, their device since the bind), plus a device row from before the bind.
 */
async function plantRider(tag: string): Promise<Planted> {
  const planted: Planted = { memberId: 0, email: `${tag}-${Date.now()}@example.com`, ids: new Map(), before: new Map(), files: [] }
  const add = (key: string, id: number, into = planted.ids) => into.set(key, [...(into.get(key) ?? []), id])
  const member = entityByKey('member')
  const memberId = await insert(member, filled(member, tag, {}, { email: planted.email, firstName: 'Ada', lastName: tag, status: '0', ...(await filesFor(member, tag, planted)) }))
  await db().updateTable('memMember').set({ passwordHash: await hashPassword(PASSWORD) }).where('memberId', '=', memberId).execute()
  planted.memberId = memberId
  add('member', memberId)
  const device = entityByKey('iotDevice')
  const deviceId = await insert(device, filled(device, tag, {}, await filesFor(device, tag, planted)))
  add('iotDevice', deviceId)
  const bound = new Date(Date.now() - 3600_000)
  const bike = entityByKey('bike')
  const bikeId = await insert(bike, filled(bike, tag, { member: memberId, iotDevice: deviceId }, { memberId, iotDeviceId: deviceId, boundTime: bound.toISOString(), ...(await filesFor(bike, tag, planted)) }))
  add('bike', bikeId)
  const refs = { member: memberId, iotDevice: deviceId, bike: bikeId }

  for (const { entity: e, rider } of riderEntities()) {
    if (['member', 'iotDevice', 'bike'].includes(e.key)) continue
    const by = rider.by
    for (let i = 0; i < 2; i++) {
      const set: Row = await filesFor(e, tag, planted)
      if ('email' in by) set[by.email] = planted.email
      if ('device' in by) {
        set[by.device] = deviceId
        if (by.since) set[by.since] = new Date(bound.getTime() + (i + 1) * 60_000).toISOString()
      }
      const through = 'member' in by && e.fieldMap.get(by.member)?.kind === 'referenceMany' ? (e.fieldMap.get(by.member) as FieldDef & { kind: 'referenceMany' }).through : undefined
      if ('member' in by && !through) set[by.member] = memberId
      const id = await insert(e, filled(e, tag, refs, set))
      if (through) await dynamicDb(db()).insertInto(through.table).values({ [through.from]: id, [through.to]: memberId }).execute()
      add(e.key, id)
    }
    // The device's rows from before the bike was theirs.
    if ('device' in by && by.since) add(e.key, await insert(e, filled(e, tag, refs, { [by.device]: deviceId, [by.since]: new Date(bound.getTime() - DAY_MS).toISOString() })), planted.before)
  }
  return planted
}

/** The secret columns of an entity (a password's hash, a device's key): never in a package. */
const secretsOf = (e: ResolvedEntity) => storedColumns(e).flatMap((c) => (isSecretColumn(c) ? [c.name] : []))

const entityFiles = () => packagedEntities().map((e) => `${e.key}.json`)

const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8')
const rowsOf = (zip: Record<string, Uint8Array>, e: ResolvedEntity): Row[] => (JSON.parse(text(zip[`${e.key}.json`])) as { rows: Row[] }).rows
const idsOf = (rows: Row[], e: ResolvedEntity) => rows.map((r) => Number(r[e.idField])).sort((x, y) => x - y)
const sorted = (ids: number[] | undefined) => [...(ids ?? [])].sort((x, y) => x - y)

async function workbookOf(bytes: Uint8Array | undefined) {
  const wb = new ExcelJS.Workbook()
  await wb.xlsx.load(Buffer.from(bytes!) as unknown as ArrayBuffer)
  return wb
}

/** Runs the staff action with this token; answers the finished job's row. */
async function staffPackage(token: string, memberId: number) {
  const res = await t.call<JobInfo>({ method: 'POST', url: `/api/member/member/${memberId}/action/dataPackage`, token, body: {} })
  expect(res.status, res.msg).toBe(200)
  const row = await waitForJobEnd(db(), res.data.jobId, 60_000)
  expect(row.state, row.error ?? '').toBe('succeeded')
  return row
}

const jobCount = async () => Number((await db().selectFrom('sysJob').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)

async function appSignIn(email: string): Promise<string> {
  const res = await t.call<{ token: string }>({ method: 'POST', url: `${APP}/auth/login`, body: { email, password: PASSWORD } })
  expect(res.status, res.msg).toBe(200)
  return res.data.token
}

beforeAll(async () => {
  // Finished jobs kept longer than a package: its 7 days must hold anyway.
  t = await createTestApp({ JOB_RETENTION_DAYS: '30' })
  admin = await t.login()
  a = await plantRider('pkga')
  b = await plantRider('pkgb')
  // Pages of positions: more than one page of A's device, many at the same instant, so a page ends
  // amid rows of one time and the next must go on after the last id, with none twice and none lost.
  const telemetry = entityByKey('iotTelemetry')
  const deviceId = a.ids.get('iotDevice')![0]!
  const start = Date.now() - 1800_000
  for (let chunk = 0; chunk < 5; chunk++) {
    const values = Array.from({ length: 500 }, (_, i) => ({ deviceId, receivedAt: new Date(start + Math.floor((chunk * 500 + i) / 700) * 1000).toISOString() }))
    const rows = await dynamicDb(db()).insertInto(telemetry.table).values(values).returning(telemetry.idField).execute()
    a.ids.set('iotTelemetry', [...a.ids.get('iotTelemetry')!, ...rows.map((r) => Number(r[telemetry.idField]))])
  }
  // The language A last wrote to us in: the staff-made package's.
  await db().updateTable('memFeedback').set({ language: 'de_DE' }).where('memberId', '=', a.memberId).execute()
}, 120_000)

afterAll(async () => {
  await t?.close()
})

describe('the staff-made package', () => {
  let zip: Record<string, Uint8Array>
  let jobId: number

  beforeAll(async () => {
    const row = await staffPackage(admin, a.memberId)
    jobId = row.jobId
    const file = await t.call({ url: `/api/monitor/job/${jobId}/file`, token: admin })
    expect(file.status).toBe(200)
    expect(String(file.headers['content-disposition'])).toContain('.zip')
    zip = unzipSync(new Uint8Array(file.raw))
  }, 120_000)

  it('holds a JSON file for each packaged rider entity, no more (a new one is covered without a line here), and the sessions and summary', () => {
    const packaged = riderEntities().filter((r) => r.rider.package !== false)
    expect(packaged.length).toBeGreaterThan(5)
    const json = Object.keys(zip).filter((n) => n.endsWith('.json') && !n.includes('/'))
    expect(json.sort()).toEqual([...packaged.map((r) => `${r.entity.key}.json`), SESSIONS_FILE].sort())
    expect(entityFiles().sort()).toEqual(packaged.map((r) => `${r.entity.key}.json`).sort())
    expect(zip[SUMMARY_FILE]).toBeDefined()
    // A message's list of chosen members says `package: false`: planted, and not in it.
    for (const r of riderEntities().filter((x) => x.rider.package === false)) expect(zip[`${r.entity.key}.json`], r.entity.key).toBeUndefined()
  })

  it.each(packagedEntities().map((e) => [e.key, e] as const))('%s: exactly the rider’s rows, nobody else’s, no secret', (key, e) => {
    const rows = rowsOf(zip, e)
    expect(idsOf(rows, e), `${key}: the rider's rows`).toEqual(sorted(a.ids.get(key)))
    const ids = new Set(idsOf(rows, e))
    for (const id of b.ids.get(key) ?? []) expect(ids.has(id), `${key} ${id} is the other rider's`).toBe(false)
    for (const id of a.before.get(key) ?? []) expect(ids.has(id), `${key} ${id} is from before the bike was theirs`).toBe(false)
    for (const secret of secretsOf(e)) for (const r of rows) expect(r, `${key}.${secret}`).not.toHaveProperty(secret)
  })

  it('holds no password hash and nothing of the other rider anywhere', async () => {
    const hashes = await db().selectFrom('memMember').select('passwordHash').where('memberId', 'in', [a.memberId, b.memberId]).execute()
    const all = Object.values(zip).map((bytes) => text(bytes)).join('\n')
    for (const h of hashes) expect(all).not.toContain(h.passwordHash!)
    expect(all).not.toContain(b.email)
    expect(all).toContain(a.email)
  })

  it('holds the rider’s stored files under files/<entity>/<field>/, and not the other’s', () => {
    expect(a.files.length).toBeGreaterThan(3)
    const zipped = Object.keys(zip).filter((n) => n.startsWith('files/'))
    for (const f of a.files) {
      const path = `files/${f.entity}/${f.field}/${f.stored.split('/').at(-1)}`
      expect(zip[path], path).toBeDefined()
      expect(Buffer.from(zip[path]!).equals(f.bytes), path).toBe(true)
    }
    for (const f of b.files) expect(zipped.some((n) => n.endsWith(f.stored.split('/').at(-1)!)), f.stored).toBe(false)
  })

  it('has a readable summary in the rider’s language: an About sheet, then a sheet per entity with its field labels and rows', async () => {
    const wb = await workbookOf(zip[SUMMARY_FILE])
    const entities = packagedEntities()
    expect(wb.worksheets.length).toBe(entities.length + 1)
    const about = wb.worksheets[0]!
    // German words, English field labels (there are none in German).
    expect(about.name).toBe('Über dieses Datenpaket')
    const aboutText = JSON.stringify(about.getSheetValues())
    expect(aboutText).toContain(a.email)
    for (const e of entities) expect(aboutText, e.key).toContain(`${e.key}.json`)
    entities.forEach((e, i) => {
      const sheet = wb.worksheets[i + 1]!
      const header = (sheet.getRow(1).values as unknown[]).slice(1)
      const first = e.fields.find((f) => f.kind !== 'password')!
      expect(header[0], `${e.key} header`).toBe(labelWithUnit(first).en_US)
      expect(sheet.actualRowCount - 1, `${e.key} rows`).toBe(a.ids.get(e.key)?.length ?? 0)
    })
  })

  it('says its sessions without the token hash', () => {
    const sessions = JSON.parse(text(zip[SESSIONS_FILE])) as { rows: Row[] }
    for (const s of sessions.rows) expect(Object.keys(s).sort()).toEqual(['created', 'ended', 'expiresAt', 'lastSeen'])
  })

  it('keeps counts only in the job, never a personal value', async () => {
    const row = await db().selectFrom('sysJob').selectAll().where('jobId', '=', jobId).executeTakeFirstOrThrow()
    expect(row.params).not.toContain(a.email)
    expect(row.result).not.toContain(a.email)
    const result = JSON.parse(row.result!) as { rows: Record<string, number>; files: number }
    expect(result.rows.ride).toBe(a.ids.get('ride')!.length)
    expect(result.files).toBe(a.files.length)
  })
})

describe('a cancel', () => {
  /** Writes the package as a job would (the file's pipeline starts a moment later), aborted when `when` says. */
  async function cancelled(when: (o: { progressed: number; chunk?: Buffer }) => boolean) {
    const controller = new AbortController()
    let progressed = 0
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (when({ progressed, chunk })) controller.abort(new Error('cancelled by the test'))
        setImmediate(callback)
      },
    })
    return writeDataPackage({
      services: t.app.services,
      memberId: a.memberId,
      lang: 'en_US',
      signal: controller.signal,
      progress: () => {
        if (when({ progressed: ++progressed })) controller.abort(new Error('cancelled by the test'))
      },
      writeFile: async (_name, content) => {
        await new Promise((r) => setTimeout(r, 5))
        await pipeline(content, sink, { signal: controller.signal })
        return 'stored'
      },
    })
  }

  it('at any moment fails the package and nothing else (no stray error)', async () => {
    await expect(cancelled(({ progressed }) => progressed >= 1)).rejects.toThrow()
    await expect(cancelled(({ progressed }) => progressed >= 3)).rejects.toThrow()
    // While the summary is written: its entry's name has gone out.
    await expect(cancelled(({ chunk }) => !!chunk?.includes(SUMMARY_FILE))).rejects.toThrow()
  })
})

describe('who may make and download one', () => {
  const BASE = ['member:member:list', 'member:member:query']
  const post = (token: string) => t.call({ method: 'POST', url: `/api/member/member/${a.memberId}/action/dataPackage`, token, body: {} })

  it('is refused without the action’s right (403), nothing queued', async () => {
    const { token } = await limitedUser(t, { userName: 'pkgnoright', perms: [...BASE, ...SEE_ALL_PERSONAL_DATA], dataScope: '1' })
    const before = await jobCount()
    const res = await post(token)
    expect(res.status).toBe(403)
    expect(res.msg).toContain('member:member:dataPackage')
    expect(await jobCount()).toBe(before)
  })

  it('is refused to a starter who does not see every category of personal data (403 naming what is missing), nothing queued', async () => {
    const { token } = await limitedUser(t, { userName: 'pkgmasked', perms: [...BASE, 'member:member:dataPackage', 'member:pii:contact'], dataScope: '1' })
    const before = await jobCount()
    const res = await post(token)
    expect(res.status).toBe(403)
    expect(res.msg).toContain('See body data (member:pii:body)')
    expect(res.msg).toContain('member:pii:location')
    expect(res.msg).toContain('member:pii:content')
    expect(res.msg).not.toContain('member:pii:contact')
    const zh = await t.call({ method: 'POST', url: `/api/member/member/${a.memberId}/action/dataPackage`, token, body: {}, lang: 'zh_CN' })
    expect(zh.msg).toContain('还需要以下权限')
    expect(await jobCount()).toBe(before)
  })

  it('downloads for its starter and admins only', async () => {
    const perms = [...BASE, 'member:member:dataPackage', ...SEE_ALL_PERSONAL_DATA, 'monitor:job:list']
    const starter = await limitedUser(t, { userName: 'pkgstarter', perms, dataScope: '1' })
    const other = await limitedUser(t, { userName: 'pkgother', perms, dataScope: '1' })
    const row = await staffPackage(starter.token, a.memberId)
    expect((await t.call({ url: `/api/monitor/job/${row.jobId}/file`, token: starter.token })).status).toBe(200)
    const refused = await t.call({ url: `/api/monitor/job/${row.jobId}/file`, token: other.token })
    expect(refused.status).toBe(403)
    expect((await t.call({ url: `/api/monitor/job/${row.jobId}/file`, token: admin })).status).toBe(200)
  })
})

describe('the rider’s own package, through the app', () => {
  let tokenA: string
  let tokenB: string
  let jobId: number

  beforeAll(async () => {
    tokenA = await appSignIn(a.email)
    tokenB = await appSignIn(b.email)
  })

  it('is asked for once at a time (409 for a second while one is made), then followed until ready', async () => {
    expect((await t.call<{ state: string }>({ url: `${APP}/me/export`, token: tokenA })).data.state).toBe('none')
    expect((await t.call({ method: 'POST', url: `${APP}/me/export?lang=xx_XX`, token: tokenA })).status).toBe(400)
    const ask = () => t.call<{ state: string }>({ method: 'POST', url: `${APP}/me/export`, token: tokenA, headers: { 'accept-language': 'fr-FR,fr;q=0.9' } })
    const answers = await Promise.all([ask(), ask()])
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
    const queued = answers.find((r) => r.status === 200)!
    expect(['queued', 'running', 'ready']).toContain(queued.data.state)
    const busy = answers.find((r) => r.status === 409)!
    expect(busy.msg).toBe('Your data package is still being put together: wait until it is ready')
    const job = await db().selectFrom('sysJob').selectAll().where('kind', '=', 'member.dataPackage').where('createBy', '=', `member:${a.memberId}`).where('state', '<>', 'cancelled').executeTakeFirstOrThrow()
    jobId = job.jobId
    expect(job.createById).toBe(0)
    expect(JSON.parse(job.params)).toEqual({ memberId: a.memberId, lang: 'fr_FR' })
    let state = queued.data.state
    for (let i = 0; i < 300 && state !== 'ready'; i++) {
      await new Promise((r) => setTimeout(r, 100))
      const now = await t.call<{ state: string; size: number | null; expiresAt: string | null; readyAt: string | null }>({ url: `${APP}/me/export`, token: tokenA })
      state = now.data.state
      expect(state).not.toBe('failed')
      if (state === 'ready') {
        expect(now.data.size).toBeGreaterThan(0)
        expect(Date.parse(now.data.expiresAt!) - Date.parse(now.data.readyAt!)).toBe(7 * DAY_MS)
      }
    }
    expect(state).toBe('ready')
  }, 60_000)

  it('downloads for that member only: their rows, in their language', async () => {
    const file = await t.call({ url: `${APP}/me/export/file`, token: tokenA })
    expect(file.status).toBe(200)
    expect(String(file.headers['content-type'])).toContain('application/zip')
    const zip = unzipSync(new Uint8Array(file.raw))
    for (const e of packagedEntities()) expect(idsOf(rowsOf(zip, e), e), e.key).toEqual(sorted(a.ids.get(e.key)))
    const wb = await workbookOf(zip[SUMMARY_FILE])
    expect(wb.worksheets[0]!.name).toBe('À propos de ce dossier')
    // Their sign-in is in it.
    expect((JSON.parse(text(zip[SESSIONS_FILE])) as { rows: Row[] }).rows.length).toBeGreaterThan(0)

    const other = await t.call({ url: `${APP}/me/export/file`, token: tokenB })
    expect(other.status).toBe(404)
    expect((await t.call<{ state: string }>({ url: `${APP}/me/export`, token: tokenB })).data.state).toBe('none')
    // Not a staff file: not even an admin downloads it from the jobs list, nor a staff token here.
    const fromConsole = await t.call({ url: `/api/monitor/job/${jobId}/file`, token: admin })
    expect(fromConsole.status).toBe(403)
    expect(fromConsole.msg).toBe('This file is the rider’s: only they download it, in the app')
    const listed = await t.call<{ rows: JobInfo[] }>({ method: 'POST', url: '/api/monitor/job/list', token: admin, body: { pageNum: 1, pageSize: 100 } })
    expect(listed.data.rows.find((j) => j.jobId === jobId)?.mayDownload).toBe(false)
    expect((await t.call({ url: `${APP}/me/export/file`, token: admin })).status).toBe(401)
  })

  it('is refused again within a day (429 with when)', async () => {
    const again = await t.call<{ nextRequestAt: string }>({ method: 'POST', url: `${APP}/me/export`, token: tokenA })
    expect(again.status).toBe(429)
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(23 * 3600)
    expect(Date.parse(again.data.nextRequestAt)).toBeGreaterThan(Date.now() + 23 * 3600_000)
    expect(again.msg).toContain('You can ask for one data package a day')
  })
})

describe('after 7 days', () => {
  it('a package’s file is no longer served, and removeExpired deletes it (other jobs’ files stay until JOB_RETENTION_DAYS)', async () => {
    const packages = await db().selectFrom('sysJob').selectAll().where('state', '=', 'succeeded').where('kind', 'in', ['action', 'member.dataPackage']).where('resultFile', 'is not', null).execute()
    expect(packages.length).toBeGreaterThanOrEqual(3)
    // An export of the same age: its file is kept as long as its job.
    const exported = await t.call<JobInfo>({ method: 'POST', url: '/api/member/member/export/job', token: admin, body: {} })
    expect(exported.status, exported.msg).toBe(200)
    const exportRow = await waitForJobEnd(db(), exported.data.jobId)
    expect(exportRow.state).toBe('succeeded')
    const old = new Date(Date.now() - 8 * DAY_MS).toISOString()
    await db().updateTable('sysJob').set({ finishTime: old }).where('jobId', 'in', [...packages.map((p) => p.jobId), exportRow.jobId]).execute()

    const staff = packages.find((p) => p.kind === 'action')!
    // Past its 7 days, before any clean-up: not served.
    expect((await t.call({ url: `/api/monitor/job/${staff.jobId}/file`, token: admin })).status).toBe(404)
    const tokenA = await appSignIn(a.email)
    expect((await t.call({ url: `${APP}/me/export/file`, token: tokenA })).status).toBe(404)

    await t.app.services.jobs.removeExpired()
    for (const p of packages) {
      const now = await db().selectFrom('sysJob').selectAll().where('jobId', '=', p.jobId).executeTakeFirstOrThrow()
      expect(now.resultFile, `job ${p.jobId}`).toBeNull()
      expect(existsSync(t.app.services.storage.resolve(p.resultFile!)!), `job ${p.jobId} file`).toBe(false)
    }
    expect((await t.call<{ state: string }>({ url: `${APP}/me/export`, token: tokenA })).data.state).toBe('expired')
    const kept = await db().selectFrom('sysJob').selectAll().where('jobId', '=', exportRow.jobId).executeTakeFirstOrThrow()
    expect(kept.resultFile).toBe(exportRow.resultFile)
    expect(existsSync(t.app.services.storage.resolve(exportRow.resultFile!)!)).toBe(true)
    expect((await t.call({ url: `/api/monitor/job/${exportRow.jobId}/file`, token: admin })).status).toBe(200)
  })
})
