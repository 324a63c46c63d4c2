import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { iotEntities, type RetentionJobResult } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { hashPassword } from '../src/platform/auth/passwords'
import { ENTITY_FILES_FOLDER } from '../src/platform/files/routes'
import { insertDevice } from './iot-helpers'
import { useTestApp, waitForJobEnd } from './harness'

// Retention of riders' personal data by category (docs/privacy.md › Retention), run by the retention
// job (ops/maintenance): positions emptied, uploaded app logs deleted with their files, long-inactive
// members told in the app and then erased. Each case runs the job as the schedule does and reads its counts.

const t = useTestApp()
const db = () => t.app.services.db
const DAY = 86_400_000
const YEAR = 365 * DAY
const ago = (ms: number) => new Date(Date.now() - ms).toISOString()
const dayAgo = (ms: number) => ago(ms).slice(0, 10)
const unique = () => randomBytes(4).toString('hex')
const setConfig = (key: string, value: string) => db().updateTable('sysConfig').set({ configValue: value }).where('configKey', '=', key).execute()
/** The payload keys the definition declares personal: what the retention takes out of device messages. */
const PERSONAL_KEYS = iotEntities.iotMessage.fields.find((f) => f.personalKeys)!.personalKeys!.keys

async function runRetention(): Promise<RetentionJobResult> {
  const job = await t.app.services.jobs.enqueueSystem('ops.retention')
  const done = await waitForJobEnd(db(), job.jobId)
  expect(done.state, done.error ?? '').toBe('succeeded')
  return JSON.parse(done.result ?? 'null') as RetentionJobResult
}

beforeAll(async () => {
  // Telemetry and device messages kept for years, as an operator keeping statistics would: their
  // rows must outlive the positions in them for there to be anything to empty.
  await setConfig('iot.telemetry.retentionDays', '3650')
  await setConfig('iot.message.retentionDays', '3650')
})

