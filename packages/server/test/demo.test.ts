import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CompiledQuery, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppConfig, loadConfig } from '../src/config'
import { createDatabase, type Db, type Dialect } from '../src/db/database'
import { migrateToLatest } from '../src/db/migrate'
import { seed } from '../src/db/seed'
import { DEMO_KEY, DEMO_TABLES, DemoRefused, runDemo } from '../src/demo'
import { contentEntities } from '@velo/shared'
import { DEMO_RIDER } from '../src/demo/content'
import { verifyPassword } from '../src/platform/auth/passwords'
import { editSchema } from '../src/platform/crud/schemas'
import { ADMIN_PASSWORD, createTestApp, freshDatabase } from './harness'

// npm run demo's generator (src/demo) at a hundredth of its size, on a fresh SQLite file, or a
// fresh PostgreSQL database when TEST_DATABASE_URL is set.

const SCALE = 0.01
const END = new Date('2026-11-24T00:00:00Z')
const SEED = 7

interface Target {
  url: string
  db: Db
  dialect: Dialect
  config: AppConfig
  close: () => Promise<void>
}

const targets: Target[] = []

async function target(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'velo-demo-'))
  const database = await freshDatabase(dir)
  const config = loadConfig({ DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD, LOG_LEVEL: 'silent' })
  const { db, dialect } = createDatabase(config.database)
  const t: Target = {
    url: database.url,
    db,
    dialect,
    config,
    close: async () => {
      await db.destroy()
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  targets.push(t)
  return t
}

afterAll(async () => {
  for (const t of targets) await t.close()
})

async function rows<R = Record<string, unknown>>(t: Target, sql: string): Promise<R[]> {
  return (await (t.db as unknown as Kysely<any>).executeQuery<R>(CompiledQuery.raw(sql, []))).rows
}
const count = async (t: Target, sql: string) => Number((await rows<{ n: number }>(t, sql))[0]!.n)

const ORDER: Record<string, string> = {
  bike_model: 'model_id',
  bike_model_colour: 'colour_id',
  bike_model_size: 'size_id',
  bike_picture: 'picture_id',
  bike_static_image: 'image_id',
  mem_feedback_tag: 'tag_id',
  mem_member: 'member_id',
  ord_device_order: 'order_id',
  bike_bike: 'bike_id',
  ord_frame_number: 'number_id',
  ord_frame_series: 'prefix',
  mem_ride: 'ride_id',
  bike_record: 'record_id',
  mem_feedback: 'feedback_id',
  mem_feedback_tag_link: 'feedback_id, tag_id',
  cnt_protocol: 'protocol_id',
  cnt_protocol_signature: 'signature_id',
  cnt_message: 'message_id',
  cnt_message_member: 'message_id, member_id',
  cnt_message_recipient: 'recipient_id',
  cnt_app_version: 'version_id',
  cnt_activity: 'activity_id',
  cnt_banner: 'banner_id',
  cnt_guide: 'guide_id',
  cnt_achievement: 'achievement_id',
  content_faq: 'faq_id',
  cnt_policy: 'policy_id',
  cnt_user_help: 'help_id',
  cnt_error_code: 'error_code_id',
  cnt_service_centre: 'centre_id',
  mon_app_upload_log: 'upload_id',
  ota_supplier: 'supplier_id',
  ota_product: 'product_id',
}

/** Rows of each demo table, a sample of the rides: what two runs of one seed must agree on. */
async function sample(t: Target) {
  const out: Record<string, unknown[]> = {}
  for (const { table } of DEMO_TABLES) {
    const id = ORDER[table]
    const where = table === 'mem_ride' ? 'where ride_id % 37 = 1' : ''
    out[table] = await rows(t, `select * from ${table} ${where} order by ${id} limit 400`)
  }
  // The rider's password hash has a fresh salt each run: the same password, not the same bytes.
  for (const m of out.mem_member as { passwordHash?: string | null }[]) if (m.passwordHash) m.passwordHash = 'argon2id'
  return out
}

const run = (t: Target, o: { force?: boolean; seed?: number } = {}) =>
  runDemo({ db: t.db, dialect: t.dialect, config: t.config }, { seed: o.seed ?? SEED, scale: SCALE, force: o.force ?? false, end: END })

describe('npm run demo', () => {
  let a: Target
  let b: Target
  let first: Awaited<ReturnType<typeof run>>

  beforeAll(async () => {
    a = await target()
    b = await target()
    first = await run(a)
  })

  it('migrates, seeds and fills every table of the members, bikes and App content areas', async () => {
    expect(first.seedResult.seeded).toBe(true)
    for (const { table } of DEMO_TABLES) {
      const n = await count(a, `select count(*) as n from ${table}`)
      expect(n, table).toBeGreaterThan(0)
      expect(first.rows[table], table).toBe(n)
    }
    expect(first.rows.mem_member).toBe(100)
    expect(first.rows.bike_bike).toBe(120)
    expect(first.rows.mem_feedback).toBe(30)
    expect(first.rows.bike_model).toBe(6)
    // Every bike part has its makers, each product of a maker of its own part.
    expect(await count(a, 'select count(distinct part_kind) as n from ota_supplier')).toBe(4)
    expect(await count(a, 'select count(*) as n from ota_product p join ota_supplier s on s.supplier_id = p.supplier_id and s.part_kind = p.part_kind')).toBe(first.rows.ota_product)
    // About the size asked for: the rides are drawn, not counted out.
    expect(first.rows.mem_ride).toBeGreaterThan(8_500)
    expect(first.rows.mem_ride).toBeLessThan(11_500)
    expect((await rows<{ configValue: string }>(a, `select config_value from sys_config where config_key = '${DEMO_KEY}'`))[0]?.configValue).toBe(String(SEED))
  })

  it('gives the same rows for the same seed, in another fresh database', async () => {
    await run(b)
    expect(await sample(b)).toEqual(await sample(a))
  })

  it('keeps rides, bikes, members and feedback consistent with each other', async () => {
    // Every ride: of a bound bike, by that bike's member, after it was bound, before the data's end.
    expect(
      await count(
        a,
        `select count(*) as n from mem_ride r left join bike_bike k on k.bike_id = r.bike_id
         where k.bike_id is null or k.bind_status <> 'bound' or k.member_id <> r.member_id or r.upload_time <= k.bound_time or r.upload_time >= '${END.toISOString()}'`,
      ),
    ).toBe(0)
    // Speeds of an e-bike; distance, duration and average speed agree.
    expect(await count(a, 'select count(*) as n from mem_ride where avg_speed < 15 or avg_speed > 25 or max_speed > 45 or max_speed < avg_speed or distance <= 0 or duration <= 0')).toBe(0)
    expect(await count(a, 'select count(*) as n from mem_ride where abs(distance * 3600.0 / duration - avg_speed) > 0.2')).toBe(0)
    // Ride counts on the bikes match the rides.
    expect(await count(a, 'select count(*) as n from bike_bike k where ride_count <> (select count(*) from mem_ride r where r.bike_id = k.bike_id)')).toBe(0)
    // Frame numbers unique; colours and sizes of the bike's own model; bound after production and registration.
    expect(await count(a, 'select count(distinct frame_number) as n from bike_bike')).toBe(first.rows.bike_bike)
    expect(
      await count(
        a,
        `select count(*) as n from bike_bike k join bike_model_colour c on c.colour_id = k.colour_id join bike_model_size s on s.size_id = k.size_id
         where c.model_id <> k.model_id or s.model_id <> k.model_id`,
      ),
    ).toBe(0)
    expect(
      await count(
        a,
        `select count(*) as n from bike_bike k left join mem_member m on m.member_id = k.member_id
         where (k.bind_status = 'bound') <> (k.member_id is not null) or k.bound_time < k.create_time or k.bound_time < m.create_time`,
      ),
    ).toBe(0)
    // Every bike carries a number its order generated, bound to it; an order's counts are its numbers'.
    expect(
      await count(
        a,
        `select count(*) as n from bike_bike k left join ord_frame_number f on f.frame_number = k.frame_number
         where f.number_id is null or f.status <> 'bound' or f.bike_id <> k.bike_id or f.order_id <> k.order_id`,
      ),
    ).toBe(0)
    expect(
      await count(
        a,
        `select count(*) as n from ord_device_order o
         where count_bound <> (select count(*) from ord_frame_number f where f.order_id = o.order_id and f.status = 'bound')
            or numbers_generated <> (select count(*) from ord_frame_number f where f.order_id = o.order_id and f.number_type = 'regular')`,
      ),
    ).toBe(0)
    expect(await count(a, "select count(*) as n from ord_frame_number where status = 'voided'")).toBeGreaterThan(0)
    // A member is bound exactly when a bike is bound to them.
    expect(
      await count(
        a,
        `select count(*) as n from mem_member m
         where (m.bind_status = 'bound') <> exists (select 1 from bike_bike k where k.member_id = m.member_id and k.bind_status = 'bound')`,
      ),
    ).toBe(0)
    // A replied feedback was read first, after it was written; stars 1 to 5.
    expect(
      await count(
        a,
        `select count(*) as n from mem_feedback where stars < 1 or stars > 5
         or (reply <> '' and (read_state <> 'read' or reply_time < read_time or read_time < create_time))
         or (read_state = 'unread' and read_time is not null)`,
      ),
    ).toBe(0)
    expect(await count(a, 'select count(*) as n from mem_member where last_login_time < create_time')).toBe(0)
  })

  it('keeps App content consistent: counters and their rows, members and their signatures, one current version', async () => {
    // A pushed message's counters are its inbox rows; drafts and scheduled ones have none.
    expect(
      await count(
        a,
        `select count(*) as n from cnt_message m
         where sent_count <> (select count(*) from cnt_message_recipient r where r.message_id = m.message_id)
            or read_count <> (select count(*) from cnt_message_recipient r where r.message_id = m.message_id and r.read_time is not null)
            or (status <> 'sent' and sent_count <> 0) or (status = 'sent' and (sent_count = 0 or sent_time is null))`,
      ),
    ).toBe(0)
    expect(await count(a, "select count(*) as n from cnt_message where status = 'sent'")).toBeGreaterThanOrEqual(5)
    expect(await count(a, `select count(*) as n from cnt_message where status = 'scheduled' and send_mode = 'scheduled' and send_time > '${END.toISOString()}'`)).toBe(1)
    expect(await count(a, "select count(*) as n from cnt_message where status = 'draft'")).toBe(1)
    // Recipients: registered before the push, of its audience, read after delivery and before the end.
    expect(
      await count(
        a,
        `select count(*) as n from cnt_message_recipient r join cnt_message m on m.message_id = r.message_id join mem_member p on p.member_id = r.member_id
         where p.create_time >= r.create_time or r.read_time < r.create_time or r.read_time >= '${END.toISOString()}'
            or (m.audience = 'country' and p.country_id <> m.country_id)
            or (m.audience = 'members' and not exists (select 1 from cnt_message_member l where l.message_id = m.message_id and l.member_id = r.member_id))`,
      ),
    ).toBe(0)
    expect(await count(a, "select count(distinct audience) as n from cnt_message where status = 'sent'")).toBe(3)
    // An agreement's counters are its signature rows, which copy its type, language and version.
    expect(
      await count(
        a,
        `select count(*) as n from cnt_protocol p
         where sign_count <> (select count(*) from cnt_protocol_signature s where s.protocol_id = p.protocol_id and s.state = 'signed')
            or cancel_count <> (select count(*) from cnt_protocol_signature s where s.protocol_id = p.protocol_id and s.state = 'cancelled')`,
      ),
    ).toBe(0)
    expect(
      await count(
        a,
        `select count(*) as n from cnt_protocol_signature s join cnt_protocol p on p.protocol_id = s.protocol_id join mem_member m on m.member_id = s.member_id
         where s.type <> p.type or s.language <> p.language or s.version_code <> p.version_code or p.status = 'draft'
            or s.sign_time < p.publish_time or s.sign_time < m.create_time or s.sign_time > m.last_login_time
            or (s.state = 'cancelled') <> (s.cancel_time is not null) or s.cancel_time < s.sign_time`,
      ),
    ).toBe(0)
    // Per type and language: 1.1.0 published as an update, 1.0.0 retired; signed by members of both.
    for (const type of ['privacy', 'emailSubscription']) {
      const published = await rows<{ language: string; versionCode: string; signCount: number }>(
        a,
        `select language, version_code, sign_count from cnt_protocol where type = '${type}' and status = 'published' and is_update = true order by language`,
      )
      expect(published.map((p) => [p.language, p.versionCode])).toEqual(['de_DE', 'en_US', 'fr_FR', 'nl_NL'].map((l) => [l, '1.1.0']))
      expect(await count(a, `select count(*) as n from cnt_protocol where type = '${type}' and status = 'retired' and version_code = '1.0.0'`)).toBe(4)
      expect(await count(a, `select sum(sign_count) as n from cnt_protocol where type = '${type}'`)).toBeGreaterThan(10)
    }
    // A member agrees to the privacy policy exactly when they hold a signed signature of the one in force.
    expect(
      await count(
        a,
        `select count(*) as n from mem_member m
         where (m.privacy_agreement = 'agreed') <> exists (
           select 1 from cnt_protocol_signature s join cnt_protocol p on p.protocol_id = s.protocol_id
           where s.member_id = m.member_id and s.state = 'signed' and p.type = 'privacy' and p.status = 'published')`,
      ),
    ).toBe(0)
    expect(await count(a, "select count(*) as n from mem_member where privacy_agreement = 'disagreed'")).toBeGreaterThan(0)
    // App versions: one current per platform, the newest; a force update in each history.
    const current = await rows<{ platform: string; versionCode: string }>(a, 'select platform, version_code from cnt_app_version where current = true order by platform')
    expect(current).toEqual([
      { platform: 'android', versionCode: '3.3.0' },
      { platform: 'ios', versionCode: '3.3.0' },
    ])
    expect(await count(a, "select count(*) as n from cnt_app_version v where current = true and exists (select 1 from cnt_app_version w where w.platform = v.platform and w.release_time > v.release_time)")).toBe(0)
    expect(await count(a, "select count(distinct platform) as n from cnt_app_version where version_type = 'force'")).toBe(2)
    // Activities and banners past, running and to come; some for one country.
    const end = END.toISOString()
    for (const table of ['cnt_activity', 'cnt_banner']) {
      expect(await count(a, `select count(*) as n from ${table} where end_time <= '${end}'`), table).toBeGreaterThan(0)
      expect(await count(a, `select count(*) as n from ${table} where start_time <= '${end}' and (end_time is null or end_time > '${end}') and status = '0'`), table).toBeGreaterThan(0)
      expect(await count(a, `select count(*) as n from ${table} where start_time > '${end}'`), table).toBeGreaterThan(0)
      expect(await count(a, `select count(*) as n from ${table} where country_id is not null`), table).toBeGreaterThan(0)
      expect(await count(a, `select count(*) as n from ${table} where end_time <= start_time`), table).toBe(0)
    }
    // Achievement levels climb with their targets.
    expect((await rows<{ targetValue: number }>(a, "select target_value from cnt_achievement where name = 'Distance' order by level")).map((x) => Number(x.targetValue))).toEqual([100, 500, 1000, 5000, 10000])
    const codes = await count(a, 'select count(*) as n from cnt_error_code')
    expect(codes).toBeGreaterThanOrEqual(20)
    expect(codes).toBeLessThanOrEqual(40)
    expect(await count(a, 'select count(*) as n from cnt_service_centre where country_id is null or latitude < -90 or latitude > 90 or longitude < -180 or longitude > 180')).toBe(0)
  })

  it('writes every language of the app, and the files its rows name', async () => {
    for (const table of ['cnt_protocol', 'cnt_activity', 'cnt_banner', 'cnt_guide', 'content_faq', 'cnt_policy', 'cnt_user_help']) {
      const shown = table === 'cnt_protocol' ? "status = 'published'" : "status = '0'"
      const languages = await rows<{ language: string; n: number }>(a, `select language, count(*) as n from ${table} where ${shown} group by language order by language`)
      expect(languages.map((l) => l.language), table).toEqual(['de_DE', 'en_US', 'fr_FR', 'nl_NL'])
    }
    // Written in the language, not copied: the German FAQ is not the English one.
    const faq = await rows<{ language: string; title: string }>(a, 'select language, title from content_faq where order_num = 1 order by language')
    expect(new Set(faq.map((f) => f.title)).size).toBe(4)
    expect(faq.find((f) => f.language === 'de_DE')?.title).toMatch(/Akku/)
    // Every manual and upload names a stored file with its sys_file row, so it downloads.
    const named = await rows<{ file: string }>(a, "select document as file from cnt_user_help where type = 'manual' union all select file from mon_app_upload_log")
    expect(named.length).toBeGreaterThan(24)
    const files = await rows<{ fileName: string; size: number; entity: string }>(a, "select file_name, size, entity from sys_file where create_by = 'velo-demo'")
    expect(files.map((f) => f.fileName).sort()).toEqual(named.map((f) => f.file).sort())
    for (const f of files) expect(statSync(join(a.config.storageDir, f.fileName)).size, f.fileName).toBe(Number(f.size))
    for (const image of await rows<{ image: string }>(a, 'select image from cnt_banner union select image from cnt_guide union select image from cnt_achievement union select default_image from cnt_achievement')) {
      expect(statSync(join(a.config.storageDir, image.image)).size, image.image).toBeGreaterThan(100)
    }
  })

  it('gives the app rider a known password, messages (one unread) and agreements', async () => {
    const [rider] = await rows<{ memberId: number; passwordHash: string; status: string; privacyAgreement: string }>(
      a,
      `select member_id, password_hash, status, privacy_agreement from mem_member where email = '${DEMO_RIDER.email}'`,
    )
    expect(rider).toBeDefined()
    expect(first.rider).toEqual({ memberId: Number(rider!.memberId), email: DEMO_RIDER.email, password: DEMO_RIDER.password })
    expect(await verifyPassword(rider!.passwordHash, DEMO_RIDER.password)).toBe(true)
    expect(rider!.status).toBe('0')
    expect(rider!.privacyAgreement).toBe('agreed')
    expect(await count(a, 'select count(*) as n from mem_member where password_hash is not null')).toBe(1)
    const inbox = await rows<{ readTime: string | null }>(a, `select read_time from cnt_message_recipient where member_id = ${rider!.memberId}`)
    expect(inbox.length).toBeGreaterThanOrEqual(3)
    expect(inbox.filter((m) => m.readTime === null)).toHaveLength(1)
    // Signed the newsletter before its update and not since: the app asks them to sign again.
    expect((await rows<{ versionCode: string }>(a, `select version_code from cnt_protocol_signature where member_id = ${rider!.memberId} and type = 'emailSubscription'`)).map((s) => s.versionCode)).toEqual(['1.0.0'])
  })

  it('writes App content the definitions accept: listed, read and valid for a modify as the console sends it', async () => {
    // The server on the demo's database, every answer checked against its route's response schema.
    const t = await createTestApp({}, { databaseUrl: a.url })
    try {
      const token = await t.login()
      const invalid: string[] = []
      for (const e of Object.values(contentEntities)) {
        const list = await t.call({ method: 'POST', url: `/api${e.path}/list`, token, body: { pageNum: 1, pageSize: 50 } })
        expect(list.code, `${e.key}: ${list.msg}`).toBe(200)
        expect(list.data.total, e.key).toBeGreaterThan(0)
        for (const row of list.data.rows as Record<string, unknown>[]) {
          const got = await t.call({ url: `/api${e.path}/${row[e.idField]}`, token })
          expect(got.code, `${e.key} ${row[e.idField]}: ${got.msg}`).toBe(200)
          const parsed = editSchema(e).safeParse(got.data)
          if (!parsed.success) invalid.push(`${e.key} ${row[e.idField]}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`)
        }
      }
      expect(invalid).toEqual([])
    } finally {
      await t.close()
    }
  })

  it('replaces its own data when run again (no --force needed)', async () => {
    const again = await run(a)
    expect(again.seedResult.seeded).toBe(false)
    expect(again.replacedForeign).toEqual([])
    expect(again.rows).toEqual(first.rows)
    // Its file rows replaced, not added to.
    expect(await count(a, "select count(*) as n from sys_file where create_by = 'velo-demo'")).toBe(first.rows.sys_file)
    expect(await sample(a)).toEqual(await sample(b))
    // Another seed: other data, same shape.
    const other = await run(b, { seed: SEED + 1 })
    expect(other.rows.mem_member).toBe(100)
    expect(await sample(b)).not.toEqual(await sample(a))
  })

  it('refuses, changing nothing, a database with rows it did not write; --force replaces them', async () => {
    const c = await target()
    await migrateToLatest(c.db, c.dialect)
    await seed({ db: c.db, config: c.config })
    // A model and a member entered by staff, and one ride of that member.
    await rows(c, `insert into bike_model (category, name, code, order_num, status, create_by, create_time, update_by, remark) values ('city', 'Real model', 'REAL1', 1, '0', 'admin', '2026-01-01T00:00:00.000Z', '', '')`)
    await rows(c, `insert into mem_member (email, gender, status, create_by, create_time, update_by, remark) values ('real@example.com', '2', '0', 'admin', '2026-01-01T00:00:00.000Z', '', '')`)
    const before = await sample(c)

    const refused = await run(c).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(DemoRefused)
    expect((refused as DemoRefused).foreign).toEqual([
      { table: 'bike_model', rows: 1 },
      { table: 'mem_member', rows: 1 },
    ])
    expect(await sample(c)).toEqual(before)
    expect(await count(c, `select count(*) as n from sys_config where config_key = '${DEMO_KEY}'`)).toBe(0)

    const forced = await run(c, { force: true })
    expect(forced.replacedForeign).toEqual([
      { table: 'bike_model', rows: 1 },
      { table: 'mem_member', rows: 1 },
    ])
    expect(await count(c, "select count(*) as n from bike_model where code = 'REAL1'")).toBe(0)
    expect(await count(c, "select count(*) as n from bike_model where create_by = 'velo-demo'")).toBe(6)
    expect(forced.rows).toEqual(first.rows)

    // Demo data with a staff row added afterwards (its id after the demo's: sequences moved on): refused again.
    await rows(c, `insert into mem_feedback_tag (name, order_num, status, create_by, create_time, update_by, remark) values ('Staff tag', 99, '0', 'admin', '2026-11-23T00:00:00.000Z', '', '')`)
    expect(await count(c, "select tag_id as n from mem_feedback_tag where name = 'Staff tag'")).toBeGreaterThan(forced.rows.mem_feedback_tag!)
    expect(((await run(c).catch((e: unknown) => e)) as DemoRefused).foreign).toEqual([{ table: 'mem_feedback_tag', rows: 1 }])
    await rows(c, "delete from mem_feedback_tag where name = 'Staff tag'")
    // Demo rows without the key (someone deleted it): not known to be the demo's, so refused.
    await rows(c, `delete from sys_config where config_key = '${DEMO_KEY}'`)
    const unmarked = (await run(c).catch((e: unknown) => e)) as DemoRefused
    expect(unmarked).toBeInstanceOf(DemoRefused)
    expect(unmarked.foreign.map((f) => f.table)).toEqual(DEMO_TABLES.map((t) => t.table))
  })

  it('runs from the command line and says why it refuses', { timeout: 60_000 }, async () => {
    const c = await target()
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../scripts/demo.ts'), '--scale', '0.002', '--end', '2026-11-24', ...args], {
        env: { ...process.env, DATABASE_URL: c.url, STORAGE_DIR: c.config.storageDir, ADMIN_PASSWORD, INIT_CWD: '' },
      }).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
      )
    const ok = await cli('--seed', '3')
    expect(ok.code, ok.out).toBe(0)
    expect(ok.out).toMatch(/mem_member\s+20\b/)
    expect(ok.out).toMatch(/Done in [\d.]+ s \(seed 3, scale 0.002, data up to 2026-11-24\)/)
    await rows(c, `insert into mem_member (email, gender, status, create_by, create_time, update_by, remark) values ('real@example.com', '2', '0', 'admin', '2026-01-01T00:00:00.000Z', '', '')`)
    const no = await cli()
    expect(no.code).toBe(2)
    expect(no.out).toContain('mem_member: 1 rows')
    expect(no.out).toContain('Nothing was changed.')
    expect((await cli('--scale', '9')).out).toContain('--scale must be a number above 0, at most 5')
  })
})
