import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Envelope, type FieldDef, type Paged, type ResolvedEntity, systemEntities } from '@velo/shared'
import SQLite from 'better-sqlite3'
import ExcelJS from 'exceljs'
import { CamelCasePlugin, type CompiledQuery, Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely'
import pg from 'pg'
import type { DatabaseTarget } from '../src/config'
import { createDatabase, type Db, dynamicDb } from '../src/db/database'
import type { Database } from '../src/db/schema'
import { statementName } from '../src/db/pg-named'
import { EntityRepository } from '../src/platform/crud/repository'
import { listSchema } from '../src/platform/crud/schemas'
import type { RowScope } from '../src/platform/rbac/data-scope'
import { importValue, loginLogRows, random } from './data'
import { httpLoad, type LoadResult, loopLoad, type ProbeResult, whileProbing, WARMUP_SECONDS } from './measure'
import { onCleanup, onExit } from './cleanup'
import { exportAsJob } from './export-job'
import { measureTransitions } from './transitions'
import { measureImportBomb } from './import-bomb'
import { ADMIN_PASSWORD, ServerProcess } from './server'
import { log, fmt, ms } from './format'

export interface Bench {
  rows: number
  importRows: number
  /** Service orders moved one step each through the transition route. */
  transitions: number
  seconds: number
  connections: number
  /** The demo data's scale for the parts that fill it (members, dashboards): 1 is the full size. */
  demoScale: number
}
export type Target = { name: string; dialect: 'sqlite' } | { name: string; dialect: 'postgres'; serverUrl: string }
export interface Line {
  db: string
  measure: string
  value: string
  target?: string
  pass?: boolean
}

const loginLog = systemEntities.loginLog
const i18n = systemEntities.i18n
const LIST_TARGET_P99_MS = 25
const LIST_TARGET_RATIO = 0.8
const EXPORT_TARGET_ROWS_PER_S = 50_000
const EXPORT_TARGET_RSS = 300 * 1024 * 1024
const IMPORT_TARGET_S = 20
/** A server just started on the embedded defaults (SQLite, embedded broker), nothing asked of it yet (issue 43). */
const IDLE_TARGET_RSS = 150 * 1024 * 1024
/** How long it is left alone first: what start left behind (the job worker's first sweep, pending GC) settles. */
const IDLE_SETTLE_MS = process.env.BENCH_SIZE === 'smoke' ? 2_000 : 10_000
/**
 * And once V8 has given back what start-up left: its memory reducer compacts the heap and returns
 * the young generation's pages after the process has allocated little for a while (~60 s after
 * start here; docs/ops/capacity.md › Idle memory). What a deployment that does nothing holds.
 */
const IDLE_REDUCED_MS = process.env.BENCH_SIZE === 'smoke' ? 0 : Number(process.env.BENCH_IDLE_REDUCED_MS ?? 90_000)
const BOMB_TARGET_RSS_MB = 512
/** Other requests during an export or import: answered as if the server were idle, give or take. */
const OTHERS_TARGET_MS = 100
/** Staff clicking steps at once: fewer than the list's 50, as steps are writes. */
const TRANSITION_CLIENTS = 20

const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MB`

/** What the list page asks: failed sign-ins of the last 90 days, newest first, first page. */
function listBody(now: Date) {
  const day = (d: Date) => d.toISOString().slice(0, 10)
  return {
    pageNum: 1,
    pageSize: 20,
    status: '1',
    loginTime: [day(new Date(now.getTime() - 89 * 24 * 3600_000)), day(now)],
    orderByColumn: 'loginTime',
    isAsc: 'descending',
  }
}

/** A fresh database for one target; `drop` removes it (and the temporary directory). */
export async function freshDatabase(target: Target, dir: string): Promise<{ url: string; config: DatabaseTarget; drop: () => Promise<void> }> {
  if (target.dialect === 'sqlite') {
    const file = join(dir, 'bench.db')
    return { url: `sqlite:${file}`, config: { dialect: 'sqlite', file }, drop: async () => {} }
  }
  const name = `bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: target.serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(target.serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    config: { dialect: 'postgres', url: url.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: target.serverUrl })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

/** A part's table lines and notes for one database, and `add` for a line. */
export function results(target: Target) {
  const lines: Line[] = []
  const notes: string[] = []
  const add = (measure: string, value: string, extra: { target?: string; pass?: boolean } = {}) => lines.push({ db: target.name, measure, value, ...extra })
  return { lines, notes, add }
}

/**
 * A part's scratch for one database: a temporary folder and a fresh database in it, and the
 * clean-up that removes them however the run ends (`first` stops what the part started on them:
 * its server, its own connection).
 */
export async function scratch(target: Target, name: string, first: () => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), `velo-bench-${name}-`))
  const forgetDir = onExit(() => rmSync(dir, { recursive: true, force: true }))
  const database = await freshDatabase(target, dir)
  const cleanup = onCleanup(async () => {
    await first()
    await database.drop()
    rmSync(dir, { recursive: true, force: true })
    forgetDir()
  })
  return { dir, database, cleanup }
}