describe('positions (privacy.retention.positionDays)', () => {
  const telemetry = (deviceId: number, days: number, withPosition = true) => ({
    deviceId,
    receivedAt: ago(days * DAY),
    latitude: withPosition ? 52.37 : null,
    longitude: withPosition ? 4.89 : null,
    speed: 18.5,
    battery: 77,
    odometer: 1234.5,
    satellites: 9,
  })
  const message = (deviceId: number, days: number, payload: string) => ({ deviceId, direction: 'up', kind: 'telemetry', topic: `velo/retention/${days}`, payload, createTime: ago(days * DAY) })
  const withGps = JSON.stringify({ ts: 1_700_000_000_000, battery: 77, gps: { lat: 52.37, lng: 4.89, speed: 18.5 }, odometer: 1234.5 })

  it('empties positions older than 90 days in telemetry, device messages and silent devices, and keeps the rest of each row', async () => {
    const silent = await insertDevice(t)
    const heard = await insertDevice(t)
    await db().updateTable('iotDevice').set({ lastSeenAt: ago(100 * DAY), latitude: 52.1, longitude: 4.3, battery: 40 }).where('deviceId', '=', silent.deviceId).execute()
    await db().updateTable('iotDevice').set({ lastSeenAt: ago(DAY), latitude: 52.2, longitude: 4.4 }).where('deviceId', '=', heard.deviceId).execute()
    const [old, recent, noPosition] = await db()
      .insertInto('iotTelemetry')
      .values([telemetry(silent.deviceId, 100), telemetry(silent.deviceId, 80), telemetry(silent.deviceId, 120, false)])
      .returning('telemetryId')
      .execute()
    const cut = '{"ts":1700000000000,"battery":77,"gps":{"lat":52.37,"lng'
    const [oldMessage, recentMessage, noGps, cutMessage] = await db()
      .insertInto('iotMessage')
      .values([message(silent.deviceId, 100, withGps), message(silent.deviceId, 80, withGps), message(silent.deviceId, 100, '{"state":"online"}'), message(silent.deviceId, 95, cut)])
      .returning('messageId')
      .execute()

    // A geofence warning last repeated 100 days ago and one of last week: the position is in the alarm's location fields.
    const alarm = (days: number, type: 'geofence' | 'fall') => ({
      deviceId: silent.deviceId, type, code: type === 'geofence' ? '1' : '', severity: 'major', state: 'clearedAck', detail: 'left Depot at 03:12 UTC',
      latitude: 52.37, longitude: 4.89, count: 1, startTime: ago(days * DAY), lastTime: ago(days * DAY), ackBy: '', ackReason: '', clearBy: '', clearReason: '',
    })
    const [oldAlarm, recentAlarm] = await db().insertInto('iotAlarm').values([alarm(100, 'geofence'), alarm(7, 'fall')]).returning('alarmId').execute()

    const result = await runRetention()
    // One telemetry row, two messages (the JSON one and the one cut short), one warning, one device.
    expect(result.removed.positions).toBe(5)
    const alarmRow = (id: number) => db().selectFrom('iotAlarm').select(['latitude', 'longitude', 'detail']).where('alarmId', '=', id).executeTakeFirstOrThrow()
    expect(await alarmRow(oldAlarm!.alarmId)).toEqual({ latitude: null, longitude: null, detail: 'left Depot at 03:12 UTC' })
    expect([(await alarmRow(recentAlarm!.alarmId)).latitude, (await alarmRow(recentAlarm!.alarmId)).longitude].map(Number)).toEqual([52.37, 4.89])

    const row = (id: number) => db().selectFrom('iotTelemetry').selectAll().where('telemetryId', '=', id).executeTakeFirstOrThrow()
    const emptied = await row(old!.telemetryId)
    expect(emptied).toMatchObject({ latitude: null, longitude: null, satellites: 9 })
    expect([emptied.speed, emptied.battery, emptied.odometer].map(Number)).toEqual([18.5, 77, 1234.5])
    const kept = await row(recent!.telemetryId)
    expect([kept.latitude, kept.longitude].map(Number)).toEqual([52.37, 4.89])
    expect((await row(noPosition!.telemetryId)).battery).not.toBeNull()

    const payload = async (id: number) => (await db().selectFrom('iotMessage').select('payload').where('messageId', '=', id).executeTakeFirstOrThrow()).payload
    const stripped = JSON.parse(await payload(oldMessage!.messageId))
    for (const key of PERSONAL_KEYS) expect(stripped).not.toHaveProperty(key)
    expect(stripped).toEqual({ ts: 1_700_000_000_000, battery: 77, odometer: 1234.5 })
    expect(JSON.parse(await payload(recentMessage!.messageId))).toEqual(JSON.parse(withGps))
    expect(JSON.parse(await payload(noGps!.messageId))).toEqual({ state: 'online' })
    // A payload cut at the log's length limit names the key but cannot be told apart: none of it stays.
    expect(await payload(cutMessage!.messageId)).toBe('{}')

    const device = (deviceId: number) => db().selectFrom('iotDevice').select(['latitude', 'longitude', 'battery']).where('deviceId', '=', deviceId).executeTakeFirstOrThrow()
    expect(await device(silent.deviceId)).toMatchObject({ latitude: null, longitude: null })
    expect(Number((await device(silent.deviceId)).battery)).toBe(40)
    expect([(await device(heard.deviceId)).latitude, (await device(heard.deviceId)).longitude].map(Number)).toEqual([52.2, 4.4])

    // Nothing left to empty.
    expect((await runRetention()).removed.positions).toBe(0)
  })

  it('follows privacy.retention.positionDays as it is changed in the configuration', async () => {
    const device = await insertDevice(t)
    const [older, newer] = await db()
      .insertInto('iotTelemetry')
      .values([telemetry(device.deviceId, 40), telemetry(device.deviceId, 20)])
      .returning('telemetryId')
      .execute()
    const [olderMessage, newerMessage] = await db()
      .insertInto('iotMessage')
      .values([message(device.deviceId, 40, withGps), message(device.deviceId, 20, withGps)])
      .returning('messageId')
      .execute()
    // Kept at 90 days.
    expect((await runRetention()).removed.positions).toBe(0)
    await setConfig('privacy.retention.positionDays', '30')
    try {
      // These two, and the 80-day-old telemetry row and message of the test before.
      expect((await runRetention()).removed.positions).toBe(4)
    } finally {
      await setConfig('privacy.retention.positionDays', '90')
    }
    const latitude = async (id: number) => (await db().selectFrom('iotTelemetry').select('latitude').where('telemetryId', '=', id).executeTakeFirstOrThrow()).latitude
    expect(await latitude(older!.telemetryId)).toBeNull()
    expect(Number(await latitude(newer!.telemetryId))).toBe(52.37)
    const payload = async (id: number) => JSON.parse((await db().selectFrom('iotMessage').select('payload').where('messageId', '=', id).executeTakeFirstOrThrow()).payload)
    expect(await payload(olderMessage!.messageId)).not.toHaveProperty('gps')
    expect(await payload(newerMessage!.messageId)).toHaveProperty('gps')
  })
})

