/**
 * Members benchmark (part of `npm run bench`; alone with BENCH_ONLY=members). For each database it
 * starts the bundled server on a fresh database, fills it with the demo data (`npm run demo`'s
 * generator at full size: 10,000 members, 12,000 bikes, about 1,000,000 rides), then loads
 *
 *  - the member list as its page first asks it (POST /member/member/list, 20 rows, newest first);
 *  - the member drawer's rides (POST /member/ride/list with the member, 10 rows, newest first), for
 *    the member with the most rides;
 *
 * each at 50 and at 1 keep-alive HTTP clients, and runs the SQL the repository compiles for the same
 * request bare on the same database (as the engine benchmark does), printing the throughput ratio;
 * then exports every ride, directly and as a job, beside the export's read bare (bench/ride-export.ts).
 * BENCH_EXPORT_ONLY=1 skips the lists, to look into the export's figures.
 */
import { join } from 'node:path'
import { bikeEntities, memberEntities, type ResolvedEntity } from '@velo/shared'
import { loadConfig } from '../src/config'
import { newUserRow } from '../src/platform/auth/new-user'
import { hashPassword } from '../src/platform/auth/passwords'
import { DataScope, type RowScope } from '../src/platform/rbac/data-scope'
import { createDatabase, type Db } from '../src/db/database'
import { DEFAULT_SEED, runDemo } from '../src/demo'
import { httpLoad, WARMUP_SECONDS } from './measure'
import { type Bench, bareLoad, collectGarbage, type Line, message, results, scratch, signIn, signInAs, type Target } from './run'
import { ADMIN_PASSWORD, ServerProcess } from './server'
import { log, fmt, ms } from './format'
import { mb, measureRideExport, RIDE_EXPORT_TARGET_ROWS_PER_S, RIDE_EXPORT_TARGET_RSS_GROWTH } from './ride-export'

