import { randomBytes } from 'node:crypto'
import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { hashPassword } from '../src/platform/auth/passwords'
import { limitedUser, snapshot, useTestApp } from './harness'

// POST /app/v1/tracking/events (modules/app/tracking.ts): the signed-in member's app records events
// against the enabled codes of the tracking configuration; staff read them in the tracking events
// list. Refused events are named with their index and why, and change nothing.
const t = useTestApp()
const db = () => t.app.services.db
const URL = '/api/app/v1/tracking/events'
const MINUTE = 60_000
const DAY = 86_400_000
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()
const unique = () => randomBytes(4).toString('hex')
const PASSWORD = 'Rider2026!'

async function newMember(): Promise<{ memberId: number; token: string }> {
  const email = `tracker-${unique()}@example.com`
  const row = await db()
    .insertInto('memMember')
    .values({ email, firstName: 'Tra', lastName: 'Cker', status: '0', passwordHash: await hashPassword(PASSWORD), createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  const res = await t.call<{ token: string }>({ method: 'POST', url: '/api/app/v1/auth/login', body: { email, password: PASSWORD } })
  expect(res.status, res.msg).toBe(200)
  return { memberId: Number(row.memberId), token: res.data.token as string }
}

const event = (o: Record<string, unknown> = {}) => ({ code: 'app.launch', sessionId: 's-1', platform: 'ios', appVersion: '2.4.0', value: 812, time: at(-MINUTE), ...o })
const send = (token: string | undefined, events: unknown[], lang?: 'en_US' | 'zh_CN') => t.call<{ accepted: number; refused: unknown[] }>({ method: 'POST', url: URL, token, body: { events }, lang })
const events = () => snapshot(t, 'dashTrackingEvent' as never)

describe('app tracking events', () => {
  it('records an accepted batch as the caller’s, in one go, and staff list it under dashboard:tracking:list', async () => {
    const { memberId, token } = await newMember()
    const other = await newMember()
    const batch = [
      event({ time: at(-2 * MINUTE) }),
      // A member id in the event is not read: the events are the caller's.
      { ...event({ code: 'screen.map', value: null }), memberId: other.memberId },
      event({ code: 'app.crash', sessionId: 's-0', value: undefined, platform: 'android', appVersion: '2.3.9' }),
    ]
    const res = await send(token, batch)
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toEqual({ accepted: 3, refused: [] })
    expect(res.msg).toBe('3 events recorded')

    const reader = await limitedUser(t, { userName: `trk${unique()}`, dataScope: '1', perms: ['dashboard:tracking:list'] })
    const listed = await t.call<Paged<{ code: string; sessionId: string; platform: string; appVersion: string; value: number | null; memberId: number; eventTime: string; receiveTime: string }>>({ method: 'POST', url: '/api/dashboard/trackingEvent/list', token: reader.token, body: { memberId, pageSize: 50, orderByColumn: 'eventTime', isAsc: 'ascending' } })
    expect(listed.status, listed.msg).toBe(200)
    expect(listed.data.total).toBe(3)
    expect(listed.data.rows.map((r) => [r.code, r.sessionId, r.platform, r.appVersion, r.value, r.memberId])).toEqual([
      ['app.launch', 's-1', 'ios', '2.4.0', 812, memberId],
      ['screen.map', 's-1', 'ios', '2.4.0', null, memberId],
      ['app.crash', 's-0', 'android', '2.3.9', null, memberId],
    ])
    expect(listed.data.rows[0]!.eventTime).toBe(batch[0]!.time)
    expect(Math.abs(Date.parse(listed.data.rows[0]!.receiveTime) - Date.now())).toBeLessThan(MINUTE)
    // Nothing for the member named in the body.
    const theirs = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/dashboard/trackingEvent/list', token: t.admin, body: { memberId: other.memberId } })
    expect(theirs.data.total).toBe(0)
    // Without the right, staff may not read them.
    const outsider = await limitedUser(t, { userName: `trk${unique()}`, dataScope: '1', perms: ['dashboard:satisfaction:list'] })
    expect((await t.call({ method: 'POST', url: '/api/dashboard/trackingEvent/list', token: outsider.token, body: {} })).status).toBe(403)
  })

  it('refuses unknown and disabled codes, times too far ahead or too old and malformed versions, one by one, keeping the others', async () => {
    const { memberId, token } = await newMember()
    await db().updateTable('dashTrackingNode').set({ status: '1' }).where('code', '=', 'ride.share').execute()
    try {
      const res = await send(token, [
        event({ code: 'no.such.code' }),
        event({ code: 'ride.share' }),
        event({ time: at(6 * MINUTE) }),
        event({ time: at(-31 * DAY) }),
        event({ appVersion: '2.4' }),
        event({ code: 'ride.start', time: at(4 * MINUTE) }),
        event({ code: 'ride.finish', time: at(-29 * DAY), value: 12.5 }),
      ])
      expect(res.status, res.msg).toBe(200)
      expect(res.data.accepted).toBe(2)
      expect(res.data.refused).toEqual([
        { index: 0, code: 'no.such.code', reason: 'Tracking code "no.such.code" is not configured or is disabled' },
        { index: 1, code: 'ride.share', reason: 'Tracking code "ride.share" is not configured or is disabled' },
        { index: 2, code: 'app.launch', reason: 'The event time is more than 5 minutes ahead of the server' },
        { index: 3, code: 'app.launch', reason: 'The event is older than 30 days' },
        { index: 4, code: 'app.launch', reason: 'App version "2.4" is not of the form 1.2.3' },
      ])
      const stored = await db().selectFrom('dashTrackingEvent').select(['code', 'value']).where('memberId', '=', memberId).orderBy('eventId').execute()
      expect(stored.map((r) => [r.code, r.value === null ? null : Number(r.value)])).toEqual([
        ['ride.start', 812],
        ['ride.finish', 12.5],
      ])

      // In the caller's language; a batch with nothing acceptable writes nothing.
      const before = await events()
      const zh = await send(token, [event({ code: 'ride.share' })], 'zh_CN')
      expect(zh.data).toEqual({ accepted: 0, refused: [{ index: 0, code: 'ride.share', reason: '埋点编码“ride.share”未配置或已停用' }] })
      expect(zh.msg).toBe('未记录任何事件')
      expect(await events()).toEqual(before)
    } finally {
      await db().updateTable('dashTrackingNode').set({ status: '0' }).where('code', '=', 'ride.share').execute()
    }
  })

  it('answers 400 for an empty or a 101-event batch and a malformed event, 401 without a member token, writing nothing', async () => {
    const { token } = await newMember()
    const before = await events()
    expect((await send(token, [])).status).toBe(400)
    expect((await send(token, Array.from({ length: 101 }, (_, i) => event({ sessionId: `s${i}` })))).status).toBe(400)
    expect((await send(token, [event({ platform: 'web' })])).status).toBe(400)
    expect((await send(token, [event({ time: 'yesterday' })])).status).toBe(400)
    expect((await send(token, [{ code: 'app.launch' }])).status).toBe(400)
    expect((await send(undefined, [event()])).status).toBe(401)
    // A staff token is no member token.
    expect((await send(t.admin, [event()])).status).toBe(401)
    expect(await events()).toEqual(before)
    // 100 is the most a batch may hold.
    const full = await send(token, Array.from({ length: 100 }, (_, i) => event({ sessionId: `s${i}` })))
    expect(full.data).toMatchObject({ accepted: 100, refused: [] })
  })
})
