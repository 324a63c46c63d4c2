import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { allEntities, type ActionPreview, type FieldDef, type ResolvedEntity } from '@velo/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createDatabase, dynamicDb } from '../src/db/database'
import { runDemo } from '../src/demo'
import { hashPassword } from '../src/platform/auth/passwords'
import { erasedEmail, ERASED_TEXT } from '../src/platform/privacy/erasure'
import { loadRider, riderCondition, riderEntities, riderProblems } from '../src/platform/privacy/rider-rows'
import { filled } from './definition-rows'
import { ADMIN_PASSWORD, createTestApp, freshDatabase, limitedUser, type TestApp, waitForJobEnd } from './harness'

// A rider's erasure (issue 41 §3), over every definition that declares how its rows belong to a
// rider: on the demo's data, a member gets a row in every such table (found from the definitions, so
// a new table is in the test as soon as it is declared) with identifying values of their own; once
// erased, no text column of any table holds one of them, their files are gone from storage, their
// positions are empty, their sessions ended, and another member's rows are as they were.

type Row = Record<string, unknown>

/** Identifying values planted for the erased rider: rare enough that finding one anywhere cannot be chance. */
const TOKEN = 'Quillonia'
const SURNAME = 'Vantrekhoven'
const EMAIL = 'quillonia.vantrekhoven@example.test'
const PHONE = '+31 6 9876 5432'
const LAT = 51.987654
const LNG = 4.123457
const TELLING = [TOKEN, SURNAME, EMAIL, '9876 5432', String(LAT), String(LNG)]

let t: TestApp
let dir: string
let drop: () => Promise<void>
let subject: number
let control: number
let controlBefore: Map<string, Row[]>
const files: string[] = []
let memberToken: string
let admin: string

const db = () => t.app.services.db
const ddb = () => dynamicDb(db())
const storageDir = () => join(dir, 'files')

/** A value for a personal field that names the rider. */
function planted(e: ResolvedEntity, f: FieldDef): unknown {
  const { name, kind } = f
  if (kind === 'email') return EMAIL
  if (kind === 'phone') return PHONE
  if (kind === 'number' && f.int) return 173
  if (kind === 'number') return name.toLowerCase().includes('lng') || name.toLowerCase().includes('longitude') ? LNG : LAT
  if (kind === 'date') return '1987-06-05'
  return `${TOKEN} ${SURNAME} (${e.key}.${name})`
}

/** Stores a file that is the rider's (a photo, a log) and the sys_file row an upload makes; answers its stored name. */
async function plantFile(e: ResolvedEntity, field: string): Promise<string> {
  const name = await t.app.services.storage.save(`file/${e.key}`, 'jpg', Buffer.from(`${TOKEN}'s ${e.key}.${field}`))
  await db()
    .insertInto('sysFile')
    .values({ fileName: name, originalName: `${TOKEN}-${SURNAME}.jpg`, size: 20, contentType: 'image/jpeg', sha256: '0'.repeat(64), md5: '0'.repeat(32), crc8: '00', crc8Variant: 'smbus', entity: e.key, field, createBy: 'app', createTime: new Date().toISOString() } as never)
    .execute()
  files.push(name)
  return name
}

/** The rider's personal values written into their rows of `e` (every personal field, each personal key, each file). */
async function plantValues(e: ResolvedEntity, ids: unknown[]) {
  const values: Row = {}
  for (const f of e.fields) {
    if (f.personal && (f.kind === 'file' || f.kind === 'image')) values[f.name] = await plantFile(e, f.name)
    else if (f.personal && f.kind !== 'referenceMany') values[f.name] = planted(e, f)
    else if (f.personalKeys) values[f.name] = JSON.stringify({ [f.personalKeys.keys[0]!]: { lat: LAT, lng: LNG }, battery: 51 })
    // Rows that go with the rider may say anything about them (a mail's greeting): they say their name.
    else if (e.rider?.erase === 'delete' && (f.kind === 'text' || f.kind === 'longText') && !f.unique && !f.max) values[f.name] = `Dear ${TOKEN} ${SURNAME}`
  }
  if (Object.keys(values).length) await ddb().updateTable(e.table).set(values).where(e.idField, 'in', ids as number[]).execute()
}

