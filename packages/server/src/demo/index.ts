import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { AppConfig } from '../config'
import type { Db, Dialect } from '../db/database'
import { migrateToLatest } from '../db/migrate'
import { DEMO_MODEL, seed, type SeedResult } from '../seed'
import { hashPassword } from '../platform/auth/passwords'
import { Storage } from '../platform/storage'
import { refreshRollups, resetRollups } from '../modules/dashboard/rollups'
import { appReleases, DEMO_RIDER, planContent, writeContent, writeContentFiles } from './content'
import { appUsage, planDevices, planServiceOrders, type PlannedServiceOrder, RideDays, TRACKING_DAYS, writeAlarms, writeDevices, writeServiceOrders, writeTracking } from './dashboards'
import { buildPlan, DAY, type Plan, type PlannedBike, type RideRow } from './generate'
import { orderCounts } from './orders'
import { writeOtaCatalogue } from './ota'
import { bikeDrawing, hexColour, pictureName, swatch } from './placeholders'
import { RideTracks, tracksFrom, writeTracks } from './tracks'
import { type Lang, PICTURES, STATIC_IMAGES } from './vocabulary'
import { query, TableWriter } from './write'

// `npm run demo` (scripts/demo.ts): fills the members, bikes and App content areas with believable data.
//
// What is demo data: the demo owns the tables of those areas (DEMO_TABLES). It writes every row
// it adds there with create_by 'velo-demo' (a name no staff user can have: user names are letters
// and digits), rides, vehicle records and tag links under demo members, bikes and feedback,
// signatures, inbox rows and app uploads under demo agreements, messages and members, the app's
// tracking events under demo members and warnings under demo IoT devices, and records
// the run in the configuration key sys.demo.seed. The sys_file rows of its manuals and uploads carry
// the mark too (that table is not the demo's: only its own rows are replaced). A database "holds non-demo data" when
// one of those tables has a row while the key is absent, or a row not marked as the demo's.
// Without --force such a database is refused before anything is changed (not even migrated);
// otherwise every row of the tables is deleted and the demo data written, in one transaction.

export const DEMO_MARK = 'velo-demo'
export const DEMO_KEY = 'sys.demo.seed'
export const DEFAULT_SEED = 2026

/** The tables the demo fills, parents first; the audited ones carry create_by. */
export const DEMO_TABLES: readonly { table: string; audited: boolean }[] = [
  { table: 'bike_model', audited: true },
  { table: 'bike_model_colour', audited: true },
  { table: 'bike_model_size', audited: true },
  { table: 'bike_picture', audited: true },
  { table: 'bike_static_image', audited: true },
  { table: 'mem_feedback_tag', audited: true },
  { table: 'mem_member', audited: true },
  { table: 'ord_device_order', audited: true },
  // Before the bikes, which name them (demo/dashboards.ts).
  { table: 'iot_device', audited: true },
  { table: 'iot_alarm', audited: false },
  // The positions of the busiest bikes' rides (demo/tracks.ts).
  { table: 'iot_telemetry', audited: false },
  { table: 'bike_bike', audited: true },
  { table: 'ord_frame_number', audited: true },
  { table: 'ord_frame_series', audited: false },
  { table: 'mem_ride', audited: false },
  { table: 'dash_tracking_event', audited: false },
  { table: 'bike_record', audited: false },
  { table: 'mem_feedback', audited: true },
  { table: 'mem_feedback_tag_link', audited: false },
  { table: 'service_repair_order', audited: true },
  // App content (demo/content.ts).
  { table: 'cnt_protocol', audited: true },
  { table: 'cnt_protocol_signature', audited: false },
  { table: 'cnt_message', audited: true },
  { table: 'cnt_message_member', audited: false },
  { table: 'cnt_message_recipient', audited: false },
  { table: 'cnt_app_version', audited: true },
  { table: 'cnt_activity', audited: true },
  { table: 'cnt_banner', audited: true },
  { table: 'cnt_guide', audited: true },
  { table: 'cnt_achievement', audited: true },
  { table: 'content_faq', audited: true },
  { table: 'cnt_policy', audited: true },
  { table: 'cnt_user_help', audited: true },
  { table: 'cnt_error_code', audited: true },
  { table: 'cnt_service_centre', audited: true },
  { table: 'mon_app_upload_log', audited: false },
  { table: 'ota_supplier', audited: true },
  { table: 'ota_product', audited: true },
]