export async function runTarget(target: Target, bench: Bench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  let db: Db | undefined
  const { dir, database, cleanup } = await scratch(target, 'engine', async () => {
    await server?.stop()
    await db?.destroy()
  })
  // A fresh server process for each phase, so each peak is that phase's own (V8 keeps what it grew to).
  const restart = async () => {
    const port = server?.port
    await server?.stop()
    server = await ServerProcess.start(serverEntry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files') }, port)
    return server
  }
  try {
    log(`${target.name}: starting the server`)
    const started = await restart()
    const base = `${started.baseUrl}/api`
    // Read before anything signs in: the figure is what every deployment pays for doing nothing.
    await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS))
    const idleRss = started.rss()
    if (idleRss !== null) {
      const judged = target.dialect === 'sqlite' ? { target: `≤ ${mb(IDLE_TARGET_RSS)}`, pass: idleRss <= IDLE_TARGET_RSS } : {}
      add(`idle RSS ${IDLE_SETTLE_MS / 1000} s after start (server)`, mb(idleRss), judged)
    }
    if (IDLE_REDUCED_MS > IDLE_SETTLE_MS && target.dialect === 'sqlite') {
      await new Promise((r) => setTimeout(r, IDLE_REDUCED_MS - IDLE_SETTLE_MS))
      const reduced = started.rss()
      if (reduced !== null) add(`idle RSS ${IDLE_REDUCED_MS / 1000} s after start, heap reduced (server)`, mb(reduced), { target: `≤ ${mb(IDLE_TARGET_RSS)}`, pass: reduced <= IDLE_TARGET_RSS })
    }
    const token = await signIn(base)
    const headers = { authorization: token, currentlanguage: 'en_US' }
    const appDb = createDatabase(database.config).db
    db = appDb
    // --- import: a function, so BENCH_IMPORT_ONLY=1 can run it alone (no login-log rows, list, export
    // or transitions first) when looking into its figure
    const importPhase = async () => {
      log(`${target.name}: import of ${fmt(bench.importRows)} rows`)
      try {
        const s = await restart()
        const file = await importFile(base, headers, appDb, dir, bench.importRows)
        if (file === 'missing') {
          add(`import ${fmt(bench.importRows)} rows`, 'n/a (endpoint missing)', { target: `< ${IMPORT_TARGET_S} s` })
        } else {
          const { result, probe } = await whileProbing(probeAsk(base, headers), () => importAll(base, headers, file, bench.importRows, s))
          if (result === 'missing') {
            add(`import ${fmt(bench.importRows)} rows`, 'n/a (endpoint missing)', { target: `< ${IMPORT_TARGET_S} s` })
          } else {
            add(`import ${fmt(bench.importRows)} rows`, `${fmt(result.seconds, 1)} s (${mb(file.bytes)} .xlsx)`, {
              target: `< ${IMPORT_TARGET_S} s`,
              pass: result.seconds < IMPORT_TARGET_S,
            })
            add('import peak RSS (server)', `${mb(result.peak)} (${mb(result.startRss)} at start)`)
            add(`other requests' longest wait during the ${fmt(bench.importRows)}-row import`, ...probeLine(probe))
          }
        }
      } catch (err) {
        add(`import ${fmt(bench.importRows)} rows`, `failed: ${message(err, server)}`, { target: `< ${IMPORT_TARGET_S} s`, pass: false })
      }
    }
    if (process.env.BENCH_IMPORT_ONLY === '1') {
      await importPhase()
      return { lines, notes }
    }
    const total = await generate(db, target, bench.rows)

    // --- list, over HTTP and bare (BENCH_EXPORT_ONLY=1 skips it, to look into the export's figures)
    if (process.env.BENCH_EXPORT_ONLY !== '1') {
      const body = listBody(new Date())
      const first = await api<Paged<unknown>>(base, `${loginLog.path}/list`, { method: 'POST', headers, body })
      if (!Array.isArray(first.data?.rows) || first.data.rows.length === 0) throw new Error(`list answered no rows: ${JSON.stringify(first).slice(0, 300)}`)
      notes.push(`${target.name}: list body \`${JSON.stringify(body)}\` matches ${fmt(first.data.total as number)} of ${fmt(total)} rows.`)
      const listLoad = (connections: number, warmup: number, seconds: number) => {
        collectGarbage()
        return httpLoad({
          url: `${base}${loginLog.path}/list`,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          connections,
          warmup,
          seconds,
        })
      }
      log(`${target.name}: list over HTTP, ${bench.connections} clients, warm-up (≥ ${WARMUP_SECONDS} s, until every client is answered) + ${bench.seconds} s`)
      const http = await listLoad(bench.connections, WARMUP_SECONDS, bench.seconds)
      log(`${target.name}: steady from ${fmt(http.warmup, 1)} s: ${fmt(http.count)} requests`)
      if (http.errors) notes.push(`${target.name}: ${fmt(http.errors)} list requests failed or answered non-2xx.`)
      // The same page for one client alone: the engine's latency without queueing behind 49 others.
      const alone = await listLoad(1, 1, Math.min(bench.seconds, 5))
      log(`${target.name}: the repository's SQL bare, ${WARMUP_SECONDS} s warm-up + ${bench.seconds} s`)
      collectGarbage()
      const bare = await bareLoad(database.config, body, bench)
      const ratio = http.perSecond / bare.result.perSecond
      add(`list p50 (${bench.connections} HTTP clients)`, ms(http.p50))
      add('list p99', ms(http.p99), { target: `< ${LIST_TARGET_P99_MS} ms`, pass: http.p99 < LIST_TARGET_P99_MS })
      add('list throughput', `${fmt(http.perSecond)} req/s`)
      add('list p50 / p99, 1 client', `${ms(alone.p50)} / ${ms(alone.p99)}`)
      add(`bare SQL p50 / p99 (${bare.model})`, `${ms(bare.result.p50)} / ${ms(bare.result.p99)}`)
      add('bare SQL throughput', `${fmt(bare.result.perSecond)} q/s`)
      add('list ÷ bare throughput', fmt(ratio, 2), { target: `≥ ${fmt(LIST_TARGET_RATIO, 2)}`, pass: ratio >= LIST_TARGET_RATIO })
    }
    // BENCH_LIST_ONLY=1: the list alone, for profiling it (BENCH_SERVER_ARGS=--cpu-prof).
    if (process.env.BENCH_LIST_ONLY === '1') return { lines, notes }

    // --- export
    log(`${target.name}: export of ${fmt(total)} rows`)
    try {
      const s = await restart()
      const { result, probe } = await whileProbing(probeAsk(base, headers), () => exportAll(base, headers, s))
      const rate = total / result.seconds
      add(`export ${fmt(total)} rows`, `${fmt(rate)} rows/s (${fmt(result.seconds, 1)} s, ${mb(result.bytes)} .xlsx)`, {
        target: `> ${fmt(EXPORT_TARGET_ROWS_PER_S)} rows/s`,
        pass: rate > EXPORT_TARGET_ROWS_PER_S,
      })
      add('export peak RSS (server)', `${mb(result.peak)} (${mb(result.startRss)} at start)`, { target: `< ${mb(EXPORT_TARGET_RSS)}`, pass: result.peak < EXPORT_TARGET_RSS })
      add(`other requests' longest wait during the ${fmt(total)}-row export`, ...probeLine(probe))
    } catch (err) {
      add(`export ${fmt(total)} rows`, `failed: ${message(err, server)}`, { target: `> ${fmt(EXPORT_TARGET_ROWS_PER_S)} rows/s`, pass: false })
    }

    // --- the same export as a job: the server's worker writes the file to storage, then it downloads
    log(`${target.name}: export of ${fmt(total)} rows as a job`)
    try {
      const s = await restart()
      const { result, probe } = await whileProbing(probeAsk(base, headers), () => exportAsJob(base, headers, s, total))
      const rate = total / result.seconds
      add(`export ${fmt(total)} rows as a job`, `${fmt(rate)} rows/s (${fmt(result.seconds, 1)} s queued to done, ${fmt(result.serverSeconds, 1)} s running, ${mb(result.bytes)} .xlsx)`, {
        target: `> ${fmt(EXPORT_TARGET_ROWS_PER_S)} rows/s`,
        pass: rate > EXPORT_TARGET_ROWS_PER_S,
      })
      add('export job peak RSS (server)', `${mb(result.peak)} (${mb(result.startRss)} at start)`, { target: `< ${mb(EXPORT_TARGET_RSS)}`, pass: result.peak < EXPORT_TARGET_RSS })
      add(`other requests' longest wait during the ${fmt(total)}-row export job`, ...probeLine(probe))
    } catch (err) {
      add(`export ${fmt(total)} rows as a job`, `failed: ${message(err, server)}`, { target: `> ${fmt(EXPORT_TARGET_ROWS_PER_S)} rows/s`, pass: false })
    }

    if (process.env.BENCH_EXPORT_ONLY === '1') return { lines, notes }

    // --- steps of a status machine: each service order moved once through its route
    log(`${target.name}: ${fmt(bench.transitions)} transitions`)
    try {
      await restart()
      const steps = await measureTransitions(base, headers, db, bench.transitions, TRANSITION_CLIENTS)
      add(`${fmt(bench.transitions)} transitions p50 / p99 (${TRANSITION_CLIENTS} clients)`, `${ms(steps.p50)} / ${ms(steps.p99)}`)
      add(`${fmt(bench.transitions)} transitions throughput`, `${fmt(steps.perSecond)} steps/s`, {
        target: steps.consistent && !steps.failed ? undefined : 'every step answered 200 and recorded once',
        pass: steps.consistent && !steps.failed ? undefined : false,
      })
    } catch (err) {
      add(`${fmt(bench.transitions)} transitions`, `failed: ${message(err, server)}`, { pass: false })
    }

    await importPhase()

    // --- the worst import file under the upload limit: refused, with the server's memory bounded
    log(`${target.name}: import bomb`)
    try {
      const s = await restart()
      const bomb = await measureImportBomb(s.baseUrl, headers.authorization, s.pid)
      add(
        `import bomb (${fmt(bomb.fileMb, 1)} MB .xlsx, ${fmt(bomb.unpackedGb, 1)} GB unpacked)`,
        `HTTP ${bomb.status} in ${fmt(bomb.seconds, 2)} s, peak RSS ${fmt(bomb.peakRssMb)} MB (${fmt(bomb.startRssMb)} MB at start)`,
        { target: `4xx, < ${BOMB_TARGET_RSS_MB} MB`, pass: bomb.status >= 400 && bomb.status < 500 && bomb.peakRssMb < BOMB_TARGET_RSS_MB },
      )
    } catch (err) {
      add('import bomb', `failed: ${message(err, server)}`, { pass: false })
    }
  } catch (err) {
    add('run', `failed: ${message(err, server)}`, { pass: false })
    log(`${target.name} failed: ${err instanceof Error ? err.stack : String(err)}`)
  } finally {
    await cleanup()
  }
  return { lines, notes }
}

