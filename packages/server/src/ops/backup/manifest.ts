import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

export const MANIFEST_FORMAT = 'velo-backup'
export const MANIFEST_VERSION = 1
export const MANIFEST_FILE = 'manifest.json'
export const MANIFEST_SUM_FILE = 'manifest.sha256'
/** In a backup and in a restored data folder alike: the server's default layout (DATA_DIR/velo.db, DATA_DIR/files). */
export const DATABASE_FILE = 'velo.db'
/** A PostgreSQL backup's database: pg_dump's custom format, restored with pg_restore. */
export const PG_DUMP_FILE = 'velo.dump'
export const FILES_FOLDER = 'files'

export interface FileEntry {
  /** Relative to STORAGE_DIR (and to the backup's files/), '/'-separated. */
  path: string
  size: number
  sha256: string
}

export interface BackupManifest {
  format: typeof MANIFEST_FORMAT
  formatVersion: number
  createdAt: string
  serverVersion: string
  /** SQLite: a copy of the database file; PostgreSQL (scheduled backups): pg_dump --format=custom. */
  database:
    | {
        dialect: 'sqlite'
        file: typeof DATABASE_FILE
        size: number
        sha256: string
      }
    | {
        dialect: 'postgres'
        file: typeof PG_DUMP_FILE
        size: number
        sha256: string
      }
  /** The migrations the copied database had run: the product's, then generated modules' (db/migrate.ts). */
  migrations: { product: string[]; generated: string[] }
  files: FileEntry[]
}

export async function sha256File(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    size += chunk.length
    hash.update(chunk)
  }
  return { size, sha256: hash.digest('hex') }
}

export const sha256Text = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')

/** manifest.sha256 as `sha256sum` writes it, so `sha256sum -c manifest.sha256` checks it by hand too. */
export const manifestSumLine = (manifestText: string) => `${sha256Text(manifestText)}  ${MANIFEST_FILE}\n`

/** Every regular file under `root`, relative and '/'-separated, sorted; links and sockets are not stored files. */
export async function listFiles(root: string, skip?: (full: string) => boolean): Promise<string[]> {
  const out: string[] = []
  const walk = async (dir: string, prefix: string) => {
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (e) {
      // A folder removed meanwhile (a job's result swept) had nothing to keep.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
      throw e
    }
    for (const entry of entries) {
      const full = join(dir, entry.name)
      if (skip?.(full)) continue
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name
      if (entry.isDirectory()) await walk(full, rel)
      else if (entry.isFile()) out.push(rel)
    }
  }
  await walk(root, '')
  return out.sort()
}
