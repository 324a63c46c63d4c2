import { existsSync, statSync } from 'node:fs'
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { BackupRefused } from './messages'
import {
  type BackupManifest,
  DATABASE_FILE,
  FILES_FOLDER,
  listFiles,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  MANIFEST_SUM_FILE,
  MANIFEST_VERSION,
  PG_DUMP_FILE,
  sha256File,
  sha256Text,
} from './manifest'

const inside = (child: string, parent: string) => {
  const rel = relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** A manifest's path, refused when it could name anything outside the backup's files/ folder. */
function safePath(path: unknown): string {
  if (typeof path !== 'string' || !path || path.includes('\0') || path.includes('\\') || isAbsolute(path) || path.split('/').some((p) => p === '..' || p === '.' || p === '')) {
    throw new BackupRefused('unsafePath', { file: String(path) })
  }
  return path
}

/** A manifest's entry as the file may have it: checked below before it is trusted. */
interface RawEntry {
  dialect?: unknown
  file?: unknown
  path?: unknown
  size?: unknown
  sha256?: unknown
}

function parseManifest(text: string): BackupManifest {
  let m: { format?: unknown; formatVersion?: unknown; database?: RawEntry; files?: unknown } | null
  try {
    m = JSON.parse(text)
  } catch (e) {
    throw new BackupRefused('manifestInvalid', { detail: e instanceof Error ? e.message : String(e) })
  }
  const invalid = (detail: string) => new BackupRefused('manifestInvalid', { detail })
  if (!m || typeof m !== 'object' || m.format !== MANIFEST_FORMAT) throw invalid(`format is not "${MANIFEST_FORMAT}"`)
  if (m.formatVersion !== MANIFEST_VERSION) throw new BackupRefused('formatUnsupported', { version: String(m.formatVersion), expected: MANIFEST_VERSION })
  if (!m.database || typeof m.database !== 'object') throw invalid('no database entry')
  const databaseFiles: Record<string, string> = { sqlite: DATABASE_FILE, postgres: PG_DUMP_FILE }
  const dialect = m.database.dialect
  if (!Object.hasOwn(databaseFiles, dialect as PropertyKey)) throw new BackupRefused('notSqlite', { dialect: String(dialect) })
  const sized = (e: unknown) => {
    const entry = e as RawEntry | null | undefined
    return Number.isSafeInteger(entry?.size) && (entry!.size as number) >= 0 && typeof entry?.sha256 === 'string' && /^[0-9a-f]{64}$/.test(entry.sha256)
  }
  if (m.database.file !== databaseFiles[dialect as string] || !sized(m.database)) throw invalid('database entry without its file, size or SHA-256')
  if (!Array.isArray(m.files) || !m.files.every(sized)) throw invalid('files without their size or SHA-256')
  for (const f of m.files as RawEntry[]) safePath(f.path)
  return m as BackupManifest
}

async function checkFile(full: string, shown: string, expected: { size: number; sha256: string }): Promise<void> {
  if (!existsSync(full)) throw new BackupRefused('fileMissing', { file: shown })
  const actual = await sha256File(full)
  if (actual.size !== expected.size) throw new BackupRefused('fileSize', { file: shown, actual: actual.size, expected: expected.size })
  if (actual.sha256 !== expected.sha256) throw new BackupRefused('fileChecksum', { file: shown })
}

/**
 * Checks a backup folder without writing anything: manifest.sha256 against manifest.json, then the
 * database and every stored file against the manifest, and no file in files/ the manifest does not
 * list. The first problem is thrown (BackupRefused), naming the file.
 */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  const root = resolve(dir)
  for (const file of [MANIFEST_FILE, MANIFEST_SUM_FILE]) {
    if (!existsSync(join(root, file))) throw new BackupRefused('notABackup', { dir: root, file })
  }
  const text = await readFile(join(root, MANIFEST_FILE))
  const sum = (await readFile(join(root, MANIFEST_SUM_FILE), 'utf8')).trim().split(/\s+/)[0]
  if (sum !== sha256Text(text)) throw new BackupRefused('manifestTampered')
  const manifest = parseManifest(text.toString('utf8'))
  await checkFile(join(root, manifest.database.file), manifest.database.file, manifest.database)
  const listed = new Set<string>()
  for (const f of manifest.files) {
    listed.add(f.path)
    await checkFile(join(root, FILES_FOLDER, f.path), `${FILES_FOLDER}/${f.path}`, f)
  }
  const filesRoot = join(root, FILES_FOLDER)
  if (existsSync(filesRoot)) {
    const extra = (await listFiles(filesRoot)).find((p) => !listed.has(p))
    if (extra !== undefined) throw new BackupRefused('fileExtra', { file: `${FILES_FOLDER}/${extra}` })
  }
  return manifest
}

export interface RestoreResult {
  manifest: BackupManifest
  dataDir: string
  databaseFile: string
  storageDir: string
}

/**
 * Restores a verified backup into a data folder that is new or empty: never over a database, so a
 * running server's is never overwritten. Everything is verified before anything is written; should
 * copying fail, what was written is removed.
 */
export async function restoreBackup(backupDir: string, dataDir: string): Promise<RestoreResult> {
  const root = resolve(backupDir)
  const target = resolve(dataDir)
  if (inside(target, root)) throw new BackupRefused('restoreInsideBackup', { dir: target, backup: root })
  const existed = existsSync(target)
  if (existed) {
    if (!statSync(target).isDirectory()) throw new BackupRefused('restoreTargetNotEmpty', { dir: target, entry: basename(target) })
    const entries = (await readdir(target)).sort()
    // Any entry at all: a database under another name, a -wal beside one, a files/ folder of another server.
    const first = entries.find((e) => e === DATABASE_FILE) ?? entries[0]
    if (first !== undefined) throw new BackupRefused('restoreTargetNotEmpty', { dir: target, entry: first })
  }
  const manifest = await verifyBackup(root)
  // A PostgreSQL backup (a scheduled one's pg_dump) goes back with pg_restore, into a database this does not create.
  if (manifest.database.dialect !== 'sqlite') throw new BackupRefused('notSqlite', { dialect: manifest.database.dialect })
  const databaseFile = join(target, DATABASE_FILE)
  const storageDir = join(target, FILES_FOLDER)
  try {
    await mkdir(storageDir, { recursive: true })
    await copyFile(join(root, DATABASE_FILE), databaseFile)
    for (const f of manifest.files) {
      const to = join(storageDir, f.path)
      await mkdir(dirname(to), { recursive: true })
      await copyFile(join(root, FILES_FOLDER, f.path), to)
    }
  } catch (e) {
    if (existed) {
      for (const entry of await readdir(target)) await rm(join(target, entry), { recursive: true, force: true })
    } else {
      await rm(target, { recursive: true, force: true })
    }
    throw e
  }
  return { manifest, dataDir: target, databaseFile, storageDir }
}