/** With --expose-gc (the bench script sets it): each load starts without the last one's garbage. */
export function collectGarbage() {
  ;(globalThis as { gc?: () => void }).gc?.()
}

/**
 * The other client of the export and import phases: the first page of the dictionary types as the
 * signed-in admin, a small read that still needs the database (session lookup, permissions, the list).
 */
function probeAsk(base: string, headers: Record<string, string>) {
  const body = JSON.stringify({ pageNum: 1, pageSize: 10 })
  return async () => {
    const res = await fetch(`${base}${systemEntities.dictType.path}/list`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
    const answer = (await res.json().catch(() => ({}))) as { code?: number; data?: { rows?: unknown[] } }
    return res.status === 200 && answer.code === 200 && Array.isArray(answer.data?.rows) && answer.data.rows.length > 0
  }
}

/** The row for the probe's waits over one phase: the longest against the target, p99 and count beside it. */
function probeLine(probe: ProbeResult): [value: string, extra: { target: string; pass: boolean }] {
  const failed = probe.failed ? `, ${fmt(probe.failed)} failed` : ''
  return [
    `${ms(probe.longest)} (p99 ${ms(probe.p99)}, ${fmt(probe.count)} requests${failed})`,
    { target: `< ${OTHERS_TARGET_MS} ms`, pass: probe.longest < OTHERS_TARGET_MS && probe.failed === 0 },
  ]
}

/** Every row of an entity (default the login log) exported, downloaded whole: seconds, bytes and the server's peak memory. */
export async function exportAll(base: string, headers: Record<string, string>, server: ServerProcess, path: string = loginLog.path) {
  const watch = server.watchMemory()
  const started = performance.now()
  const res = await fetch(`${base}${path}/export`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })
  if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
  let bytes = 0
  let magic = ''
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (!magic) magic = Buffer.from(chunk.subarray(0, 2)).toString('latin1')
    bytes += chunk.byteLength
  }
  const seconds = (performance.now() - started) / 1000
  const peak = watch.stop()
  if (magic !== 'PK') throw new Error('export is not an .xlsx (zip) file')
  return { seconds, bytes, peak, startRss: watch.startRss }
}