export async function runMembers(target: Target, bench: Pick<Bench, 'seconds' | 'connections' | 'demoScale'>, entry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  const { dir, database, cleanup } = await scratch(target, 'members', async () => {
    await server?.stop()
  })
  try {
    log(`${target.name}: starting the server, then the demo data`)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files') }
    server = await ServerProcess.start(entry, env)
    const base = `${server.baseUrl}/api`
    const token = await signIn(base)
    const headers = { authorization: token, currentlanguage: 'en_US', 'content-type': 'application/json' }
    const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD })
    const { db, dialect } = createDatabase(config.database)
    let busiest: number
    let rides: number
    let regional: { scope: RowScope; countries: number }
    try {
      const demo = await runDemo({ db, dialect, config }, { seed: DEFAULT_SEED, scale: bench.demoScale, force: false })
      notes.push(`${target.name}: demo data ${fmt(demo.rows.mem_member ?? 0)} members, ${fmt(demo.rows.bike_bike ?? 0)} bikes, ${fmt(demo.rows.mem_ride ?? 0)} rides, written in ${fmt(demo.seconds, 1)} s.`)
      const top = await db
        .selectFrom('memRide')
        .select(['memberId', (eb) => eb.fn.countAll<number>().as('rides')])
        .groupBy('memberId')
        .orderBy('rides', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow()
      busiest = Number(top.memberId)
      rides = Number((await db.selectFrom('memRide').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
      notes.push(`${target.name}: the member drawer's rides are those of member ${busiest}, who has ${fmt(Number(top.rides))}.`)
      regional = await regionalUser(db)
      notes.push(`${target.name}: the regional user's role sees "department and below" of Sales Europe (its region: ${regional.countries} countries), through the data scope every list applies.`)
    } finally {
      await db.destroy()
    }
    const regionalToken = await signInAs(base, REGIONAL_USER, REGIONAL_PASSWORD)
    const regionalHeaders = { ...headers, authorization: regionalToken }

    const cases: { name: string; entity: ResolvedEntity; body: Record<string, unknown>; scope?: RowScope; headers?: Record<string, string> }[] = [
      { name: 'member list', entity: memberEntities.member, body: { pageNum: 1, pageSize: 20 } },
      { name: "member drawer's rides", entity: memberEntities.ride, body: { pageNum: 1, pageSize: 10, memberId: busiest } },
      // The data scope's cost: a country list on the member, a subquery through the member on the bike.
      { name: 'member list, regional scope', entity: memberEntities.member, body: { pageNum: 1, pageSize: 20 }, scope: regional.scope, headers: regionalHeaders },
      { name: 'bike list, regional scope', entity: bikeEntities.bike, body: { pageNum: 1, pageSize: 20 }, scope: regional.scope, headers: regionalHeaders },
    ]
    for (const c of process.env.BENCH_EXPORT_ONLY === '1' ? [] : cases) {
      const load = (connections: number, seconds: number) => {
        collectGarbage()
        return httpLoad({ url: `${base}${c.entity.path}/list`, method: 'POST', headers: c.headers ?? headers, body: JSON.stringify(c.body), connections, warmup: WARMUP_SECONDS, seconds })
      }
      log(`${target.name}: ${c.name}, ${bench.connections} clients, then 1, then bare`)
      const many = await load(bench.connections, bench.seconds)
      const one = await load(1, Math.min(bench.seconds, 5))
      collectGarbage()
      const bare = await bareLoad(database.config, c.body, bench, c.entity, c.scope)
      if (many.errors || one.errors) notes.push(`${target.name}: ${fmt(many.errors + one.errors)} ${c.name} requests failed or answered non-2xx.`)
      const ratio = many.perSecond / bare.result.perSecond
      add(`${c.name} p50 / p99 (${bench.connections} clients)`, `${ms(many.p50)} / ${ms(many.p99)}, ${fmt(many.perSecond)} req/s`)
      add(`${c.name} p50 / p99 (1 client)`, `${ms(one.p50)} / ${ms(one.p99)}`)
      add(`${c.name} bare SQL (${bare.model})`, `${ms(bare.result.p50)} / ${ms(bare.result.p99)}, ${fmt(bare.result.perSecond)} q/s`)
      // No target here: a statement of a tenth of a millisecond costs less than the HTTP round trip
      // around it, so the ratio says how much of the request is the engine's, not whether it is slow.
      add(`${c.name} ÷ bare throughput`, fmt(ratio, 2))
    }

    // --- every ride exported, directly and as a job, each on a fresh server process (V8 keeps what it grew to)
    try {
      const x = await measureRideExport({
        name: target.name,
        base,
        headers: { authorization: token, currentlanguage: 'en_US' },
        database: database.config,
        total: rides,
        restart: async () => {
          const port = server!.port
          await server!.stop()
          server = await ServerProcess.start(entry, env, port)
          return server
        },
      })
      const rowsTarget = { target: `≥ ${fmt(RIDE_EXPORT_TARGET_ROWS_PER_S)} rows/s` }
      const rssTarget = { target: `≤ +${mb(RIDE_EXPORT_TARGET_RSS_GROWTH)}` }
      const cpu = (c: number | null) => (c === null ? '' : `, server CPU ${fmt(c, 1)} s`)
      add(`rides export (${fmt(rides)} rows)`, `${fmt(x.direct.rate)} rows/s (${fmt(x.direct.seconds, 1)} s, ${mb(x.direct.bytes)} .xlsx${cpu(x.direct.cpu)})`, { ...rowsTarget, pass: x.direct.rate >= RIDE_EXPORT_TARGET_ROWS_PER_S })
      add('rides export peak RSS over idle (server)', `+${mb(x.direct.peak - x.direct.idle)} (${mb(x.direct.idle)} → ${mb(x.direct.peak)})`, { ...rssTarget, pass: x.direct.peak - x.direct.idle <= RIDE_EXPORT_TARGET_RSS_GROWTH })
      add(`rides export as a job (${fmt(rides)} rows)`, `${fmt(x.job.rate)} rows/s (${fmt(x.job.seconds, 1)} s queued to done, ${fmt(x.job.serverSeconds, 1)} s running, ${mb(x.job.bytes)} .xlsx${cpu(x.job.cpu)} with the download)`, { ...rowsTarget, pass: x.job.rate >= RIDE_EXPORT_TARGET_ROWS_PER_S })
      add('rides export job peak RSS over idle (server)', `+${mb(x.job.peak - x.job.idle)} (${mb(x.job.idle)} → ${mb(x.job.peak)})`, { ...rssTarget, pass: x.job.peak - x.job.idle <= RIDE_EXPORT_TARGET_RSS_GROWTH })
      add('rides export read bare (same statements, same database layer)', `${fmt(x.bare.rate)} rows/s (${fmt(x.bare.seconds, 1)} s)`)
      add('rides export ÷ bare read', fmt(x.direct.rate / x.bare.rate, 2))
    } catch (err) {
      add('rides export', `failed: ${message(err, server)}`, { target: `≥ ${fmt(RIDE_EXPORT_TARGET_ROWS_PER_S)} rows/s`, pass: false })
    }
  } catch (err) {
    add('members', `failed: ${message(err, server)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}

const REGIONAL_USER = 'benchregional'
const REGIONAL_PASSWORD = 'Regional12!'

/**
 * A user of Sales Europe whose role sees "department and below" and may list members and bikes, and
 * the scope the server resolves for her (as the bare SQL must be the same statement).
 */
async function regionalUser(db: Db): Promise<{ scope: RowScope; countries: number }> {
  const dept = await db.selectFrom('sysDept').select('deptId').where('deptName', '=', 'Sales Europe').executeTakeFirstOrThrow()
  const deptId = Number(dept.deptId)
  const now = new Date().toISOString()
  const role = await db
    .insertInto('sysRole')
    .values({ roleName: 'Regional bench', roleKey: 'benchregional', roleSort: 9, dataScope: DataScope.deptAndBelow, status: '0', delFlag: '0', createBy: 'bench', createTime: now })
    .returning('roleId')
    .executeTakeFirstOrThrow()
  const menus = await db.selectFrom('sysMenu').select('menuId').where('perms', 'in', ['member:member:list', 'bike:bike:list']).execute()
  await db.insertInto('sysRoleMenu').values(menus.map((m) => ({ roleId: role.roleId, menuId: m.menuId }))).execute()
  const user = await db
    .insertInto('sysUser')
    .values(newUserRow({ userName: REGIONAL_USER, passwordHash: await hashPassword(REGIONAL_PASSWORD), deptId, createBy: 'bench' }))
    .returning('userId')
    .executeTakeFirstOrThrow()
  await db.insertInto('sysUserRole').values({ userId: user.userId, roleId: role.roleId }).execute()
  const countries = (await db.selectFrom('sysDeptCountry').select('countryId').distinct().where('deptId', '=', deptId).execute()).map((r) => Number(r.countryId)).sort((a, b) => a - b)
  return { scope: { all: false, deptIds: [deptId], countryIds: countries, userId: null, userName: null }, countries: countries.length }
}
