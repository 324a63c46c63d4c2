/**
 * App content benchmark (part of `npm run bench`; alone with BENCH_ONLY=content). For each database
 * it starts the bundled server on a fresh database (which migrates and seeds it), then
 *
 *  - writes BENCH_MESSAGE_MEMBERS (100,000) members in one INSERT … SELECT (generate_series on
 *    PostgreSQL, a recursive CTE on SQLite), and pushes a message to all of them with
 *    `deliverMessage` (modules/content/messages.ts, what the Push job and the send-time ticker run),
 *    from this process on the same database: seconds, rows/s and this process's peak RSS over it
 *    (the delivery is SQL, so the figure should barely move);
 *  - runs the delivery's INSERT … SELECT bare for another message, in the same batches of member ids
 *    and as one statement, for the ratio: what the delivery adds to the database's own work;
 *  - loads the app's version check (GET /app/v1/version?platform=ios&version=1.0.0, public, what
 *    every app asks at start) with BENCH_APP_CLIENTS (200) keep-alive clients for BENCH_SECONDS:
 *    requests/s, p50/p99 and the server's peak RSS.
 */
import { join } from 'node:path'
import { contentEntities } from '@velo/shared'
import { sql } from 'kysely'
import { createDatabase, type Db, type DynamicDb, dynamicDb } from '../src/db/database'
import { DELIVERY_BATCH, deliverMessage } from '../src/modules/content/messages'
import { fmt, log, ms } from './format'
import { httpLoad, WARMUP_SECONDS } from './measure'
import { collectGarbage, type Line, message, results, scratch, type Target } from './run'
import { MemoryWatch, ServerProcess } from './server'

const MB = 1024 * 1024
const mb = (bytes: number) => `${fmt(bytes / MB, 0)} MB`
/** What the version check must answer for an app at 1.0.0: the current version, forced (3.0.0 lies between). */
const EXPECTED = { versionCode: '3.3.0', updateAvailable: true, forceUpdate: true }

export interface ContentBench {
  members: number
  clients: number
  seconds: number
}

const { message: messageEntity, messageRecipient, appVersion } = contentEntities

/** Members 1..n, enabled, in one statement: the database makes the rows, nothing crosses the wire. */
async function seedMembers(db: DynamicDb, target: Target, n: number) {
  const now = new Date().toISOString()
  if (target.dialect === 'postgres') {
    await sql`insert into mem_member (member_id, email, first_name, last_name, gender, status, email_confirmed, privacy_agreement, create_by, create_time, update_by, remark)
      select i, 'bench' || i || '@example.com', 'Bench', 'Rider ' || i, '2', '0', true, 'agreed', 'bench', ${now}::timestamptz, '', ''
      from generate_series(1, ${n}::int) as i`.execute(db)
    await sql`select setval(pg_get_serial_sequence('mem_member', 'member_id'), ${n}::bigint)`.execute(db)
    await sql`analyze mem_member`.execute(db)
  } else {
    await sql`insert into mem_member (member_id, email, first_name, last_name, gender, status, email_confirmed, privacy_agreement, create_by, create_time, update_by, remark)
      select i, 'bench' || i || '@example.com', 'Bench', 'Rider ' || i, '2', '0', 1, 'agreed', 'bench', ${now}, '', ''
      from (with recursive n(i) as (select 1 union all select i + 1 from n where i < ${n}) select i from n)`.execute(db)
    await sql`analyze mem_member`.execute(db)
  }
}

/** A draft message to every member, as staff write one before pushing it. */
async function draftMessage(db: DynamicDb, title: string): Promise<number> {
  const row = await db
    .insertInto(messageEntity.table)
    .values({
      title,
      content: '<p>Benchmark message</p>',
      audience: 'all',
      countryId: null,
      sendMode: 'now',
      sendTime: null,
      status: 'draft',
      sentCount: 0,
      readCount: 0,
      sentTime: null,
      createBy: 'bench',
      createTime: new Date().toISOString(),
      updateBy: '',
      updateTime: null,
      remark: '',
    })
    .returning('messageId')
    .executeTakeFirstOrThrow()
  return Number(row.messageId)
}