/** Gives the subject a row of `e`: a copy of another row, linked to them. */
async function cloneFor(e: ResolvedEntity, link: Row): Promise<unknown> {
  const source = (await ddb().selectFrom(e.table).selectAll().orderBy(e.idField).limit(1).executeTakeFirst()) ?? filled(e, 'erasure', {}, {})
  const copy: Row = { ...source, ...link }
  delete copy[e.idField]
  for (const f of e.fields) if (f.unique && typeof copy[f.name] === 'string') copy[f.name] = `${String(copy[f.name]).slice(0, 20)}-r${Date.now() % 100000}`
  const inserted = await ddb().insertInto(e.table).values(copy).returning(e.idField).executeTakeFirstOrThrow()
  return inserted[e.idField]
}

/** Every text column of every table of the database (introspected, not from the definitions: service tables count too). */
async function textColumns(): Promise<{ table: string; column: string }[]> {
  if (t.app.services.dialect === 'sqlite') {
    const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db())
    const out: { table: string; column: string }[] = []
    for (const { name } of tables.rows) {
      const cols = await sql<{ name: string; type: string }>`select name, type from pragma_table_info(${name})`.execute(db())
      for (const c of cols.rows) if (/char|text|clob/i.test(c.type) || c.type === '') out.push({ table: name, column: c.name })
    }
    return out
  }
  const cols = await sql<{ tbl: string; col: string }>`
    select table_name as tbl, column_name as col from information_schema.columns
    where table_schema = current_schema() and data_type in ('text', 'character varying', 'json', 'jsonb')`.execute(db())
  return cols.rows.map((c) => ({ table: c.tbl, column: c.col }))
}

