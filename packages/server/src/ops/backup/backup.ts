import { spawn } from 'node:child_process'
import { copyFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { existsSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import SQLite from 'better-sqlite3'
import type { DatabaseTarget } from '../../config'
import { GENERATED_MIGRATION_TABLE } from '../../db/migrate'
import { BackupRefused } from './messages'
import {
  type BackupManifest,
  DATABASE_FILE,
  type FileEntry,
  FILES_FOLDER,
  listFiles,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  MANIFEST_SUM_FILE,
  MANIFEST_VERSION,
  manifestSumLine,
  PG_DUMP_FILE,
  sha256File,
} from './manifest'

export interface BackupOptions {
  database: DatabaseTarget
  storageDir: string
  /** The backup's own folder: created, and must not exist yet or be empty. */
  target: string
  serverVersion: string
  now?: Date
}

export interface BackupResult {
  dir: string
  manifest: BackupManifest
}

/** `velo-20261125T031800Z`: sorts by time, and is a valid name on every file system. */
export function backupFolderName(now = new Date()): string {
  return `velo-${now.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '')}`
}

/** A fresh folder under `parent` named for the time; a second backup in the same second gets -2, -3… */
export function defaultBackupTarget(parent: string, now = new Date()): string {
  const base = join(resolve(parent), backupFolderName(now))
  let candidate = base
  for (let n = 2; existsSync(candidate) || existsSync(`${candidate}.partial`); n++) candidate = `${base}-${n}`
  return candidate
}

const inside = (child: string, parent: string) => {
  const rel = relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The redacted form of a PostgreSQL URL: the password never reaches a terminal or a log. */
export const redactUrl = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:…@')

/**
 * Copies the SQLite database through SQLite's online backup API, then the stored files, into a new
 * folder with a manifest of checksums (writeBackupFolder). Safe while a server runs and writes: see
 * snapshotSqlite.
 */
export async function createBackup(o: BackupOptions): Promise<BackupResult> {
  const now = o.now ?? new Date()
  if (o.database.dialect !== 'sqlite') {
    const stamp = backupFolderName(now).slice(5)
    throw new BackupRefused('pgRefused', { url: redactUrl(o.database.url), storage: o.storageDir, stamp })
  }
  if (o.database.file === ':memory:') throw new BackupRefused('memoryDatabase')
  const source = o.database.file
  if (!existsSync(source)) throw new BackupRefused('noDatabase', { file: source })
  return writeBackupFolder(o, now, async (work) => {
    const dbFile = join(work, DATABASE_FILE)
    const migrations = await snapshotSqlite(source, dbFile)
    return { database: { dialect: 'sqlite', file: DATABASE_FILE, ...(await sha256File(dbFile)) }, migrations }
  })
}

/**
 * Builds a backup folder: the database copy `copyDatabase` writes into the work folder, then the
 * stored files, then the manifest and its checksum. The folder is built as `<target>.partial` and
 * renamed once complete, so a backup cut short never looks like one. The database comes first, then
 * the files: a stored file is written before the row that names it commits, so every file the copied
 * database names is on disk by the time the files are copied (files added later are copied too,
 * unnamed; the file sweep removes them after a restore).
 */
async function writeBackupFolder(
  o: Pick<BackupOptions, 'storageDir' | 'target' | 'serverVersion'>,
  now: Date,
  copyDatabase: (work: string) => Promise<Pick<BackupManifest, 'database' | 'migrations'>>,
): Promise<BackupResult> {
  const target = resolve(o.target)
  const storage = resolve(o.storageDir)
  if (inside(target, storage)) throw new BackupRefused('targetInStorage', { dir: target, storage })
  if (existsSync(target) && (!statSync(target).isDirectory() || (await readdir(target)).length > 0)) throw new BackupRefused('targetNotEmpty', { dir: target })

  const work = `${target}.partial`
  await rm(work, { recursive: true, force: true })
  await mkdir(dirname(work), { recursive: true })
  // Owner only (a umask can only narrow it): a backup holds every password hash and device secret,
  // and nothing inside a folder others cannot enter is theirs to read, however its files were made.
  // The folder is always new here, so the mode it is made with is its mode.
  await mkdir(work, { mode: 0o700 })
  await mkdir(join(work, FILES_FOLDER))
  try {
    const { database, migrations } = await copyDatabase(work)
    const files = await copyStoredFiles(storage, join(work, FILES_FOLDER), (full) => inside(full, target) || inside(full, work))
    const manifest: BackupManifest = {
      format: MANIFEST_FORMAT,
      formatVersion: MANIFEST_VERSION,
      createdAt: now.toISOString(),
      serverVersion: o.serverVersion,
      database,
      migrations,
      files,
    }
    const text = `${JSON.stringify(manifest, null, 2)}\n`
    await writeFile(join(work, MANIFEST_FILE), text)
    await writeFile(join(work, MANIFEST_SUM_FILE), manifestSumLine(text))
    await mkdir(dirname(target), { recursive: true })
    // An empty target folder (made beforehand by whoever chose it) is replaced by the finished one.
    if (existsSync(target)) await rm(target, { recursive: true })
    await rename(work, target)
    return { dir: target, manifest }
  } catch (e) {
    await rm(work, { recursive: true, force: true })
    throw e
  }
}

export interface PostgresBackupOptions extends Omit<BackupOptions, 'database'> {
  database: { dialect: 'postgres'; url: string }
  /** The pg_dump to run (PATH's by default). */
  pgDump?: string
  signal?: AbortSignal
}

/**
 * A PostgreSQL backup in the same layout as a SQLite one: pg_dump's custom format (velo.dump, for
 * pg_restore) instead of velo.db, the stored files, and the manifest. pg_dump takes one consistent
 * snapshot; files are copied after it, as for SQLite. The URL's password goes to pg_dump in PGPASSWORD,
 * never on its command line (which `ps` shows every user) or in a message.
 */
export async function createPostgresBackup(o: PostgresBackupOptions): Promise<BackupResult> {
  return writeBackupFolder(o, o.now ?? new Date(), async (work) => {
    const dumpFile = join(work, PG_DUMP_FILE)
    await runPgDump(o.pgDump ?? 'pg_dump', o.database.url, dumpFile, o.signal)
    // The dump holds both migration tables; pg_restore --list shows them.
    return { database: { dialect: 'postgres', file: PG_DUMP_FILE, ...(await sha256File(dumpFile)) }, migrations: { product: [], generated: [] } }
  })
}

/** Runs pg_dump --format=custom into `file`; its stderr (never the password) is the failure's detail. */
function runPgDump(command: string, databaseUrl: string, file: string, signal?: AbortSignal): Promise<void> {
  const url = new URL(databaseUrl)
  const password = decodeURIComponent(url.password)
  url.password = ''
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, ['--format=custom', '--no-password', `--file=${file}`, `--dbname=${url.toString()}`], {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      stdio: ['ignore', 'ignore', 'pipe'],
      signal,
    })
    let stderr = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk
    })
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') reject(new BackupRefused('pgDumpMissing', { command }))
      else reject(err)
    })
    child.on('close', (code) => {
      if (code === 0) resolvePromise()
      else if (code !== null) reject(new BackupRefused('pgDumpFailed', { code, detail: redactUrl(stderr.trim()).slice(0, 500) }))
    })
  })
}