/** Rows of the unaudited tables that belong to no demo row of their parent. */
const FOREIGN_CHILDREN: Record<string, string> = {
  mem_ride: `select count(*) as f from mem_ride c where not exists (select 1 from mem_member p where p.member_id = c.member_id and p.create_by = '${DEMO_MARK}')`,
  // Events by demo members, and warnings on demo devices (the gateway raises more on them as time passes: the demo's too).
  dash_tracking_event: `select count(*) as f from dash_tracking_event c where not exists (select 1 from mem_member p where p.member_id = c.member_id and p.create_by = '${DEMO_MARK}')`,
  iot_alarm: `select count(*) as f from iot_alarm c where not exists (select 1 from iot_device p where p.device_id = c.device_id and p.create_by = '${DEMO_MARK}')`,
  iot_telemetry: `select count(*) as f from iot_telemetry c where not exists (select 1 from iot_device p where p.device_id = c.device_id and p.create_by = '${DEMO_MARK}')`,
  bike_record: `select count(*) as f from bike_record c where not exists (select 1 from bike_bike p where p.bike_id = c.bike_id and p.create_by = '${DEMO_MARK}')`,
  // A series is the demo's while a demo number carries its prefix.
  ord_frame_series: `select count(*) as f from ord_frame_series s where not exists (select 1 from ord_frame_number n where n.create_by = '${DEMO_MARK}' and substr(n.frame_number, 1, length(s.prefix)) = s.prefix)`,
  mem_feedback_tag_link: `select count(*) as f from mem_feedback_tag_link c where not exists (select 1 from mem_feedback p where p.feedback_id = c.feedback_id and p.create_by = '${DEMO_MARK}')`,
  cnt_protocol_signature: `select count(*) as f from cnt_protocol_signature c where not exists (select 1 from cnt_protocol p where p.protocol_id = c.protocol_id and p.create_by = '${DEMO_MARK}')`,
  cnt_message_member: `select count(*) as f from cnt_message_member c where not exists (select 1 from cnt_message p where p.message_id = c.message_id and p.create_by = '${DEMO_MARK}')`,
  cnt_message_recipient: `select count(*) as f from cnt_message_recipient c where not exists (select 1 from cnt_message p where p.message_id = c.message_id and p.create_by = '${DEMO_MARK}')`,
  // An upload is the demo's while a demo member sent it (as a ride is): anonymous ones are not.
  mon_app_upload_log: `select count(*) as f from mon_app_upload_log c where not exists (select 1 from mem_member p where p.member_id = c.member_id and p.create_by = '${DEMO_MARK}')`,
}

export interface DemoOptions {
  seed: number
  /** 1 = the full size (10,000 members, 12,000 bikes, 1,000,000 rides, 3,000 feedback). */
  scale: number
  force: boolean
  /** The data ends here (a UTC midnight): the start of today unless pinned. */
  end?: Date
  /** When the demo runs (tests pin it): the offline warnings the server's check would have raised by then are written. */
  now?: Date
  log?: (line: string) => void
}

export interface DemoResult {
  seed: number
  scale: number
  end: string
  rows: Record<string, number>
  seconds: number
  /** What the server's seed did on a fresh database (the generated admin password, printed once). */
  seedResult: SeedResult
  /** Rows of the tables that were deleted because --force was given (none when they were demo rows). */
  replacedForeign: { table: string; rows: number }[]
  /** The member who can sign in to the app API, and their password. */
  rider: { memberId: number; email: string; password: string }
}

/** The database holds rows the demo did not write, and --force was not given. */
export class DemoRefused extends Error {
  constructor(readonly foreign: { table: string; rows: number }[]) {
    super(
      `The database holds data the demo did not write (${foreign.map((f) => `${f.table}: ${f.rows} rows`).join(', ')}). ` +
        'The demo replaces only its own data. To delete every row of the members, bikes, IoT devices, service orders and app content tables and fill them with demo data, run it with --force.',
    )
  }
}

interface Inspection {
  keyPresent: boolean
  /** Rows per demo table that are not known to be the demo's. */
  foreign: { table: string; rows: number }[]
}