/** Where any telling value of the rider is still found: `table.column: value`. */
async function remnants(): Promise<string[]> {
  const found: string[] = []
  for (const { table, column } of await textColumns()) {
    for (const value of TELLING) {
      const hit = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where lower(cast(${sql.ref(column)} as text)) like ${`%${value.toLowerCase()}%`}`.execute(db())
      if (Number(hit.rows[0]!.n) > 0) found.push(`${table}.${column}: ${value}`)
    }
  }
  return found
}

/** The other member's rows of every rider entity, to show they are untouched. */
async function rowsOfMember(memberId: number): Promise<Map<string, Row[]>> {
  const rider = (await loadRider(db(), memberId))!
  const out = new Map<string, Row[]>()
  for (const { entity: e } of riderEntities()) {
    const where = riderCondition(e, rider)
    out.set(e.key, where ? await ddb().selectFrom(e.table).selectAll().where(where).orderBy(e.idField).execute() : [])
  }
  return out
}

const call = <T = unknown>(method: string, url: string, body?: Row, token?: string) => t.call<T>({ method, url: `/api${url}`, body, token: token ?? admin })

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'velo-erasure-'))
  const database = await freshDatabase(dir)
  drop = database.drop
  const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: storageDir(), ADMIN_PASSWORD, LOG_LEVEL: 'silent' })
  const created = createDatabase(config.database)
  try {
    await runDemo({ db: created.db, dialect: created.dialect, config }, { seed: 5, scale: 0.01, force: false, end: new Date() })
  } finally {
    await created.db.destroy()
  }
  t = await createTestApp({ STORAGE_DIR: storageDir() }, { databaseUrl: database.url })
  admin = await t.login()
  // Two members with a bound bike that carries a device: the subject, and one whose rows must stay as they are.
  const bound = await db().selectFrom('bikeBike').select(['memberId', 'iotDeviceId']).where('bindStatus', '=', 'bound').where('iotDeviceId', 'is not', null).orderBy('bikeId').limit(2).execute()
  subject = Number(bound[0]!.memberId)
  control = Number(bound[1]!.memberId)
  await db().updateTable('memMember').set({ email: EMAIL, firstName: TOKEN, lastName: SURNAME, phone: PHONE, passwordHash: await hashPassword('Rider-secret-1'), status: '0', legalHold: '' }).where('memberId', '=', subject).execute()
  const rider = (await loadRider(db(), subject))!
  for (const { entity: e, rider: r } of riderEntities()) {
    if ('member' in r.by && e.fieldMap.get(r.by.member)?.kind === 'referenceMany') {
      const f = e.fieldMap.get(r.by.member) as { through: { table: string; from: string; to: string } }
      const one = await ddb().selectFrom(e.table).select(e.idField).limit(1).executeTakeFirstOrThrow()
      await ddb().insertInto(f.through.table).values({ [f.through.from]: one[e.idField], [f.through.to]: subject }).execute()
      continue
    }
    const where = riderCondition(e, rider)!
    let ids = (await ddb().selectFrom(e.table).select(e.idField).where(where).execute()).map((row) => row[e.idField])
    if (!ids.length) {
      const by = r.by
      const link: Row = 'member' in by ? { [by.member]: subject } : 'email' in by ? { [by.email]: EMAIL } : { [by.device]: rider.devices[0]!.deviceId, ...(by.since ? { [by.since]: new Date().toISOString() } : {}) }
      ids = [await cloneFor(e, link)]
    }
    // What holds an erasure does not hold this one: the rider's service orders are finished.
    if (r.hold?.isNot) await ddb().updateTable(e.table).set({ [r.hold.field]: r.hold.isNot[0]! }).where(e.idField, 'in', ids as number[]).execute()
    await plantValues(e, ids)
  }
  // A mail to the rider naming them, and their app session.
  const signIn = await t.call<{ token: string }>({ method: 'POST', url: '/api/app/v1/auth/login', body: { email: EMAIL, password: 'Rider-secret-1' } })
  expect(signIn.status).toBe(200)
  memberToken = signIn.data.token
  // A staff correction of their name: the operation log keeps that it was sent, not the name.
  expect((await call('PUT', '/member/member', { memberId: subject, firstName: TOKEN, lastName: SURNAME })).status).toBe(200)
  controlBefore = await rowsOfMember(control)
}, 180_000)

afterAll(async () => {
  await t?.close()
  await drop?.()
  rmSync(dir, { recursive: true, force: true })
})

describe('the definitions', () => {
  it('declare how rows belong to a rider wherever a table refers to members or holds personal data', () => {
    const missing = allEntities().filter((e) => {
      const refers = e.fields.some((f) => (f.kind === 'reference' || f.kind === 'referenceMany') && f.entity === 'member')
      const personal = e.fields.some((f) => f.personal || f.personalKeys)
      return (refers || personal || e.key === 'member') && !e.rider
    })
    expect(missing.map((e) => e.key)).toEqual([])
  })

  it('name real fields of the right kinds, or the server does not start', () => {
    for (const { entity } of riderEntities()) expect(riderProblems(entity), entity.key).toEqual([])
    const member = riderEntities().find((r) => r.entity.key === 'member')!.entity
    const wrong = { ...member, rider: { by: { member: 'email' }, erase: 'anonymise', hold: { field: 'nothing', reason: member.label }, set: { nowhere: 1 } } } as ResolvedEntity
    expect(riderProblems(wrong)).toEqual([
      'member: rider.by.member email must refer to member (or be the id of member)',
      'member: rider.hold nothing is not a field',
      'member: rider.set nowhere is neither a field nor a storage column',
    ])
  })
})

describe('erasing a rider', () => {
  it('shows what it would do, asks a second time, and refuses without the right', async () => {
    const preview = await call<ActionPreview>('POST', `/member/member/${subject}/action/erase/preview`, { request: 'ticket 4711' })
    expect(preview.status).toBe(200)
    expect(preview.data.secondConfirm).toContain(`member ${subject}`)
    expect(preview.data.facts.length).toBeGreaterThanOrEqual(riderEntities().length - 2)
    const unconfirmed = await call('POST', `/member/member/${subject}/action/erase`, { request: 'ticket 4711' })
    expect(unconfirmed.status).toBe(409)
    const reader = await limitedUser(t, { userName: 'eraseless', perms: ['member:member:list', 'member:member:query'], dataScope: '1' })
    expect((await call('POST', `/member/member/${subject}/action/erase`, { request: 'ticket 4711', confirmed: true }, reader.token)).status).toBe(403)
    expect((await db().selectFrom('memMember').select('erasedTime').where('memberId', '=', subject).executeTakeFirstOrThrow()).erasedTime).toBeNull()
  })

  it('leaves none of their identifying values in any table, none of their files, and no session', async () => {
    expect((await remnants()).length).toBeGreaterThan(0)
    // A data package made before: a copy of everything the erasure takes.
    const pkg = await call<{ jobId: number }>('POST', `/member/member/${subject}/action/dataPackage`, {})
    expect(pkg.status).toBe(200)
    const made = await waitForJobEnd(db(), pkg.data.jobId, 120_000)
    expect(made.state).toBe('succeeded')
    expect(existsSync(join(storageDir(), made.resultFile!))).toBe(true)
    const queued = await call<{ jobId: number }>('POST', `/member/member/${subject}/action/erase`, { request: 'ticket 4711', confirmed: true })
    expect(queued.status).toBe(200)
    const job = await waitForJobEnd(db(), queued.data.jobId, 120_000)
    expect(job.error).toBeNull()
    expect(job.state).toBe('succeeded')

    expect(await remnants()).toEqual([])
    for (const name of files) expect(existsSync(join(storageDir(), name))).toBe(false)
    expect(existsSync(join(storageDir(), made.resultFile!))).toBe(false)
    expect((await db().selectFrom('sysJob').select('resultFile').where('jobId', '=', made.jobId).executeTakeFirstOrThrow()).resultFile).toBeNull()
    const member = await db().selectFrom('memMember').selectAll().where('memberId', '=', subject).executeTakeFirstOrThrow()
    expect(member).toMatchObject({ email: erasedEmail(subject), firstName: '', lastName: '', phone: '', birthday: null, height: null, weight: null, avatar: null, status: '1', passwordHash: null, bindStatus: 'unbound' })
    expect(member.erasedTime).toBeTruthy()
    // Feedback keeps its stars for the satisfaction figures, a dash for its words.
    const feedback = await db().selectFrom('memFeedback').select(['content', 'stars', 'image1']).where('memberId', '=', subject).execute()
    expect(feedback.length).toBeGreaterThan(0)
    for (const f of feedback) expect(f).toMatchObject({ content: ERASED_TEXT, image1: null })
    // Positions are numbers: empty wherever the rider's devices put them while the bikes were theirs.
    for (const { entity: e } of riderEntities()) {
      const geo = e.fields.filter((f) => f.personal === 'location')
      if (!geo.length) continue
      for (const f of geo) {
        const left = await ddb().selectFrom(e.table).select(e.idField).where(f.name, '=', f.name.toLowerCase().includes('lon') ? LNG : LAT).execute()
        expect(left, `${e.key}.${f.name}`).toEqual([])
      }
    }
    // Rides stay for the statistics, pointing at the anonymous member; bikes are unbound, their history says so.
    expect(Number((await db().selectFrom('memRide').select((eb) => eb.fn.countAll<number>().as('n')).where('memberId', '=', subject).executeTakeFirstOrThrow()).n)).toBeGreaterThan(0)
    expect(await db().selectFrom('bikeBike').select('bikeId').where('memberId', '=', subject).execute()).toEqual([])
    const unbound = await db().selectFrom('bikeRecord').select(['eventKind', 'detail']).where('memberId', '=', subject).where('eventKind', '=', 'unbound').execute()
    expect(unbound.length).toBeGreaterThan(0)
    // The app's token is refused: their sessions ended with the account.
    expect((await t.call({ method: 'GET', url: '/api/app/v1/me', token: memberToken })).status).toBe(401)
    // The operation log keeps who erased whom and why, not what was erased.
    const log = await db().selectFrom('sysOperLog').select(['operName', 'operParam', 'status']).where('operUrl', '=', `/member/member/${subject}/erase`).executeTakeFirstOrThrow()
    expect(log).toMatchObject({ operName: 'admin', status: '0' })
    expect(log.operParam).toContain('ticket 4711')
  }, 180_000)

  it("leaves another member's rows as they were", async () => {
    const after = await rowsOfMember(control)
    for (const [key, rows] of controlBefore) expect(after.get(key), key).toEqual(rows)
  })

  it('is not offered again for an erased member', async () => {
    expect((await call('POST', `/member/member/${subject}/action/erase/preview`, { request: 'again' })).status).toBe(409)
  })
})

describe('what holds an erasure', () => {
  it('an open service order refuses it with the reason, and changes nothing', async () => {
    const order = await db().selectFrom('serviceRepairOrder').select(['repairOrderId', 'contactEmail', 'orderNo']).where('status', 'in', ['draft', 'processing', 'bikeCollecting']).orderBy('repairOrderId').executeTakeFirstOrThrow()
    const member = await db().selectFrom('memMember').select('memberId').where('erasedTime', 'is', null).where('memberId', 'not in', [subject, control]).orderBy('memberId').executeTakeFirstOrThrow()
    await db().updateTable('memMember').set({ email: order.contactEmail.toUpperCase() }).where('memberId', '=', member.memberId).execute()
    const refused = await call('POST', `/member/member/${member.memberId}/action/erase/preview`, { request: 'ticket 9' })
    expect(refused.status).toBe(409)
    expect(refused.msg).toContain(String(order.orderNo))
    const job = await call<{ jobId: number }>('POST', `/member/member/${member.memberId}/action/erase`, { request: 'ticket 9', confirmed: true })
    expect(job.status).toBe(409)
    expect((await db().selectFrom('memMember').select('erasedTime').where('memberId', '=', member.memberId).executeTakeFirstOrThrow()).erasedTime).toBeNull()
  })

  it('a legal hold refuses it with what staff wrote', async () => {
    const member = await db().selectFrom('memMember').select('memberId').where('erasedTime', 'is', null).where('memberId', '!=', control).orderBy('memberId', 'desc').executeTakeFirstOrThrow()
    expect((await call('PUT', '/member/member', { memberId: member.memberId, legalHold: 'Police request 2026-113' })).status).toBe(200)
    const refused = await call('POST', `/member/member/${member.memberId}/action/erase/preview`, { request: 'ticket 10' })
    expect(refused.status).toBe(409)
    expect(refused.msg).toContain('Police request 2026-113')
  })
})

describe('the rider erases their own data in the app', () => {
  it('with their password: a wrong one changes nothing, the right one erases and signs them out', async () => {
    const member = await db().selectFrom('memMember').select(['memberId', 'email']).where('erasedTime', 'is', null).where('legalHold', '=', '').where('memberId', 'not in', [subject, control]).orderBy('memberId').limit(1).offset(3).executeTakeFirstOrThrow()
    await db().updateTable('memMember').set({ passwordHash: await hashPassword('Other-secret-2'), status: '0' }).where('memberId', '=', member.memberId).execute()
    await db().updateTable('serviceRepairOrder').set({ status: 'finished' }).where(sql`lower(contact_email)`, '=', member.email.toLowerCase()).execute()
    const signIn = await t.call<{ token: string }>({ method: 'POST', url: '/api/app/v1/auth/login', body: { email: member.email, password: 'Other-secret-2' } })
    const token = signIn.data.token
    const wrong = await t.call({ method: 'POST', url: '/api/app/v1/me/erasure', token, body: { password: 'nope' } })
    expect(wrong.status).toBe(400)
    expect((await t.call({ method: 'GET', url: '/api/app/v1/me', token })).status).toBe(200)
    const done = await t.call({ method: 'POST', url: '/api/app/v1/me/erasure', token, body: { password: 'Other-secret-2' } })
    expect(done.status).toBe(200)
    expect((await t.call({ method: 'GET', url: '/api/app/v1/me', token })).status).toBe(401)
    const row = await db().selectFrom('memMember').select(['email', 'erasedTime']).where('memberId', '=', member.memberId).executeTakeFirstOrThrow()
    expect(row.email).toBe(erasedEmail(Number(member.memberId)))
    const log = await db().selectFrom('sysOperLog').select(['operName']).where('operUrl', '=', `/member/member/${member.memberId}/erase`).executeTakeFirstOrThrow()
    expect(log.operName).toBe('app')
  })
})
