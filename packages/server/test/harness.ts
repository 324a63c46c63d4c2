import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { FINAL_JOB_STATES } from '@velo/shared'
import ExcelJS from 'exceljs'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Kysely, Selectable } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, inject } from 'vitest'
import { buildApp, type BuildOptions } from '../src/app'
import { loadConfig } from '../src/config'
import { newUserRow } from '../src/platform/auth/new-user'
import { hashPassword } from '../src/platform/auth/passwords'
import type { ImportIssue } from '../src/platform/crud/import'
import type { FieldIssue } from '../src/platform/errors'
import type { Database, JobTable, OperLogTable } from '../src/db/schema'
import { ADMIN_PASSWORD } from './template-database'

export { ADMIN_PASSWORD }

export interface TestApp {
  app: FastifyInstance
  /** Its database, for a second instance on the same one (createTestApp's databaseUrl). */
  databaseUrl: string
  /**
   * Sends a request from this app's own client address and parses the envelope; `T` is what the
   * test reads of its data (unchecked: the server checks its answers against the route's schema).
   */
  call: <T = unknown>(opts: CallOptions) => Promise<Called<T>>
  login: (username?: string, password?: string) => Promise<string>
  close: () => Promise<void>
}

/** An answer as t.call gives it: the envelope's fields beside the HTTP status, headers and body. */
export interface Called<T = unknown> {
  status: number
  code: number
  msg: string
  data: T
  headers: Record<string, unknown>
  raw: Buffer
}

/**
 * The data of a request refused for its fields: the fields to mark, with why when the input was
 * invalid (platform/http.ts); a clash with stored data names only the field (platform/errors.ts).
 */
export interface Refusal {
  errors: (Pick<FieldIssue, 'field'> & Partial<FieldIssue>)[]
}

/** The data of a refused import (platform/crud/import.ts): the rows and fields at fault. */
export interface ImportRefusal {
  errors: ImportIssue[]
}

export interface CallOptions {
  method?: InjectOptions['method']
  url: string
  token?: string
  lang?: 'en_US' | 'zh_CN'
  body?: unknown
  headers?: Record<string, string>
  payload?: InjectOptions['payload']
}

/**
 * A fresh PostgreSQL database per app when TEST_DATABASE_URL is set, else a fresh SQLite file (a
 * test of both dialects names the one it wants).
 */
export async function freshDatabase(
  dir: string,
  dialect: 'sqlite' | 'postgres' = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite',
  /** A PostgreSQL database to copy (seededDatabase): names made by the suite, never a test's text. */
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL
  if (dialect === 'sqlite' || !base) return { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => {} }
  const name = `velo_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`)
  // A throwaway database: a commit need not wait for the disk (only a crash of PostgreSQL itself could
  // lose one). The escalation walk, thousands of small writes, took 105 s with the wait and 91 s without.
  await admin.query(`alter database ${name} set synchronous_commit = off`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      // A closed pool's sockets may still be saying goodbye; forcing them off then raises an error in the test.
      for (let i = 0; i < 100; i++) {
        const open = await c.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name])
        if (open.rows[0].n === 0) break
        await new Promise((r) => setTimeout(r, 20))
      }
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}

/**
 * A database as the template (test/template-database.ts) left it, migrated and seeded: a copy of its
 * SQLite file, or a PostgreSQL database made from it. Without the template (a file run outside the
 * suite's config) a fresh one, which the app migrates and seeds itself.
 */
async function seededDatabase(dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = inject('templateDatabase')
  if (!template) return freshDatabase(dir)
  if (!process.env.TEST_DATABASE_URL) {
    const file = join(dir, 'test.db')
    copyFileSync(template.sqliteFile, file)
    return { url: `sqlite:${file}`, drop: async () => {} }
  }
  return freshDatabase(dir, 'postgres', template.postgresName ?? undefined)
}