/**
 * The delivery's INSERT … SELECT, bare: every enabled member's inbox row for the message, skipping
 * those it has (the unique (message, member)); in ranges of `batch` member ids, or all at once.
 */
async function bareDelivery(db: DynamicDb, messageId: number, members: number, batch: number | null): Promise<number> {
  // The delivery dates the rows with the message's sentTime, set when it is claimed.
  await db.updateTable(messageEntity.table).set({ sentTime: new Date().toISOString(), status: 'sending' }).where('messageId', '=', messageId).execute()
  const started = performance.now()
  const ranges = batch === null ? [[0, members + 1]] : Array.from({ length: Math.ceil(members / batch) }, (_, i) => [1 + i * batch, 1 + (i + 1) * batch])
  for (const [from, to] of ranges) {
    await db
      .insertInto(messageRecipient.table)
      .columns(['messageId', 'memberId', 'createTime'])
      .expression(
        db
          .selectFrom(['memMember as m', `${messageEntity.table} as msg`])
          .where('m.status', '=', '0')
          .where('msg.messageId', '=', messageId)
          .where('m.memberId', '>=', from!)
          .where('m.memberId', '<', to!)
          .select(['msg.messageId', 'm.memberId', 'msg.sentTime']),
      )
      .onConflict((oc) => oc.columns(['messageId', 'memberId']).doNothing())
      .execute()
  }
  return (performance.now() - started) / 1000
}

/** Removes a run's inbox rows, so each delivery starts from the same table. */
async function forget(db: DynamicDb, target: Target, messageId: number) {
  await db.deleteFrom(messageRecipient.table).where('messageId', '=', messageId).execute()
  if (target.dialect === 'postgres') await sql`vacuum analyze cnt_message_recipient`.execute(db)
  else await sql`pragma wal_checkpoint(truncate)`.execute(db)
}

/** The app versions the check reads: a release history of each platform with one force update. */
async function seedVersions(db: DynamicDb, target: Target) {
  // better-sqlite3 binds no booleans.
  const bool = (b: boolean) => (target.dialect === 'sqlite' ? Number(b) : b)
  const history: [string, 'normal' | 'force'][] = [['2.8.0', 'normal'], ['2.9.0', 'normal'], ['3.0.0', 'force'], ['3.1.0', 'normal'], ['3.2.0', 'normal'], ['3.2.1', 'normal'], ['3.3.0', 'normal']]
  const now = Date.now()
  for (const platform of ['ios', 'android']) {
    for (const [i, [versionCode, versionType]] of history.entries()) {
      await db
        .insertInto(appVersion.table)
        .values({
          platform,
          versionCode,
          versionType,
          downloadUrl: `https://velo.example/app/${platform}?version=${versionCode}`,
          updateInterval: 24,
          current: bool(i === history.length - 1),
          releaseTime: new Date(now - (history.length - i) * 30 * 86_400_000).toISOString(),
          notesEn: `Release ${versionCode}`,
          notesDe: `Version ${versionCode}`,
          notesNl: `Versie ${versionCode}`,
          notesFr: `Version ${versionCode}`,
          createBy: 'bench',
          createTime: new Date(now).toISOString(),
          updateBy: '',
          updateTime: null,
          remark: '',
        })
        .execute()
    }
  }
}