/** What the demo tables hold now; a missing table holds nothing. */
export async function inspect(db: Db, dialect: Dialect): Promise<Inspection> {
  const tables = new Set(
    (
      await query<{ name: string }>(
        db,
        dialect === 'postgres' ? 'select table_name as name from information_schema.tables where table_schema = current_schema()' : "select name from sqlite_master where type = 'table'",
      )
    ).map((t) => t.name),
  )
  const keyPresent = tables.has('sys_config') && (await query(db, `select 1 as x from sys_config where config_key = ${mark(dialect)}`, [DEMO_KEY])).length > 0
  const foreign: Inspection['foreign'] = []
  for (const { table, audited } of DEMO_TABLES) {
    if (!tables.has(table)) continue
    const [{ n, f }] = (await query<{ n: number; f: number }>(
      db,
      audited ? `select count(*) as n, coalesce(sum(case when create_by = '${DEMO_MARK}' then 0 else 1 end), 0) as f from ${table}` : `select count(*) as n, 0 as f from ${table}`,
    )) as [{ n: number; f: number }]
    const rows = Number(n)
    if (!rows) continue
    let notOurs = Number(f)
    if (!audited && keyPresent) notOurs = Number((await query<{ f: number }>(db, FOREIGN_CHILDREN[table]!))[0]!.f)
    if (!keyPresent) notOurs = rows
    if (notOurs) foreign.push({ table, rows: notOurs })
  }
  return { keyPresent, foreign }
}

/** The first parameter's placeholder. */
const mark = (dialect: Dialect) => (dialect === 'postgres' ? '$1' : '?')

/** UTC midnight at the start of the day of `t`. */
export function startOfDay(t: Date): Date {
  return new Date(Math.floor(t.getTime() / DAY) * DAY)
}

/** Refuses (DemoRefused) a database runDemo would refuse, changing nothing: the quick start's first step. */
export async function checkDemo(services: { db: Db; dialect: Dialect }, o: { force: boolean }): Promise<void> {
  const found = await inspect(services.db, services.dialect)
  if (found.foreign.length && !o.force) throw new DemoRefused(found.foreign)
}

/**
 * Migrates, seeds as the server does at its first start, then replaces the demo tables' content
 * with the data of `seed` at `scale`. Refuses (DemoRefused, nothing changed) a database holding
 * non-demo data unless `force`.
 */
