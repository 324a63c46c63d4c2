import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Envelope, Paged } from '@velo/shared'
import pg from 'pg'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import { redactUrl } from '../src/ops/backup'
import { freePort } from '../test/server-process'

// CI: the backup/restore round trip an operator would run, on real processes.
//   SQLite: a server on a temporary data folder takes writes through its API while `npm run backup`
//   (scripts/backup.ts) copies it; `npm run restore` puts the copy in a new folder, a second server
//   starts on it and serves the data and the stored file; a tampered copy and an occupied folder are refused.
//   PostgreSQL (CI_PG_URL or TEST_DATABASE_URL set): a new database migrated and seeded by the app,
//   rows added, pg_dump -Fc, pg_restore into another new database, rows checked, both dropped.
// Prints each step; exits 1 on the first failure.
// Run: npx tsx packages/server/scripts/backup-roundtrip.ts

const SERVER_DIR = new URL('..', import.meta.url).pathname
const ADMIN_PASSWORD = 'admin123!'
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')

const log = (line: string) => console.log(`[backup-roundtrip] ${line}`)
class Failed extends Error {}
function check(ok: unknown, what: string): asserts ok {
  if (!ok) throw new Failed(what)
}

const work = mkdtempSync(join(tmpdir(), 'velo-backup-roundtrip-'))
const children = new Set<ChildProcess>()

/** A TypeScript entry of the server package through tsx, as npm's scripts run them. */
function tsx(args: string[], env: Record<string, string>) {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

async function runScript(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const child = tsx(args, env)
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)))
  return { code, output: output.trim() }
}

const dataEnv = (dir: string) => ({ DATABASE_URL: `sqlite:${join(dir, 'velo.db')}`, STORAGE_DIR: join(dir, 'files') })

interface Server {
  base: string
  stop: () => Promise<void>
}

async function startServer(dir: string): Promise<Server> {
  const port = await freePort()
  const child = tsx(['src/main.ts'], {
    ...dataEnv(dir),
    MAIL_DIR: join(dir, 'mail'),
    PORT: String(port),
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    JOB_CONCURRENCY: '0',
  })
  children.add(child)
  let output = ''
  child.stdout.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + 60_000
  while (!output.includes('is running on')) {
    if (child.exitCode !== null) throw new Failed(`the server on ${dir} exited at start:\n${output}`)
    if (Date.now() > deadline) throw new Failed(`the server on ${dir} did not start within 60 s:\n${output}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
      children.delete(child)
    },
  }
}

/** An answer: the envelope's fields when it is JSON, else its bytes; `T` is what the caller reads of the data. */
async function api<T = unknown>(server: Server, path: string, o: { token?: string; body?: unknown; form?: FormData } = {}): Promise<{ status: number; code?: number; msg?: string; data?: T; bytes?: Buffer }> {
  const headers: Record<string, string> = {}
  if (o.token) headers.authorization = o.token
  if (o.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${server.base}/api${path}`, {
    method: o.body !== undefined || o.form ? 'POST' : 'GET',
    headers,
    body: o.form ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined),
  })
  const type = res.headers.get('content-type') ?? ''
  if (!type.includes('json')) return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) }
  const json = (await res.json()) as Envelope<T>
  return { status: res.status, ...json }
}

async function login(server: Server): Promise<string> {
  const res = await api<{ token: string }>(server, '/login', { body: { username: 'admin', password: ADMIN_PASSWORD } })
  check(res.code === 200, `login failed: ${res.msg}`)
  return res.data!.token
}

async function dictTypes(server: Server, token: string, prefix: string): Promise<Set<string>> {
  const found = new Set<string>()
  for (let page = 1; ; page++) {
    const res = await api<Paged<{ dictType: string }>>(server, '/system/dict/list', { token, body: { dictType: prefix, pageNum: page, pageSize: 500 } })
    check(res.code === 200, `dictionary list failed: ${res.msg}`)
    for (const r of res.data!.rows) found.add(r.dictType)
    if (found.size >= res.data!.total || res.data!.rows.length === 0) return found
  }
}

