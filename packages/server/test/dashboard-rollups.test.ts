import { sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { mondayOf } from '../src/modules/dashboard/engagement'
import { bucketTop, refreshRollups, refreshRollupsUpTo, resetRollups, rollupsRefreshedAt} from '../src/modules/dashboard/rollups'
import { ago, at, fixtures } from './dashboard-fixtures'
import { createTestApp, useTestApp } from './harness'

// The dashboards' rollups: facts added by id watermark, once, whatever refreshes run at once (in one
// server or two on the same database), capped per request, emptied and rebuilt by the demo.
const t = useTestApp()
const f = fixtures(t)
const dialect = () => t.app.services.dialect

type Row = Record<string, unknown>
const memberDays = async (memberId: number) =>
  (await sql<Row>`select day, country_id as "countryId", rides, distance, app_events as "appEvents" from dash_member_day where member_id = ${memberId} order by day`.execute(f.db())).rows.map((r) => ({
    day: r.day,
    countryId: Number(r.countryId),
    rides: Number(r.rides),
    distance: Number(r.distance),
    appEvents: Number(r.appEvents),
  }))
const appDays = async (memberId: number) =>
  (
    await sql<Row>`select day, platform, app_version as v, events, sessions, crashed_sessions as crashed, crash_reports as reports from dash_app_day where member_id = ${memberId} order by day, platform, app_version`.execute(
      f.db(),
    )
  ).rows.map((r) => [r.day, r.platform, r.v, Number(r.events), Number(r.sessions), Number(r.crashed), Number(r.reports)])

describe('dashboard rollups', () => {
  it('add each fact once: a second refresh finds nothing new', async () => {
    const A = await f.country()
    const m = await f.member({ countryId: A, createTime: at(5) })
    await f.ride(m, at(2, 8), 4.5)
    await f.ride(m, at(2, 18), 3)
    await f.event(m, { time: at(2), code: 'app.launch', platform: 'android', appVersion: '2.0.0', value: 700 })
    await f.event(m, { time: at(1), code: 'app.crash', platform: 'android', appVersion: '2.0.0' })
    await f.upload(m, { time: at(1), platform: 'android', appVersion: '2.0.0' })
    await f.upload(m, { time: at(1), platform: 'android', appVersion: '2.0.0', logType: 'log' })
    const first = await refreshRollups(f.db(), dialect())
    expect(first.rows).toBe(6)
    const days = [
      { day: ago(2), countryId: A, rides: 2, distance: 7.5, appEvents: 1 },
      { day: ago(1), countryId: A, rides: 0, distance: 0, appEvents: 1 },
    ]
    expect(await memberDays(m)).toEqual(days)
    expect(await appDays(m)).toEqual([
      [ago(2), 'android', '2.0.0', 1, 1, 0, 0],
      [ago(1), 'android', '2.0.0', 1, 0, 1, 1],
    ])
    // Active in the weeks and months of both days, at all and on Android (the events' platform).
    const periods = (await sql<Row>`select kind, period, platform from dash_member_period where member_id = ${m}`.execute(f.db())).rows.map((r) => `${r.kind} ${r.period} ${r.platform}`)
    const expected = [ago(2), ago(1)].flatMap((d) => ['', 'android'].flatMap((p) => [`w ${mondayOf(d)} ${p}`, `m ${d.slice(0, 7)} ${p}`]))
    expect(periods.sort()).toEqual([...new Set(expected)].sort())
    const second = await refreshRollups(f.db(), dialect())
    expect(second.rows).toBe(0)
    expect(await memberDays(m)).toEqual(days)
    // Facts written later are added to the same day's row.
    await f.ride(m, at(2, 20), 1)
    expect((await refreshRollups(f.db(), dialect())).rows).toBe(1)
    expect((await memberDays(m))[0]).toEqual({ ...days[0], rides: 3, distance: 8.5 })
  })

  it('count once when refreshes run at once, in one server or two on the same database', async () => {
    const m = await f.member({ countryId: await f.country(), createTime: at(5) })
    for (let i = 0; i < 20; i++) await f.ride(m, at(3, i % 24))
    for (let i = 0; i < 10; i++) await f.event(m, { time: at(3), code: 'app.launch', value: 100 * i })
    await Promise.all([refreshRollups(f.db(), dialect()), refreshRollups(f.db(), dialect()), refreshRollups(f.db(), dialect())])
    expect(await memberDays(m)).toMatchObject([{ day: ago(3), rides: 20, appEvents: 10 }])

    const other = await createTestApp({}, { databaseUrl: t.databaseUrl })
    try {
      for (let i = 0; i < 15; i++) await f.ride(m, at(2))
      for (let i = 0; i < 5; i++) await f.event(m, { time: at(2) })
      const otherDb = other.app.services.db
      await Promise.all([refreshRollups(f.db(), dialect()), refreshRollups(otherDb, dialect()), refreshRollups(otherDb, dialect()), refreshRollups(f.db(), dialect())])
      expect(await memberDays(m)).toMatchObject([
        { day: ago(3), rides: 20, appEvents: 10 },
        { day: ago(2), rides: 15, appEvents: 5 },
      ])
      // The per-day counts agree with the member-days they summarise.
      const counted = (await sql<Row>`select day, country_id as c, dau, rides from dash_day order by day, country_id`.execute(f.db())).rows.map((r) => [r.day, Number(r.c), Number(r.dau), Number(r.rides)])
      const recounted = (
        await sql<Row>`select day, coalesce(country_id, 0) as c, count(*) as dau, sum(rides) as rides from dash_member_day group by day, coalesce(country_id, 0) order by day, 2`.execute(f.db())
      ).rows.map((r) => [r.day, Number(r.c), Number(r.dau), Number(r.rides)])
      expect(counted).toEqual(recounted)
    } finally {
      await other.app.close()
    }
  })

  it.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: never passes a ride still being written (a later id committed first)', async () => {
    const m = await f.member({ countryId: await f.country(), createTime: at(5) })
    const writer = new pg.Client({ connectionString: t.databaseUrl })
    await writer.connect()
    try {
      await writer.query('begin')
      await writer.query('insert into mem_ride (member_id, upload_time, distance) values ($1, $2, 1)', [m, at(2)])
      // A later id, committed while the first is still open.
      await f.ride(m, at(2))
      await refreshRollups(f.db(), dialect())
      await writer.query('commit')
      await refreshRollups(f.db(), dialect())
      expect(await memberDays(m)).toMatchObject([{ day: ago(2), rides: 2 }])
    } finally {
      await writer.end()
    }
  })

  it('take at most the cap per refresh, leaving the rest (and the refreshedAt stamp) to the next', async () => {
    await refreshRollups(f.db(), dialect())
    const stamped = await rollupsRefreshedAt(f.db())
    expect(stamped).toBeTruthy()
    const m = await f.member({ countryId: await f.country(), createTime: at(5) })
    for (let i = 0; i < 5; i++) await f.ride(m, at(4))
    const some = await refreshRollupsUpTo(f.db(), dialect(), 2)
    expect(some.rows).toBe(2)
    expect(await memberDays(m)).toMatchObject([{ rides: 2 }])
    // Not complete: the rides' stamp stays the last complete refresh's.
    expect(await rollupsRefreshedAt(f.db())).toBe(stamped)
    const rest = await refreshRollups(f.db(), dialect())
    expect(rest.rows).toBe(3)
    expect(await memberDays(m)).toMatchObject([{ rides: 5 }])
    expect(new Date((await rollupsRefreshedAt(f.db()))!).getTime()).toBeGreaterThanOrEqual(new Date(stamped!).getTime())
  })

  it('put cold starts in 50, 100 and 500 ms buckets, with 30 s and over in one', async () => {
    const m = await f.member({ countryId: await f.country(), createTime: at(5) })
    const values = [-5, 0, 49.9, 50, 1999, 2000, 4999, 5000, 29999, 30000, 90000]
    for (const value of values) await f.event(m, { time: at(6), code: 'app.launch', platform: 'ios', appVersion: '9.9.9', value })
    await f.event(m, { time: at(6), code: 'app.launch', platform: 'ios', appVersion: '9.9.9', value: null })
    await refreshRollups(f.db(), dialect())
    const rows = (await sql<Row>`select bucket, n from dash_start_hist where app_version = '9.9.9' order by bucket`.execute(f.db())).rows.map((r) => [Number(r.bucket), Number(r.n)])
    expect(rows).toEqual([
      [0, 3],
      [50, 1],
      [1950, 1],
      [2000, 1],
      [4900, 1],
      [5000, 1],
      [29500, 1],
      [30000, 2],
    ])
    expect([0, 1950, 2000, 4900, 5000, 29500, 30000].map(bucketTop)).toEqual([50, 2000, 2100, 5000, 5500, 30000, 30000])
    // The launch without a time is still a session.
    expect((await appDays(m))[0]).toEqual([ago(6), 'ios', '9.9.9', 12, 12, 0, 0])
  })

  it("are brought up to date by the scheduler's dashboardRollups sweep, every 30 s", async () => {
    const m = await f.member({ countryId: await f.country(), createTime: at(5) })
    await f.ride(m, at(1))
    const { scheduler } = t.app.services.jobs
    await scheduler.runNow('dashboardRollups')
    expect(await memberDays(m)).toMatchObject([{ day: ago(1), rides: 1 }])
    expect((await scheduler.list()).find((w) => w.key === 'dashboardRollups')).toMatchObject({ runs: 'once', everyMs: 30_000, lastError: null })
  })

  it('are emptied by a reset and rebuilt the same by the next refresh', async () => {
    await refreshRollups(f.db(), dialect())
    const all = async () => ({
      member: (await sql<Row>`select * from dash_member_day order by day, member_id`.execute(f.db())).rows,
      app: (await sql<Row>`select * from dash_app_day order by day, member_id, platform, app_version`.execute(f.db())).rows,
      hist: (await sql<Row>`select * from dash_start_hist order by day, platform, app_version, country_id, bucket`.execute(f.db())).rows,
      days: (await sql<Row>`select * from dash_day order by day, country_id`.execute(f.db())).rows,
      periods: (await sql<Row>`select * from dash_member_period order by kind, period, platform, member_id`.execute(f.db())).rows,
    })
    const before = await all()
    expect(before.member.length).toBeGreaterThan(0)
    await t.app.services.db.transaction().execute((tx) => resetRollups(tx, dialect()))
    expect(await all()).toEqual({ member: [], app: [], hist: [], days: [], periods: [] })
    expect(await rollupsRefreshedAt(f.db())).toBeNull()
    await refreshRollups(f.db(), dialect())
    expect(await all()).toEqual(before)
  })
})