export function message(err: unknown, server: ServerProcess | undefined): string {
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/\|/g, '/').slice(0, 160)
  return server && !server.alive ? `${text} (server exited)` : text
}

/** A call to the API and its envelope; `T` is what the caller reads of the data (none when the answer was no JSON). */
export async function api<T = unknown>(base: string, path: string, o: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; code: number; msg: string; data: T | undefined }> {
  const res = await fetch(`${base}${path}`, {
    method: o.method ?? 'GET',
    headers: { ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
    body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
  })
  const text = await res.text()
  try {
    return { status: res.status, ...(JSON.parse(text) as Envelope<T>) }
  } catch {
    return { status: res.status, code: res.status, msg: text.slice(0, 200), data: undefined }
  }
}

export async function signIn(base: string): Promise<string> {
  return signInAs(base, 'admin', ADMIN_PASSWORD)
}

export async function signInAs(base: string, username: string, password: string): Promise<string> {
  const res = await api<{ token: string }>(base, '/login', { method: 'POST', body: { username, password } })
  if (res.code !== 200) throw new Error(`sign-in of ${username} failed: ${res.status} ${res.msg}`)
  return res.data!.token
}

/** Writes the login log in batched multi-row inserts, a transaction per 50,000 rows; answers the row count. */
async function generate(db: Db, target: Target, rows: number): Promise<number> {
  const started = performance.now()
  // The table as its definition names it.
  const byName = dynamicDb(db)
  // 8 columns: 1,000 rows a statement stays under both dialects' bind-parameter limits.
  const batches = loginLogRows(rows, new Date(), 1000)
  let done = 0
  let next = batches.next()
  while (!next.done) {
    await byName.transaction().execute(async (tx) => {
      for (let i = 0; i < 50 && !next.done; i++) {
        await tx.insertInto(loginLog.table).values(next.value).execute()
        done += next.value.length
        next = batches.next()
      }
    })
    if (done % 200_000 === 0) log(`${target.name}: ${done.toLocaleString('en-US')} rows`)
  }
  if (target.dialect === 'postgres') await sql`vacuum analyze sys_login_log`.execute(byName)
  else await sql`pragma wal_checkpoint(truncate)`.execute(byName)
  const { count } = await byName.selectFrom(loginLog.table).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()
  log(`${target.name}: ${fmt(rows)} rows written in ${fmt((performance.now() - started) / 1000, 1)} s`)
  return Number(count)
}

/**
 * The SQL the engine runs for this list request, captured from the repository itself (so it follows
 * the engine as it changes), then executed bare: prepared once, straight on the driver.
 */
export async function bareLoad(
  config: DatabaseTarget,
  body: Record<string, unknown>,
  bench: Pick<Bench, 'seconds' | 'connections'>,
  entity: ResolvedEntity = loginLog,
  scope: RowScope = { all: true },
): Promise<{ result: LoadResult; model: string }> {
  const captured: CompiledQuery[] = []
  const capture = (dialect: SqliteDialect | PostgresDialect) =>
    new Kysely<Database>({ dialect, plugins: [new CamelCasePlugin()], log: (e) => void (e.level === 'query' && captured.push(e.query)) })
  const parsed = listSchema(entity).parse(body)

  if (config.dialect === 'sqlite') {
    const raw = new SQLite(config.file, { readonly: true })
    try {
      const k = capture(new SqliteDialect({ database: new SQLite(config.file, { readonly: true }) }))
      await new EntityRepository(k, entity).list(parsed as never, scope)
      await k.destroy()
      const statements = captured.map((q) => ({ stmt: raw.prepare(q.sql), params: q.parameters as unknown[] }))
      const once = () => statements.map(({ stmt, params }) => stmt.all(...params))
      await loopLoad({ workers: 1, seconds: WARMUP_SECONDS, once })
      return { result: await loopLoad({ workers: 1, seconds: bench.seconds, once }), model: '1 connection, back to back' }
    } finally {
      raw.close()
    }
  }

  const pool = new pg.Pool({ connectionString: config.url, max: bench.connections })
  try {
    const k = capture(new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url, max: 2 }) }))
    await new EntityRepository(k, entity).list(parsed as never, scope)
    await k.destroy()
    // Named or unnamed, as the engine's driver sends each (db/pg-named.ts): the same plans, without the engine.
    const statements = captured.map((q) => ({ name: statementName(q.sql), text: q.sql, values: q.parameters as unknown[] }))
    const once = () => Promise.all(statements.map((s) => pool.query(s)))
    await loopLoad({ workers: bench.connections, seconds: WARMUP_SECONDS, once })
    return { result: await loopLoad({ workers: bench.connections, seconds: bench.seconds, once }), model: `${bench.connections} workers, pool of ${bench.connections}` }
  } finally {
    await pool.end()
  }
}