export interface TestAppOptions extends Pick<BuildOptions, 'modules' | 'iot' | 'schedules' | 'logger'> {
  /** Another app's database (several instances on one database); its owner drops it, not this app. */
  databaseUrl?: string
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'velo-test-'))
  const { databaseUrl, ...buildOptions } = options
  const database = databaseUrl ? { url: databaseUrl, drop: async () => {} } : env.DATABASE_URL ? { url: env.DATABASE_URL, drop: async () => {} } : await seededDatabase(dir)
  // TEST_MQTT_URL runs the apps on an external broker (Mosquitto), each in a shared-subscription
  // group of its own so parallel test files do not take each other's device messages. A test that
  // chooses its broker (MQTT_URL or MQTT_PORT) keeps its choice: the auth tests need the embedded one.
  const externalMqtt =
    process.env.TEST_MQTT_URL && env.MQTT_URL === undefined && env.MQTT_PORT === undefined
      ? { MQTT_URL: process.env.TEST_MQTT_URL, MQTT_SHARE_GROUP: `test${randomBytes(6).toString('hex')}` }
      : {}
  const config = loadConfig({
    // What else the server keeps in its data folder (the embedded broker's remembered port) stays in the test's.
    DATA_DIR: dir,
    DATABASE_URL: database.url,
    STORAGE_DIR: join(dir, 'files'),
    MAIL_DIR: join(dir, 'mail'),
    // Beside STORAGE_DIR, never inside it (a backup would copy itself), and gone with the app.
    BACKUP_DIR: join(dir, 'backups'),
    ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    // Every answer is checked against its route's declared response schema (platform/responses.ts).
    RESPONSE_CHECK: 'true',
    // Any free port: many apps run at once, and a local broker may hold 1883.
    MQTT_PORT: '0',
    // Parallel test files share the Redis: each database keeps its sessions, codes and counters apart.
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: `velo:${createHash('sha256').update(database.url).digest('hex').slice(0, 12)}:` } : {}),
    ...externalMqtt,
    ...env,
  })
  // Apps of parallel test files share the Redis: each database gets its own event channel (two
  // instances on one database share theirs, as a deployment's do).
  const eventsChannel = `velo:iot:events:${createHash('sha256').update(database.url).digest('hex').slice(0, 16)}`
  // The maintenance schedules stay off unless a test turns them on: a retention job at every app's start
  // would race the tests that trim logs themselves, and show up in their job lists.
  const app = await buildApp(config, { logger: false, ...buildOptions, schedules: buildOptions.schedules ?? { enabled: false }, iot: { eventsChannel, ...buildOptions.iot } })
  await app.ready()
  if (externalMqtt.MQTT_URL) await app.iot.gateway.ready()
  // Each app gets its own client address, so per-address limits of one test file never touch another's.
  const remoteAddress = `127.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`

  const call: TestApp['call'] = async <T>(o: CallOptions) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) }
    if (o.token) headers.authorization = o.token
    if (o.lang) headers.currentlanguage = o.lang
    const res = await app.inject({
      method: o.method ?? 'GET',
      url: o.url,
      headers,
      remoteAddress,
      ...(o.payload !== undefined ? { payload: o.payload } : o.body !== undefined ? { payload: o.body as object } : {}),
    })
    let parsed: { code?: number; msg?: string; data?: unknown } = {}
    if (String(res.headers['content-type'] ?? '').includes('json')) parsed = res.json()
    return { status: res.statusCode, code: parsed.code ?? res.statusCode, msg: parsed.msg ?? '', data: parsed.data as T, headers: res.headers, raw: res.rawPayload }
  }

  const login = async (username = 'admin', password = ADMIN_PASSWORD) => {
    const res = await call<{ token: string }>({ method: 'POST', url: '/api/login', body: { username, password } })
    if (res.code !== 200) throw new Error(`login ${username} failed: ${res.msg}`)
    return res.data.token
  }

  return {
    app,
    databaseUrl: database.url,
    call,
    login,
    close: async () => {
      await app.close()
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Adds a user straight into the database (user management pages come later), with roles by key. */
export async function addUser(
  t: TestApp,
  u: { userName: string; password?: string; deptId?: number | null; roleKeys?: string[]; email?: string; status?: string },
): Promise<number> {
  const db = t.app.services.db
  const { userId } = await db
    .insertInto('sysUser')
    .values(
      newUserRow({
        userName: u.userName,
        passwordHash: await hashPassword(u.password ?? 'secret12'),
        email: u.email ?? `${u.userName}@example.com`,
        status: u.status,
        deptId: u.deptId,
        createBy: 'test',
      }),
    )
    .returning('userId')
    .executeTakeFirstOrThrow()
  for (const key of u.roleKeys ?? []) {
    const role = await db.selectFrom('sysRole').select('roleId').where('roleKey', '=', key).executeTakeFirstOrThrow()
    await db.insertInto('sysUserRole').values({ userId, roleId: role.roleId }).execute()
  }
  return userId
}

/** Adds a role with a data scope and the given permissions (as button menus it is granted). */
export async function addRole(t: TestApp, r: { roleKey: string; dataScope: string; perms: string[]; deptIds?: number[] }): Promise<number> {
  const db = t.app.services.db
  const { roleId } = await db
    .insertInto('sysRole')
    .values({ roleName: r.roleKey, roleKey: r.roleKey, roleSort: 9, dataScope: r.dataScope, status: '0', delFlag: '0', createBy: 'test', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' })
    .returning('roleId')
    .executeTakeFirstOrThrow()
  if (r.perms.length) {
    const menus = await db.selectFrom('sysMenu').select('menuId').where('perms', 'in', r.perms).execute()
    if (menus.length) await db.insertInto('sysRoleMenu').values(menus.map((m) => ({ roleId, menuId: m.menuId }))).execute()
  }
  for (const deptId of r.deptIds ?? []) await db.insertInto('sysRoleDept').values({ roleId, deptId }).execute()
  return roleId
}

/** The mails written to MAIL_DIR (no SMTP in tests), oldest first: what a recipient would read. */
export function sentMails(t: Pick<TestApp, 'app'>): { to: string; text: string }[] {
  const dir = t.app.services.config.mailDir
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => {
      const raw = readFileSync(join(dir, f), 'utf8')
      const [head, ...body] = raw.split(/\r?\n\r?\n/)
      const text = body.join('\n\n').replace(/=\r?\n/g, '')
      return { to: /^To: (.*)$/m.exec(head ?? '')?.[1]?.trim() ?? '', text }
    })
}

export async function deptId(t: TestApp, name: string): Promise<number> {
  const row = await t.app.services.db.selectFrom('sysDept').select('deptId').where('deptName', '=', name).executeTakeFirstOrThrow()
  return row.deptId
}

/** The first sheet of an .xlsx answer: its name, header row and data rows. */
export async function readWorkbook(raw: Buffer) {
  const wb = new ExcelJS.Workbook()
  await wb.xlsx.load(raw as unknown as ArrayBuffer)
  const ws = wb.worksheets[0]!
  const rows: unknown[][] = []
  ws.eachRow((row) => rows.push((row.values as unknown[]).slice(1)))
  return { name: ws.name, header: rows[0] as string[], rows: rows.slice(1) }
}

/**
 * A signed-in user with a role of their own: the button permissions given, the data scope, a
 * department by name, and optionally whole menus by name (directories and pages for /getRouters).
 */
export async function limitedUser(
  t: TestApp,
  o: { userName: string; perms: string[]; dataScope: string; dept?: string; deptIds?: number[]; menus?: string[] },
): Promise<{ userId: number; roleId: number; token: string }> {
  const db = t.app.services.db
  const roleId = await addRole(t, { roleKey: `r${o.userName}`, dataScope: o.dataScope, perms: o.perms, deptIds: o.deptIds })
  if (o.menus?.length) {
    const menus = await db.selectFrom('sysMenu').select('menuId').where('menuName', 'in', o.menus).execute()
    const held = new Set((await db.selectFrom('sysRoleMenu').select('menuId').where('roleId', '=', roleId).execute()).map((r) => r.menuId))
    const extra = menus.filter((m) => !held.has(m.menuId))
    if (extra.length) await db.insertInto('sysRoleMenu').values(extra.map((m) => ({ roleId, menuId: m.menuId }))).execute()
  }
  const userId = await addUser(t, { userName: o.userName, deptId: o.dept ? await deptId(t, o.dept) : null })
  await db.insertInto('sysUserRole').values({ userId, roleId }).execute()
  return { userId, roleId, token: await t.login(o.userName, 'secret12') }
}

/** The id of a row found by one column (test set-up reads, not API calls). */
export async function idOf(t: TestApp, what: 'user' | 'role' | 'menu', value: string): Promise<number> {
  const db = t.app.services.db
  if (what === 'user') return (await db.selectFrom('sysUser').select('userId').where('userName', '=', value).executeTakeFirstOrThrow()).userId
  if (what === 'role') return (await db.selectFrom('sysRole').select('roleId').where('roleKey', '=', value).executeTakeFirstOrThrow()).roleId
  return (await db.selectFrom('sysMenu').select('menuId').where('menuName', '=', value).orderBy('menuId').executeTakeFirstOrThrow()).menuId
}

/** Every row of the tables, in a stable order: what "nothing changed" is checked against. */
export async function snapshot(t: TestApp, ...tables: (keyof Database)[]) {
  const out: Record<string, string[]> = {}
  for (const table of tables) {
    const rows = await t.app.services.db.selectFrom(table).selectAll().execute()
    out[table] = rows.map((r) => JSON.stringify(r)).sort()
  }
  return out
}

/** The operation log is written once the answer is out: a test waits for its row rather than racing it. */
export async function waitForOperLog(t: TestApp, match: (r: Selectable<OperLogTable>) => boolean): Promise<Selectable<OperLogTable>> {
  const deadline = Date.now() + 5000
  for (;;) {
    const rows = await t.app.services.db.selectFrom('sysOperLog').selectAll().orderBy('operId', 'desc').execute()
    const found = rows.find(match)
    if (found) return found
    if (Date.now() > deadline) throw new Error('no matching operation log row')
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Waits until a job has ended (succeeded, failed or cancelled) and answers its row. */
export async function waitForJobEnd(db: Kysely<Database>, jobId: number, timeoutMs = 30_000): Promise<Selectable<JobTable>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const row = await db.selectFrom('sysJob').selectAll().where('jobId', '=', jobId).executeTakeFirst()
    if (row && (FINAL_JOB_STATES as readonly string[]).includes(row.state)) return row
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not end in ${timeoutMs} ms (${row?.state ?? 'missing'})`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * One app per test file, built before its tests and closed after them, with an admin token:
 * `const t = useTestApp()`, then `t.call(…)`, `t.admin`, `t.app.services.db` inside tests.
 */
export function useTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): TestApp & { readonly admin: string } {
  let current: TestApp | undefined
  let token = ''
  beforeAll(async () => {
    current = await createTestApp(env, options)
    token = await current.login()
  })
  afterAll(() => current?.close())
  const app = () => {
    if (!current) throw new Error('useTestApp: the app is built in beforeAll; use it inside hooks and tests')
    return current
  }
  return {
    get app() {
      return app().app
    },
    get databaseUrl() {
      return app().databaseUrl
    },
    get admin() {
      return token
    },
    call: <T>(o: CallOptions) => app().call<T>(o),
    login: (...args) => app().login(...args),
    close: () => app().close(),
  }
}

/** One part of a hand-built multipart body: a file when `name` is given, a plain field otherwise. */
export interface MultipartPart {
  field?: string
  name?: string
  bytes?: Buffer
  value?: string
}

/** A multipart/form-data body built by hand (bad names, odd parts), for t.call's `payload` and `headers`. */
export function multipart(parts: MultipartPart[]) {
  const boundary = `----velo${Math.random().toString(16).slice(2)}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = p.name === undefined ? `form-data; name="${p.field ?? 'file'}"` : `form-data; name="${p.field ?? 'file'}"; filename="${p.name}"`
    const type = p.name === undefined ? '' : 'Content-Type: application/octet-stream\r\n'
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), p.bytes ?? Buffer.from(p.value ?? ''), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