export async function runDemo(services: { db: Db; dialect: Dialect; config: AppConfig }, o: DemoOptions): Promise<DemoResult> {
  const began = performance.now()
  const log = o.log ?? (() => {})
  const { dialect, config } = services
  const db = services.db
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xffffffff) throw new Error('The seed is a whole number from 0 to 4294967295')
  if (!(o.scale > 0 && o.scale <= 5)) throw new Error('The scale is a number above 0, at most 5')
  const end = startOfDay(o.end ?? new Date()).getTime()

  // Before anything is changed, not even a migration.
  const before = await inspect(db, dialect)
  if (before.foreign.length && !o.force) throw new DemoRefused(before.foreign)

  await migrateToLatest(services.db, dialect)
  const seedResult = await seed(services)
  if (seedResult.seeded) log('Seeded the built-in data (menus, roles, the admin user, dictionaries, countries)')

  const countries = new Map((await services.db.selectFrom('sysCountry').select(['code', 'countryId']).execute()).map((c) => [c.code, Number(c.countryId)]))
  // The seed's IoT functions (by command), which feature guides and an activity point at.
  const functions = new Map((await db.selectFrom('iotFunction').select(['command', 'functionId']).execute()).map((f) => [String(f.command), Number(f.functionId)]))
  // The seed's demo IoT model, which the bikes' modules are (the simulator registers as it too).
  const iotModel = await db.selectFrom('iotModel').select('modelId').where('productId', '=', DEMO_MODEL.productId).executeTakeFirst()
  const riderHash = await hashPassword(DEMO_RIDER.password)
  const plan = buildPlan({ seed: o.seed, scale: o.scale, end, countries })
  log(`Planned ${plan.members.length} members, ${plan.bikes.length} bikes, ${plan.feedback.length} feedback (seed ${o.seed}, scale ${o.scale}, up to ${new Date(end).toISOString().slice(0, 10)})`)

  const rows: Record<string, number> = {}
  let replacedForeign: DemoResult['replacedForeign'] = []
  let riderId = 0
  if (dialect === 'sqlite') {
    // More pages in memory while writing: the rides' indexes take rows in three different orders.
    await query(db, 'pragma cache_size = -131072')
  }
  await db.transaction().execute(async (tx) => {
    // Again inside the transaction: nothing can have slipped in since.
    const now = await inspect(tx, dialect)
    if (now.foreign.length && !o.force) throw new DemoRefused(now.foreign)
    replacedForeign = now.foreign
    await clear(tx, dialect)
    // The dashboards' summaries of the facts just deleted: rebuilt from the new ones after the transaction.
    await resetRollups(tx, dialect)
    await writePlaceholders(new Storage(config.storageDir), plan)
    const t0 = performance.now()
    Object.assign(rows, await writeCatalogue(tx, dialect, plan))
    // The parts' makers were chosen before the first bikes were built.
    Object.assign(rows, await writeOtaCatalogue(tx, dialect, { entered: plan.start - 90 * DAY, mark: DEMO_MARK }))
    const rideDays = new RideDays(end - TRACKING_DAYS * DAY)
    const rideTracks = new RideTracks(tracksFrom(end))
    rows.mem_ride = await writeRides(tx, dialect, plan, log, [rideDays, rideTracks])
    log(`Rides written in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    plan.settle()
    // The app's events (after settle: members open the app up to their last login) and the devices.
    const t1 = performance.now()
    const releases = appReleases(end)
    const usage = appUsage(o.seed, releases)
    const tracking = await writeTracking(tx, dialect, plan, { seed: o.seed, rides: rideDays, releases, usage })
    rows.dash_tracking_event = tracking.rows
    const devices = iotModel ? planDevices(plan, o.seed) : []
    const t2 = performance.now()
    const tracks = await writeTracks(tx, dialect, devices, rideTracks, { seed: o.seed, scale: o.scale })
    rows.iot_telemetry = tracks.rows
    log(`Ride positions written in ${((performance.now() - t2) / 1000).toFixed(1)} s (${tracks.rows} reports of ${tracks.last.size} devices)`)
    rows.iot_device = await writeDevices(tx, dialect, plan, devices, { seed: o.seed, modelId: Number(iotModel?.modelId), mark: DEMO_MARK, last: tracks.last })
    rows.iot_alarm = await writeAlarms(tx, dialect, plan, devices, { seed: o.seed, scale: o.scale, modelId: Number(iotModel?.modelId), now: (o.now ?? new Date()).getTime() })
    log(`App events, IoT devices and warnings written in ${((performance.now() - t1) / 1000).toFixed(1)} s`)
    // Before the members are written: it sets their privacy agreement by their signatures, and the rider.
    let contentStarted = performance.now()
    const content = planContent(plan, { seed: o.seed, mark: DEMO_MARK, countries, functions, app: { usage, crashes: tracking.crashes } })
    let contentMs = performance.now() - contentStarted
    content.rider.passwordHash = riderHash
    riderId = content.rider.id
    // After the content: it gives the app rider their e-mail, which their orders carry.
    const serviceOrders = planServiceOrders(plan, o.seed)
    rows.mem_member = await writeMembers(tx, dialect, plan)
    Object.assign(rows, await writeOrders(tx, dialect, plan))
    rows.bike_bike = await writeBikes(tx, dialect, plan, new Map(devices.map((d) => [d.bike, d.id])))
    rows.bike_record = await writeRecords(tx, dialect, plan, serviceOrders)
    Object.assign(rows, await writeFeedback(tx, dialect, plan))
    rows.service_repair_order = await writeServiceOrders(tx, dialect, serviceOrders, DEMO_MARK)
    contentStarted = performance.now()
    await writeContentFiles(new Storage(config.storageDir), content)
    Object.assign(rows, await writeContent(tx, dialect, content, DEMO_MARK))
    contentMs += performance.now() - contentStarted
    log(`App content planned and written in ${(contentMs / 1000).toFixed(1)} s`)
    if (dialect === 'postgres') {
      for (const [table, id] of ID_COLUMNS) await query(tx, `select setval(pg_get_serial_sequence('${table}', '${id}'), (select max(${id}) from ${table}))`)
    }
    const summary = `scale ${o.scale}, data up to ${new Date(end).toISOString().slice(0, 10)}: ${rows.mem_member} members, ${rows.bike_bike} bikes, ${rows.mem_ride} rides, ${rows.mem_feedback} feedback`
    await tx
      .insertInto('sysConfig')
      .values({ configName: 'Demo data seed', configKey: DEMO_KEY, configValue: String(o.seed), configType: 'N', createBy: DEMO_MARK, createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: `Written by npm run demo (${summary}). Delete the demo data with npm run demo -- --force only after reading the README.` })
      .execute()
  })
  // Outside the demo's transaction, as the server refreshes them: the dashboards read these summaries.
  const rollups = await refreshRollups(db, dialect)
  log(`Dashboard summaries refreshed in ${(rollups.ms / 1000).toFixed(1)} s (${rollups.rows} rows)`)
  if (dialect === 'postgres') {
    // Vacuumed as well as analyzed, as after any bulk load: until a table's pages are marked
    // all-visible its indexes cannot answer alone (the registered-bikes dashboard reads bike_bike
    // through two covering indexes), and autovacuum may be off or long in coming.
    for (const { table } of DEMO_TABLES) await query(db, `vacuum (analyze) ${table}`)
  } else {
    // The planner's statistics, as PostgreSQL's analyze above: without them SQLite takes a country's
    // index for a scoped list of most countries and sorts thousands of rows for a page of twenty.
    await query(db, 'analyze')
    await query(db, 'pragma wal_checkpoint(truncate)')
  }
  return {
    seed: o.seed,
    scale: o.scale,
    end: new Date(end).toISOString(),
    rows,
    seconds: (performance.now() - began) / 1000,
    seedResult,
    replacedForeign,
    rider: { memberId: riderId, email: DEMO_RIDER.email, password: DEMO_RIDER.password },
  }
}

const ID_COLUMNS: [string, string][] = [
  ['bike_model', 'model_id'],
  ['bike_model_colour', 'colour_id'],
  ['bike_model_size', 'size_id'],
  ['bike_picture', 'picture_id'],
  ['bike_static_image', 'image_id'],
  ['mem_feedback_tag', 'tag_id'],
  ['mem_member', 'member_id'],
  ['iot_device', 'device_id'],
  ['iot_alarm', 'alarm_id'],
  ['iot_telemetry', 'telemetry_id'],
  ['bike_bike', 'bike_id'],
  ['ord_device_order', 'order_id'],
  ['ord_frame_number', 'number_id'],
  ['mem_ride', 'ride_id'],
  ['dash_tracking_event', 'event_id'],
  ['bike_record', 'record_id'],
  ['mem_feedback', 'feedback_id'],
  ['service_repair_order', 'repair_order_id'],
  ['cnt_protocol', 'protocol_id'],
  ['cnt_protocol_signature', 'signature_id'],
  ['cnt_message', 'message_id'],
  ['cnt_message_recipient', 'recipient_id'],
  ['cnt_app_version', 'version_id'],
  ['cnt_activity', 'activity_id'],
  ['cnt_banner', 'banner_id'],
  ['cnt_guide', 'guide_id'],
  ['cnt_achievement', 'achievement_id'],
  ['content_faq', 'faq_id'],
  ['cnt_policy', 'policy_id'],
  ['cnt_user_help', 'help_id'],
  ['cnt_error_code', 'error_code_id'],
  ['cnt_service_centre', 'centre_id'],
  ['mon_app_upload_log', 'upload_id'],
  ['ota_supplier', 'supplier_id'],
  ['ota_product', 'product_id'],
]

async function clear(tx: Db, dialect: Dialect) {
  await query(tx, `delete from sys_config where config_key = ${mark(dialect)}`, [DEMO_KEY])
  // The file rows of the demo's user manuals and app uploads (staff's and the app's own are not the demo's).
  await query(tx, `delete from sys_file where create_by = ${mark(dialect)}`, [DEMO_MARK])
  if (dialect === 'postgres') {
    await query(tx, `truncate table ${DEMO_TABLES.map((t) => t.table).join(', ')}`)
  } else {
    // Without a WHERE, SQLite empties a table at once.
    for (const { table } of [...DEMO_TABLES].reverse()) await query(tx, `delete from ${table}`)
  }
}

const iso = (t: number) => new Date(t).toISOString()
const audit = (createTime: number) => [DEMO_MARK, iso(createTime), '', null] as const

/** Stored names of the placeholders (under STORAGE_DIR). */
const staticName = (key: string) => `demo/static/${key}.png`

/** Writes the placeholder pictures the rows name, so the console can show them (the same bytes each run). */
async function writePlaceholders(storage: Storage, plan: Plan) {
  const save = async (name: string, bytes: Buffer) => {
    const file = storage.resolve(name)
    if (!file) throw new Error(`bad stored name ${name}`)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, bytes)
  }
  const light = hexColour('#F4F4F5')
  for (const m of plan.models) {
    for (const c of m.colours) {
      for (const [n, [, kind]] of PICTURES.entries()) {
        const colour = hexColour(c.swatch)
        await save(pictureName(m.spec.code, c.code, n + 1), kind === 'side' ? bikeDrawing(m.spec.category, colour, light) : swatch(colour, light))
      }
    }
  }
  for (const [key] of STATIC_IMAGES) {
    const empty = key.startsWith('empty.')
    await save(staticName(key), bikeDrawing('trekking', empty ? hexColour('#A1A1AA') : hexColour('#FFFFFF'), empty ? light : hexColour('#1677FF'), empty ? hexColour('#A1A1AA') : hexColour('#E6F0FF')))
  }
}

const AUDIT_COLUMNS = ['create_by', 'create_time', 'update_by', 'update_time'] as const

async function writeCatalogue(tx: Db, dialect: Dialect, plan: Plan): Promise<Record<string, number>> {
  const models = new TableWriter(tx, dialect, 'bike_model', ['model_id', 'category', 'name', 'code', 'order_num', 'status', 'remark', ...AUDIT_COLUMNS])
  const colours = new TableWriter(tx, dialect, 'bike_model_colour', ['colour_id', 'model_id', 'name', 'code', 'swatch', 'order_num', 'status', 'remark', ...AUDIT_COLUMNS])
  const sizes = new TableWriter(tx, dialect, 'bike_model_size', ['size_id', 'model_id', 'name', 'code', 'frame_size_min', 'frame_size_max', 'rider_height_min', 'rider_height_max', 'order_num', 'status', 'remark', ...AUDIT_COLUMNS])
  const pictures = new TableWriter(tx, dialect, 'bike_picture', ['picture_id', 'model_id', 'colour_id', 'image', 'order_num', 'remark', ...AUDIT_COLUMNS])
  const images = new TableWriter(tx, dialect, 'bike_static_image', ['image_id', 'image_key', 'usage', 'image', 'language', 'status', 'remark', ...AUDIT_COLUMNS])
  const tags = new TableWriter(tx, dialect, 'mem_feedback_tag', ['tag_id', 'name', 'order_num', 'status', 'remark', ...AUDIT_COLUMNS])
  let pictureId = 0
  for (const [i, m] of plan.models.entries()) {
    // Entered a couple of months before the launch.
    const entered = m.launch - 60 * DAY
    await models.add(m.id, m.spec.category, m.spec.name, m.spec.code, i + 1, '0', m.spec.remark, ...audit(entered))
    for (const [j, c] of m.colours.entries()) {
      await colours.add(c.id, m.id, c.name, c.code, c.swatch, j + 1, '0', '', ...audit(entered))
      for (const [n, [remark]] of PICTURES.entries()) await pictures.add(++pictureId, m.id, c.id, pictureName(m.spec.code, c.code, n + 1), j * PICTURES.length + n + 1, remark, ...audit(entered + 7 * DAY))
    }
    for (const [j, s] of m.sizes.entries()) await sizes.add(s.id, m.id, s.name, s.code, s.frameMin, s.frameMax, s.riderMin, s.riderMax, j + 1, '0', '', ...audit(entered))
  }
  const first = plan.start - 60 * DAY
  for (const [i, [key, usage, language]] of STATIC_IMAGES.entries()) await images.add(i + 1, key, usage, staticName(key), language, '0', '', ...audit(first + i * DAY))
  for (const [i, t] of plan.tags.entries()) await tags.add(t.id, t.name, i + 1, '0', '', ...audit(first))
  const all = [models, colours, sizes, pictures, images, tags]
  for (const w of all) await w.flush()
  return Object.fromEntries(all.map((w) => [w.table, w.written]))
}

async function writeRides(tx: Db, dialect: Dialect, plan: Plan, log: (line: string) => void, collectors: readonly { add: (rows: readonly RideRow[]) => void }[]): Promise<number> {
  const rides = new TableWriter(tx, dialect, 'mem_ride', ['ride_id', 'member_id', 'bike_id', 'upload_time', 'distance', 'duration', 'avg_speed', 'max_speed', 'cadence', 'calories'])
  let id = 0
  let reported = 0
  for (const day of plan.rides()) {
    for (const c of collectors) c.add(day)
    for (const [memberId, bikeId, upload, distance, duration, avg, max, cadence, calories] of day) {
      await rides.add(++id, memberId, bikeId, iso(upload), distance, duration, avg, max, cadence, calories)
    }
    if (id - reported >= 250_000) {
      reported = id
      log(`  ${id.toLocaleString('en-US')} rides`)
    }
  }
  await rides.flush()
  return rides.written
}

async function writeMembers(tx: Db, dialect: Dialect, plan: Plan): Promise<number> {
  const w = new TableWriter(tx, dialect, 'mem_member', [
    'member_id', 'email', 'first_name', 'last_name', 'avatar', 'phone', 'birthday', 'height', 'weight', 'gender', 'country_id', 'status', 'email_confirmed',
    'bind_status', 'privacy_agreement', 'riding_mode', 'bluetooth_unlock', 'last_login_time', 'password_hash', 'create_by', 'create_time', 'update_by', 'update_time', 'remark',
  ])
  for (const m of plan.members) {
    await w.add(
      m.id, m.email, m.firstName, m.lastName, null, m.phone, m.birthday, m.height, m.weight, m.gender, m.countryId, m.disabled ? '1' : '0', m.emailConfirmed,
      m.bikes.length ? 'bound' : 'unbound', m.privacy, m.ridingMode, m.bluetoothUnlock, iso(m.lastLogin), m.passwordHash ?? null,
      DEMO_MARK, iso(m.reg), m.disabled?.by ?? '', m.disabled ? iso(m.disabled.at) : null, m.disabled?.reason ?? '',
    )
  }
  await w.flush()
  return w.written
}

async function writeBikes(tx: Db, dialect: Dialect, plan: Plan, deviceOf: ReadonlyMap<PlannedBike, number>): Promise<number> {
  const w = new TableWriter(tx, dialect, 'bike_bike', [
    'bike_id', 'frame_number', 'category', 'model_id', 'colour_id', 'size_id', 'bind_status', 'member_id', 'bound_time', 'access', 'bluetooth_serial', 'protocol_version', 'mac',
    'default_bike', 'order_id', 'frame_type', 'replacement_reason', 'iot_device_id', 'battery_health', 'cycle_times', 'ride_count', 'create_by', 'create_time', 'update_by', 'update_time', 'remark',
  ])
  for (const b of plan.bikes) {
    const changed = b.replaced ? [b.replaced.by, iso(b.replaced.at)] : ['', null]
    await w.add(
      b.id, b.frameNumber, b.model.spec.category, b.model.id, b.colour.id, b.size.id, b.member ? 'bound' : 'unbound', b.member?.id ?? null, b.boundTime === undefined ? null : iso(b.boundTime),
      b.access, b.bluetoothSerial, b.protocolVersion, b.mac, b.defaultBike, b.orderId, b.replaced ? 'replacement' : 'regular', b.replaced?.reason ?? '', deviceOf.get(b) ?? null, b.health, b.cycles, b.rideCount,
      DEMO_MARK, iso(b.produced), ...changed, b.remark,
    )
  }
  await w.flush()
  return w.written
}

/** The production orders, their frame numbers and the series counters (demo/orders.ts). */
async function writeOrders(tx: Db, dialect: Dialect, plan: Plan): Promise<Record<string, number>> {
  const { orders, numbers, series } = plan.production
  const o = new TableWriter(tx, dialect, 'ord_device_order', [
    'order_id', 'order_no', 'order_type', 'model_id', 'quantity', 'numbers_generated', 'overrun', 'sales_region', 'delivery_date', 'purchasing_entity', 'tp_number', 'frame_supplier',
    'brand_code', 'manufacturer_code', 'model_year', 'spec_code', 'repair_code', 'serial_start', 'serial_end', 'serial_digits', 'check_character',
    'count_generated', 'count_printed', 'count_bound', 'count_voided', ...AUDIT_COLUMNS, 'remark',
  ])
  for (const order of orders) {
    const c = orderCounts(order, numbers)
    const t = order.template
    await o.add(
      order.id, order.orderNo, 'regular', order.model.id, order.quantity, c.regular, c.overrun, order.region, iso(order.delivery).slice(0, 10), 'Velo Europe B.V.', order.tpNumber, order.supplier,
      t.brandCode, t.manufacturerCode, t.modelYear, t.specCode, '', null, null, t.serialDigits, t.checkCharacter,
      c.generated, c.printed, c.bound, c.voided, ...audit(order.created), order.remark,
    )
  }
  await o.flush()
  const n = new TableWriter(tx, dialect, 'ord_frame_number', [
    'number_id', 'order_id', 'frame_number', 'serial', 'number_type', 'status', 'bike_id', 'replaces_id', 'reason', 'printed_time', ...AUDIT_COLUMNS, 'remark',
  ])
  for (const x of numbers) await n.add(x.id, x.order.id, x.frameNumber, x.serial, x.type, x.status, x.bikeId, x.replacesId, x.reason, x.printed === null ? null : iso(x.printed), ...audit(x.created), '')
  await n.flush()
  const s = new TableWriter(tx, dialect, 'ord_frame_series', ['prefix', 'last_serial'])
  for (const x of series) await s.add(x.prefix, x.last)
  await s.flush()
  return { ord_device_order: o.written, ord_frame_number: n.written, ord_frame_series: s.written }
}

async function writeRecords(tx: Db, dialect: Dialect, plan: Plan, serviceOrders: readonly PlannedServiceOrder[]): Promise<number> {
  const w = new TableWriter(tx, dialect, 'bike_record', ['record_id', 'bike_id', 'frame_number', 'event_kind', 'detail', 'member_id', 'event_time', 'oper_by'])
  // An order the app opened for a bike is in its records, as the server writes one (modules/service).
  const orders = serviceOrders.map((o) => ({ bike: o.bike, frameNumber: o.frameNumber, kind: 'serviceOrder', detail: o.orderNo, memberId: o.member.id, time: o.created, by: 'app' }))
  const records = [...plan.records(), ...orders].sort((a, b) => a.time - b.time || a.bike.id - b.bike.id)
  for (const [i, r] of records.entries()) await w.add(i + 1, r.bike.id, r.frameNumber, r.kind, r.detail, r.memberId, iso(r.time), r.by)
  await w.flush()
  return w.written
}

/**
 * The app language a member writing in their language sends with feedback. The app has no Chinese
 * (APP_LANGUAGES): what Chinese members write is in no app language, and is left without one ('')
 * rather than named English, which would have staff reply in the wrong language.
 */
const FEEDBACK_LANGUAGE: Record<Lang, string> = { en: 'en_US', de: 'de_DE', nl: 'nl_NL', fr: 'fr_FR', zh: '' }

async function writeFeedback(tx: Db, dialect: Dialect, plan: Plan): Promise<Record<string, number>> {
  const w = new TableWriter(tx, dialect, 'mem_feedback', [
    'feedback_id', 'member_id', 'stars', 'language', 'content', 'image1', 'image2', 'image3', 'image4', 'read_state', 'read_by', 'read_time', 'reply', 'reply_by', 'reply_time', 'replied', 'create_by', 'create_time', 'update_by', 'update_time', 'remark',
  ])
  const links = new TableWriter(tx, dialect, 'mem_feedback_tag_link', ['feedback_id', 'tag_id'])
  for (const f of plan.feedback) {
    const last = f.reply ?? f.read
    await w.add(
      f.id, f.member.id, f.stars, FEEDBACK_LANGUAGE[f.member.lang], f.content, null, null, null, null, f.read ? 'read' : 'unread', f.read?.by ?? '', f.read ? iso(f.read.at) : null,
      f.reply?.text ?? '', f.reply?.by ?? '', f.reply ? iso(f.reply.at) : null, Boolean(f.reply), DEMO_MARK, iso(f.time), last?.by ?? '', last ? iso(last.at) : null, '',
    )
    for (const tag of f.tagIds) await links.add(f.id, tag)
  }
  await w.flush()
  await links.flush()
  return { mem_feedback: w.written, mem_feedback_tag_link: links.written }
}