/** An .xlsx of `count` rows under the import template's header; 'missing' when there is no endpoint. */
async function importFile(base: string, headers: Record<string, string>, db: Db, dir: string, count: number) {
  const template = await fetch(`${base}${i18n.path}/importTemplate`, { headers })
  if (template.status === 404) return 'missing' as const
  if (template.status !== 200) throw new Error(`importTemplate answered ${template.status}: ${(await template.text()).slice(0, 200)}`)
  const wb = new ExcelJS.Workbook()
  await wb.xlsx.load((await template.arrayBuffer()) as ArrayBuffer)
  const header = ((wb.worksheets[0]?.getRow(1).values ?? []) as unknown[]).slice(1).map((v) => String(v ?? ''))
  if (!header.length) throw new Error('the import template has no header row')

  // Header cells are field labels in the caller's language (en_US here); dictionary columns take labels.
  const byLabel = new Map(i18n.fields.map((f) => [f.label.en_US, f]))
  const dictTypes = i18n.fields.flatMap((f) => (f.kind === 'dict' ? [f.dict] : []))
  const dictRows = dictTypes.length
    ? await db.selectFrom('sysDictData').select(['dictType', 'dictLabel']).where('dictType', 'in', dictTypes).where('status', '=', '0').execute()
    : []
  const columns = header.map((label) => {
    const f = byLabel.get(label)
    if (!f) throw new Error(`import template column ${JSON.stringify(label)} is no field of ${i18n.key}`)
    const extra = f.kind === 'dict' ? { dictLabels: dictRows.filter((d) => d.dictType === f.dict).map((d) => d.dictLabel) } : {}
    return { ...(f as FieldDef & { max?: number; options?: readonly { label: { en_US: string } }[] }), ...extra }
  })

  const path = join(dir, 'import.xlsx')
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: createWriteStream(path), useStyles: false, useSharedStrings: false })
  const sheet = writer.addWorksheet('import')
  sheet.addRow(header).commit()
  const r = random(7)
  for (let i = 0; i < count; i++) sheet.addRow(columns.map((c) => importValue(c, i, r))).commit()
  sheet.commit()
  await writer.commit()
  return { path, bytes: statSync(path).size }
}