async function sqliteRoundTrip(): Promise<void> {
  log('SQLite: start a server on a new data folder')
  const live = join(work, 'live')
  const server = await startServer(live)
  const token = await login(server)
  const form = new FormData()
  form.append('file', new Blob([PNG]), 'photo.png')
  const upload = await api<{ fileName: string }>(server, '/common/upload', { token, form })
  check(upload.code === 200, `upload failed: ${upload.msg}`)
  const fileName = upload.data!.fileName

  // Rows written one after another through the API while the backup runs: each is acknowledged
  // before the backup began (must be in it), begun after it ended (must not be), or in between.
  let stop = false
  let written = 0
  const ackedAt: { type: string; started: number; acked: number }[] = []
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      const type = `rt_${i}`
      const started = Date.now()
      const res = await api(server, '/system/dict', { token, body: { dictName: `Round trip ${i}`, dictType: type } })
      check(res.code === 200, `adding ${type} failed: ${res.msg}`)
      ackedAt.push({ type, started, acked: Date.now() })
      written++
    }
  })()
  while (written < 20) await new Promise((r) => setTimeout(r, 10))
  const backupDir = join(work, 'backup')
  log(`SQLite: npm run backup -- --to ${backupDir}, while the server takes writes (${written} rows so far)`)
  const backupStarted = Date.now()
  const backup = await runScript(['scripts/backup.ts', '--to', backupDir], dataEnv(live))
  const backupEnded = Date.now()
  const target = written + 20
  while (written < target) await new Promise((r) => setTimeout(r, 10))
  stop = true
  await writer
  check(backup.code === 0, `backup failed (exit ${backup.code}):\n${backup.output}`)
  log(backup.output)
  const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8')) as { files: { path: string }[] }
  check(
    manifest.files.some((f) => f.path === fileName),
    'the uploaded file is not in the manifest',
  )

  log('SQLite: a tampered database, a tampered manifest and an occupied data folder are refused')
  const tamperedDb = join(work, 'tampered-db')
  cpSync(backupDir, tamperedDb, { recursive: true })
  const bytes = readFileSync(join(tamperedDb, 'velo.db'))
  bytes[4096] = bytes[4096]! ^ 0xff
  writeFileSync(join(tamperedDb, 'velo.db'), bytes)
  const never = join(work, 'never')
  const refusedDb = await runScript(['scripts/restore.ts', tamperedDb, '--data', never])
  check(refusedDb.code === 2 && refusedDb.output.includes('velo.db') && !existsSync(never), `a tampered database was not refused:\n${refusedDb.output}`)
  const tamperedManifest = join(work, 'tampered-manifest')
  cpSync(backupDir, tamperedManifest, { recursive: true })
  writeFileSync(join(tamperedManifest, 'manifest.json'), readFileSync(join(tamperedManifest, 'manifest.json'), 'utf8').replace('"serverVersion"', '"serverVersion" '))
  const refusedManifest = await runScript(['scripts/restore.ts', tamperedManifest, '--data', never])
  check(refusedManifest.code === 2 && refusedManifest.output.includes('manifest.sha256') && !existsSync(never), `a tampered manifest was not refused:\n${refusedManifest.output}`)
  const liveBefore = readdirSync(live).sort().join(',')
  const refusedLive = await runScript(['scripts/restore.ts', backupDir, '--data', live])
  check(refusedLive.code === 2 && readdirSync(live).sort().join(',') === liveBefore, `restoring over the running server's folder was not refused:\n${refusedLive.output}`)
  await server.stop()

  const restoredDir = join(work, 'restored')
  log(`SQLite: npm run restore -- ${backupDir} --data ${restoredDir}`)
  const restore = await runScript(['scripts/restore.ts', backupDir, '--data', restoredDir])
  check(restore.code === 0, `restore failed (exit ${restore.code}):\n${restore.output}`)
  log(restore.output)
  check(restore.output.includes(`DATABASE_URL=sqlite:${join(restoredDir, 'velo.db')}`), 'restore did not print the DATABASE_URL to start on')

  log('SQLite: a second server on the restored folder serves the rows and the file')
  const second = await startServer(restoredDir)
  try {
    const token2 = await login(second)
    const present = await dictTypes(second, token2, 'rt_')
    const mustHave = ackedAt.filter((r) => r.acked < backupStarted)
    const mustNot = ackedAt.filter((r) => r.started > backupEnded)
    for (const r of mustHave) check(present.has(r.type), `${r.type}, written before the backup began, is missing from the restore`)
    for (const r of mustNot) check(!present.has(r.type), `${r.type}, written after the backup ended, is in the restore`)
    // The rows are a prefix of the writes: each was written after the one before had committed.
    const inOrder = ackedAt.map((r) => present.has(r.type))
    check(inOrder.indexOf(false) === -1 || inOrder.lastIndexOf(true) < inOrder.indexOf(false), 'the restored rows are not a prefix of the writes')
    const file = await api(second, `/common/download?fileName=${encodeURIComponent(fileName)}`, { token: token2 })
    check(file.status === 200 && Buffer.isBuffer(file.bytes) && file.bytes.equals(PNG), 'the stored file did not come back intact')
    log(`SQLite: ${present.size} of ${ackedAt.length} rows in the restore (${mustHave.length} written before the backup, ${mustNot.length} after it); file intact`)
  } finally {
    await second.stop()
  }
}