/**
 * SQLite's online backup from a connection of our own. Copied step by step (better-sqlite3's
 * default, 100 pages a step) a write by the server between two steps restarts the copy, and a busy
 * server could keep restarting it; so after the first step, which only counts the pages, all the
 * rest goes in one step: one read transaction, which in WAL mode never blocks the server's writes,
 * and sees only committed transactions. An import in progress is in the copy entirely or not at all.
 * The copy is left as one plain file (no WAL) that has passed SQLite's quick check; answers the
 * migrations it had run.
 */
export async function snapshotSqlite(source: string, dest: string): Promise<BackupManifest['migrations']> {
  const from = new SQLite(source, { readonly: true, fileMustExist: true })
  try {
    from.pragma('busy_timeout = 5000')
    await from.backup(dest, { progress: () => 0x7fffffff })
  } finally {
    from.close()
  }
  const copy = new SQLite(dest, { fileMustExist: true })
  try {
    // The copy carries the source's WAL mark; one plain file is what a backup should be (the server
    // turns WAL on again when it opens the restored database).
    copy.pragma('journal_mode = DELETE')
    const check = copy.pragma('quick_check', { simple: true })
    if (check !== 'ok') throw new BackupRefused('copyDamaged', { detail: String(check) })
    const names = (table: string): string[] => {
      const exists = copy.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(table)
      return exists ? (copy.prepare(`select name from "${table}" order by name`).all() as { name: string }[]).map((r) => r.name) : []
    }
    return { product: names('kysely_migration'), generated: names(GENERATED_MIGRATION_TABLE) }
  } finally {
    copy.close()
  }
}

/** Copies every stored file (but what `skip` passes over) into `dest`, with the manifest's entries. */
export async function copyStoredFiles(storage: string, dest: string, skip: (full: string) => boolean): Promise<FileEntry[]> {
  if (!existsSync(storage)) return []
  const entries: FileEntry[] = []
  for (const path of await listFiles(storage, skip)) {
    const to = join(dest, path)
    await mkdir(dirname(to), { recursive: true })
    try {
      await copyFile(join(storage, path), to)
    } catch (e) {
      // Removed since it was listed (a download fetched and deleted, a job's result expired): gone from the data too.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw e
    }
    // The copy's checksum, not the source's: a file still being written is recorded as it was copied.
    entries.push({ path, ...(await sha256File(to)) })
  }
  return entries
}