export async function runContent(target: Target, bench: ContentBench, entry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  let db: Db | undefined
  const { dir, database, cleanup } = await scratch(target, 'content', async () => {
    await server?.stop()
    await db?.destroy()
  })
  const n = fmt(bench.members)
  try {
    log(`${target.name}: starting the server`)
    server = await ServerProcess.start(entry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files') })
    db = createDatabase(database.config).db
    const k = dynamicDb(db)

    // ---- Push a message to every member.
    try {
      log(`${target.name}: ${n} members`)
      const seeded = performance.now()
      await seedMembers(k, target, bench.members)
      notes.push(`${target.name}: ${n} members written in one INSERT … SELECT in ${fmt((performance.now() - seeded) / 1000, 1)} s.`)

      log(`${target.name}: deliverMessage to ${n} members`)
      const pushed = await draftMessage(k, 'Benchmark: deliverMessage')
      collectGarbage()
      const watch = new MemoryWatch(process.pid)
      const started = performance.now()
      const delivered = await deliverMessage(db, pushed)
      const seconds = (performance.now() - started) / 1000
      const peak = watch.stop()
      if (delivered !== bench.members) throw new Error(`deliverMessage reached ${delivered} of ${bench.members} members`)
      const row = await k.selectFrom(messageEntity.table).select(['status', 'sentCount']).where('messageId', '=', pushed).executeTakeFirstOrThrow()
      if (row.status !== 'sent' || Number(row.sentCount) !== bench.members) throw new Error(`the message ended ${row.status} with sentCount ${row.sentCount}`)
      add(`push a message to ${n} members (deliverMessage)`, `${fmt(seconds, 2)} s (${fmt(bench.members / seconds)} rows/s)`)
      add(`push to ${n}: bench process peak RSS`, `${mb(peak)} (${mb(watch.startRss)} at start)`)
      await forget(k, target, pushed)

      log(`${target.name}: the same INSERT … SELECT bare, in batches of ${fmt(DELIVERY_BATCH)} ids, then as one statement`)
      const bareBatched = await draftMessage(k, 'Benchmark: bare, batched')
      const batched = await bareDelivery(k, bareBatched, bench.members, DELIVERY_BATCH)
      await forget(k, target, bareBatched)
      const bareOne = await draftMessage(k, 'Benchmark: bare, one statement')
      const one = await bareDelivery(k, bareOne, bench.members, null)
      await forget(k, target, bareOne)
      add(`the same INSERT … SELECT bare (${fmt(DELIVERY_BATCH)}-id batches)`, `${fmt(batched, 2)} s (deliverMessage / bare ${fmt(seconds / batched, 2)})`)
      add('the same INSERT … SELECT bare (one statement)', `${fmt(one, 2)} s (deliverMessage / bare ${fmt(seconds / one, 2)})`)
    } catch (err) {
      add(`push a message to ${n} members`, `failed: ${message(err, server)}`, { pass: false })
      log(`${target.name} push failed: ${err instanceof Error ? err.stack : String(err)}`)
    }

    // ---- The app's version check under load.
    const url = `${server.baseUrl}/api/app/v1/version?platform=ios&version=1.0.0`
    try {
      await seedVersions(k, target)
      const first = await fetch(url)
      const answer = (await first.json()) as { code: number; data?: { latest: { versionCode: string } | null; updateAvailable: boolean; forceUpdate: boolean } }
      const got = { versionCode: answer.data?.latest?.versionCode, updateAvailable: answer.data?.updateAvailable, forceUpdate: answer.data?.forceUpdate }
      if (answer.code !== 200 || JSON.stringify(got) !== JSON.stringify(EXPECTED)) throw new Error(`the version check answered ${first.status} ${JSON.stringify(answer).slice(0, 200)}`)
      log(`${target.name}: version check, ${bench.clients} clients, warm-up + ${bench.seconds} s`)
      collectGarbage()
      const watch = server.watchMemory()
      const load = await httpLoad({ url, method: 'GET', headers: {}, connections: bench.clients, warmup: WARMUP_SECONDS, seconds: bench.seconds })
      const peak = watch.stop()
      if (load.errors) notes.push(`${target.name}: ${fmt(load.errors)} version checks failed or answered non-2xx.`)
      add(`app version check, ${bench.clients} clients (GET /app/v1/version)`, `${fmt(load.perSecond)} req/s, p50 ${ms(load.p50)}, p99 ${ms(load.p99)}`)
      add('app version check: server peak RSS', `${mb(peak)} (${mb(watch.startRss)} at start)`)
    } catch (err) {
      add(`app version check, ${bench.clients} clients`, `failed: ${message(err, server)}`, { pass: false })
      log(`${target.name} version check failed: ${err instanceof Error ? err.stack : String(err)}`)
    }
  } catch (err) {
    add('content', `failed: ${message(err, server)}`, { pass: false })
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