/** Posts the file as the import page does (multipart `file` + `updateSupport`); every row must be inserted. */
async function importAll(base: string, headers: Record<string, string>, file: { path: string }, count: number, server: ServerProcess) {
  const form = new FormData()
  form.append('updateSupport', 'false')
  form.append('file', new Blob([await readFile(file.path)], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }), 'i18n.xlsx')
  const watch = server.watchMemory()
  const started = performance.now()
  const res = await fetch(`${base}${i18n.path}/import`, { method: 'POST', headers, body: form })
  const text = await res.text()
  const seconds = (performance.now() - started) / 1000
  const peak = watch.stop()
  if (res.status === 404) return 'missing' as const
  let answer: { code?: number; msg?: string; data?: { inserted?: number; errors?: unknown[] } } = {}
  try {
    answer = JSON.parse(text)
  } catch {
    throw new Error(`import answered ${res.status}: ${text.slice(0, 200)}`)
  }
  if (res.status !== 200 || answer.code !== 200) {
    throw new Error(`import answered ${res.status} ${answer.msg ?? ''} ${JSON.stringify(answer.data?.errors?.slice(0, 3) ?? '')}`)
  }
  if (answer.data?.inserted !== count) throw new Error(`import inserted ${answer.data?.inserted} of ${count} rows`)
  return { seconds, peak, startRss: watch.startRss }
}