describe('uploaded app logs (privacy.retention.uploadedLogDays)', () => {
  /** An upload as the app's POST /uploads leaves it: the stored file, its sys_file row and the log's row. */
  async function upload(days: number) {
    const { storage } = t.app.services
    const fileName = await storage.save(`${ENTITY_FILES_FOLDER}/appUploadLog`, 'log', Buffer.from(`log of ${days} days ago`))
    const time = ago(days * DAY)
    await db()
      .insertInto('sysFile')
      .values({ fileName, originalName: 'velo.log', size: 20, contentType: 'text/plain', sha256: '0'.repeat(64), md5: '0'.repeat(32), crc8: '00', crc8Variant: 'smbus', entity: 'appUploadLog', field: 'file', createBy: 'member:1', createTime: time })
      .execute()
    const row = await db()
      .insertInto('monAppUploadLog')
      .values({ memberId: null, deviceId: 'phone', logType: 'log', platform: 'android', appVersion: '2.1.0', osVersion: '14', file: fileName, originalName: 'velo.log', fileSize: 20, uploadTime: time })
      .returning('uploadId')
      .executeTakeFirstOrThrow()
    return { uploadId: Number(row.uploadId), fileName, path: storage.resolve(fileName)! }
  }
  const present = async (u: Awaited<ReturnType<typeof upload>>) => ({
    row: !!(await db().selectFrom('monAppUploadLog').select('uploadId').where('uploadId', '=', u.uploadId).executeTakeFirst()),
    sysFile: !!(await db().selectFrom('sysFile').select('fileId').where('fileName', '=', u.fileName).executeTakeFirst()),
    file: existsSync(u.path),
  })

  it('deletes uploads older than 30 days with their stored files, keeps newer ones, and follows the setting', async () => {
    const old = await upload(31)
    const recent = await upload(10)
    expect(await present(old)).toEqual({ row: true, sysFile: true, file: true })

    expect((await runRetention()).removed.uploadedLogs).toBe(1)
    expect(await present(old)).toEqual({ row: false, sysFile: false, file: false })
    expect(await present(recent)).toEqual({ row: true, sysFile: true, file: true })

    await setConfig('privacy.retention.uploadedLogDays', '7')
    try {
      expect((await runRetention()).removed.uploadedLogs).toBe(1)
    } finally {
      await setConfig('privacy.retention.uploadedLogDays', '30')
    }
    expect(await present(recent)).toEqual({ row: false, sysFile: false, file: false })
  })
})