function pgTools(): void {
  for (const tool of ['pg_dump', 'pg_restore']) {
    const r = spawnSync(tool, ['--version'], { encoding: 'utf8' })
    check(r.status === 0, `${tool} is not installed on this machine (Debian: apt-get install postgresql-client)`)
    log(r.stdout.trim())
  }
}

async function postgresRoundTrip(base: string): Promise<void> {
  pgTools()
  const suffix = randomBytes(5).toString('hex')
  const names = [`velo_rt_${suffix}_src`, `velo_rt_${suffix}_dst`]
  const urlOf = (name: string) => {
    const u = new URL(base)
    u.pathname = `/${name}`
    return u.toString()
  }
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    for (const name of names) await admin.query(`create database ${name}`)
    const [src, dst] = names.map(urlOf) as [string, string]
    log(`PostgreSQL: migrate and seed ${redactUrl(src)} through the app, add rows`)
    const env = { STORAGE_DIR: join(work, 'pg-files'), MAIL_DIR: join(work, 'pg-mail'), MQTT_PORT: '0', ADMIN_PASSWORD, CAPTCHA_ENABLED: 'false', LOG_LEVEL: 'silent', JOB_CONCURRENCY: '0' }
    const app = await buildApp(loadConfig({ ...env, DATABASE_URL: src }), { logger: false })
    try {
      await app.ready()
      const token = (await app.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: ADMIN_PASSWORD } })).json().data.token as string
      for (let i = 0; i < 200; i++) {
        const res = await app.inject({ method: 'POST', url: '/api/system/dict', headers: { authorization: token }, payload: { dictName: `Round trip ${i}`, dictType: `rt_${i}` } })
        check(res.json().code === 200, `adding rt_${i} failed: ${res.json().msg}`)
      }
    } finally {
      await app.close()
    }
    const dump = join(work, 'velo.dump')
    log(`PostgreSQL: pg_dump --format=custom --file=${dump}`)
    const dumped = spawnSync('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${src}`], { encoding: 'utf8' })
    check(dumped.status === 0, `pg_dump failed: ${dumped.stderr}`)
    log(`PostgreSQL: pg_restore --no-owner into ${redactUrl(dst)}`)
    const restored = spawnSync('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${dst}`, dump], { encoding: 'utf8' })
    check(restored.status === 0, `pg_restore failed: ${restored.stderr}`)

    const counts = async (url: string) => {
      const c = new pg.Client({ connectionString: url })
      await c.connect()
      try {
        const q = async (sql: string) => String((await c.query(sql)).rows.map((r) => Object.values(r).join('|')).join(','))
        return {
          rows: await q("select count(*) from sys_dict_type where dict_type like 'rt\\_%'"),
          users: await q('select count(*) from sys_user'),
          migrations: await q('select name from kysely_migration order by name'),
        }
      } finally {
        await c.end()
      }
    }
    const [a, b] = [await counts(src), await counts(dst)]
    check(b.rows === '200', `the restored database has ${b.rows} of the 200 rows`)
    check(JSON.stringify(a) === JSON.stringify(b), 'the restored database differs from the dumped one')
    // The restored database is one the app starts on: its migrations are all there, nothing to run.
    const again = await buildApp(loadConfig({ ...env, DATABASE_URL: dst }), { logger: false })
    try {
      await again.ready()
      const res = await again.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: ADMIN_PASSWORD } })
      check(res.json().code === 200, 'cannot sign in on the restored database')
    } finally {
      await again.close()
    }
    log('PostgreSQL: 200 rows, users and migrations restored; the app starts on the copy')
  } finally {
    for (const name of names) await admin.query(`drop database if exists ${name} with (force)`).catch(() => {})
    await admin.end()
  }
}

let failed = false
try {
  await sqliteRoundTrip()
  const pgUrl = process.env.CI_PG_URL || process.env.TEST_DATABASE_URL
  if (pgUrl) await postgresRoundTrip(pgUrl)
  else log('PostgreSQL: skipped (set CI_PG_URL or TEST_DATABASE_URL)')
  log('passed')
} catch (e) {
  failed = true
  console.error(`[backup-roundtrip] FAILED: ${e instanceof Failed ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
} finally {
  for (const child of children) child.kill('SIGKILL')
  rmSync(work, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