describe('inactive members (privacy.retention.inactiveMemberYears, erasureNoticeDays)', () => {
  const PASSWORD = 'Rider2026!'
  let passwordHash = ''
  const country = async (code: string) => Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)

  async function member(o: { created: number; login?: number; activeDay?: number; legalHold?: string; erased?: boolean; countryCode?: string }) {
    passwordHash ||= await hashPassword(PASSWORD)
    const email = `inactive-${unique()}@example.com`
    const row = await db()
      .insertInto('memMember')
      .values({
        email,
        firstName: 'Ina',
        lastName: 'Active',
        status: '0',
        passwordHash,
        countryId: o.countryCode ? await country(o.countryCode) : null,
        createBy: 'app',
        createTime: ago(o.created),
        lastLoginTime: o.login === undefined ? null : ago(o.login),
        lastActiveDay: o.activeDay === undefined ? null : dayAgo(o.activeDay),
        legalHold: o.legalHold ?? '',
        erasedTime: o.erased ? ago(DAY) : null,
      })
      .returning('memberId')
      .executeTakeFirstOrThrow()
    return { memberId: Number(row.memberId), email }
  }
  const state = (memberId: number) => db().selectFrom('memMember').select(['email', 'erasureNoticeTime', 'erasedTime', 'status']).where('memberId', '=', memberId).executeTakeFirstOrThrow()
  const inbox = (memberId: number) =>
    db().selectFrom('cntMessageRecipient as r').innerJoin('cntMessage as m', 'm.messageId', 'r.messageId').select(['m.title', 'm.content', 'm.status', 'r.createTime']).where('r.memberId', '=', memberId).execute()
  const backdateNotice = (memberId: number, days: number) => db().updateTable('memMember').set({ erasureNoticeTime: ago(days * DAY) }).where('memberId', '=', memberId).execute()

  let lapsed: { memberId: number; email: string }
  let german: { memberId: number; email: string }
  let rider: { memberId: number; email: string }
  let laterHeld: { memberId: number; email: string }

  it('tells a member inactive for 3 years, in the app, that their account will be erased; the active, the held, the young and the erased get nothing', async () => {
    // Registered 5 years ago, signed in last 4 years ago, last ride 3.5 years ago.
    lapsed = await member({ created: 5 * YEAR, login: 4 * YEAR, activeDay: 3.5 * YEAR })
    german = await member({ created: 4 * YEAR, countryCode: 'DE' })
    rider = await member({ created: 4 * YEAR, login: 3.5 * YEAR })
    laterHeld = await member({ created: 4 * YEAR })
    const signedIn = await member({ created: 5 * YEAR, login: 10 * DAY })
    const rode = await member({ created: 5 * YEAR, login: 4 * YEAR, activeDay: 100 })
    const inSession = await member({ created: 5 * YEAR, login: 4 * YEAR })
    // Uses the app every week on a session opened years ago: sessions last while they are used.
    await db()
      .insertInto('memSession')
      .values({ tokenHash: unique().repeat(8), memberId: inSession.memberId, created: ago(4 * YEAR), lastSeen: ago(2 * DAY), expiresAt: ago(-28 * DAY), ended: null })
      .execute()
    const held = await member({ created: 5 * YEAR, legalHold: 'Dispute 2026-17' })
    const young = await member({ created: 2 * YEAR })
    const erased = await member({ created: 5 * YEAR, erased: true })

    const result = await runRetention()
    expect(result.notices).toMatchObject({ sent: 4, voided: 0 })
    expect(result.notices!.held).toBeGreaterThanOrEqual(1)
    expect(result.removed.inactiveMembers).toBe(0)

    for (const m of [lapsed, german, rider, laterHeld]) {
      const s = await state(m.memberId)
      expect(s.erasureNoticeTime, m.email).not.toBeNull()
      expect(s.erasedTime).toBeNull()
      const messages = await inbox(m.memberId)
      expect(messages, m.email).toHaveLength(1)
      expect(messages[0]!.status).toBe('sent')
    }
    const erasureDay = new Date(Date.parse(String((await state(lapsed.memberId)).erasureNoticeTime)) + 30 * DAY)
    const [english] = await inbox(lapsed.memberId)
    expect(english!.title).toBe('Your account will be erased')
    expect(english!.content).toContain(new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(erasureDay))
    expect(english!.content).toContain('sign in')
    // In the member's language, read off their country.
    expect((await inbox(german.memberId))[0]!.title).toBe('Ihr Konto wird gelöscht')

    for (const m of [signedIn, rode, inSession, held, young, erased]) {
      expect((await state(m.memberId)).erasureNoticeTime, m.email).toBeNull()
      expect(await inbox(m.memberId), m.email).toEqual([])
    }

    // Told once: the next run sends nothing more.
    expect((await runRetention()).notices).toMatchObject({ sent: 0, voided: 0 })
    expect(await inbox(lapsed.memberId)).toHaveLength(1)
  })

  it('voids the notice of a member who signs in or is active again after it', async () => {
    // The app's sign-in: the member reads the notice in their inbox.
    const login = await t.call<{ token: string }>({ method: 'POST', url: '/api/app/v1/auth/login', body: { email: lapsed.email, password: PASSWORD } })
    expect(login.status, login.msg).toBe(200)
    const box = await t.call<{ rows: { title: string }[] }>({ url: '/api/app/v1/inbox', headers: { authorization: login.data.token } })
    expect(box.data.rows.map((r) => r.title)).toEqual(['Your account will be erased'])
    // A ride today, kept by the dashboards' rollups.
    await db().updateTable('memMember').set({ lastActiveDay: dayAgo(0) }).where('memberId', '=', rider.memberId).execute()

    const result = await runRetention()
    expect(result.notices).toMatchObject({ sent: 0, voided: 2 })
    expect((await state(lapsed.memberId)).erasureNoticeTime).toBeNull()
    expect((await state(rider.memberId)).erasureNoticeTime).toBeNull()
    expect((await state(german.memberId)).erasureNoticeTime).not.toBeNull()
    expect((await state(german.memberId)).erasedTime).toBeNull()
  })

  it('erases a member still inactive once the notice period has passed, unless a hold was set meanwhile', async () => {
    await backdateNotice(german.memberId, 29)
    await backdateNotice(laterHeld.memberId, 31)
    await db().updateTable('memMember').set({ legalHold: 'Authority request 2026-4' }).where('memberId', '=', laterHeld.memberId).execute()
    // 29 days of 30: not yet.
    let result = await runRetention()
    expect(result.removed.inactiveMembers).toBe(0)
    expect((await state(german.memberId)).erasedTime).toBeNull()
    expect(result.notices!.held).toBeGreaterThanOrEqual(1)

    await backdateNotice(german.memberId, 31)
    result = await runRetention()
    expect(result.removed.inactiveMembers).toBe(1)
    const erased = await state(german.memberId)
    expect(erased.erasedTime).not.toBeNull()
    expect(erased.email).not.toBe(german.email)
    expect(erased.erasureNoticeTime).toBeNull()
    // Held: not erased, its notice kept for when the hold is lifted.
    const held = await state(laterHeld.memberId)
    expect(held.erasedTime).toBeNull()
    expect(held.erasureNoticeTime).not.toBeNull()
  })

  it('follows the years and the notice period as they are changed in the configuration', async () => {
    const twoYears = await member({ created: 2 * YEAR })
    const noticed = await member({ created: 5 * YEAR })
    expect((await runRetention()).notices!.sent).toBe(1)
    await backdateNotice(noticed.memberId, 15)
    expect((await state(twoYears.memberId)).erasureNoticeTime).toBeNull()

    await setConfig('privacy.retention.inactiveMemberYears', '1')
    await setConfig('privacy.retention.erasureNoticeDays', '10')
    try {
      const result = await runRetention()
      // This one, and the member registered 2 years ago in the first test.
      expect(result.notices!.sent).toBe(2)
      expect(result.removed.inactiveMembers).toBe(1)
    } finally {
      await setConfig('privacy.retention.inactiveMemberYears', '3')
      await setConfig('privacy.retention.erasureNoticeDays', '30')
    }
    expect((await state(twoYears.memberId)).erasureNoticeTime).not.toBeNull()
    expect((await state(noticed.memberId)).erasedTime).not.toBeNull()
  })
})
