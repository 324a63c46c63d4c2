import { existsSync, readFileSync } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { BackupJobResult } from '@velo/shared'
import { AppError, forbidden } from '../../platform/errors'
import { t } from '../../platform/i18n'
import { defineJobKind, defineSchedule } from '../../platform/jobs'
import { hasPermission } from '../../platform/rbac/auth-context'
import { backupFolderName, BackupRefused, createBackup, createPostgresBackup } from '../backup'

/** Scheduled backups go here under BACKUP_DIR; `npm run backup`'s stay beside it, never removed by the job. */
export const SCHEDULED_FOLDER = 'scheduled'
export const BACKUP_KEEP_KEY = 'monitor.backup.keep'
export const BACKUP_INTERVAL_KEY = 'monitor.backup.intervalHours'
export const DEFAULT_BACKUP_KEEP = 7
/** Whoever presses Run now needs it when the job runs, too (it may have been revoked meanwhile). */
export const RUN_PERMISSION = 'monitor:data:run'
const BACKUP_NAME = /^velo-\d{8}T\d{6}Z(-\d+)?$/

/** The server's version for the manifest: package.json beside src/ (tsx) or dist/ (the bundle). */
function serverVersion(): string {
  for (const path of ['../../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === '@velo/server' && pkg.version) return pkg.version
    } catch {
      // Not at this level: the other layout.
    }
  }
  return '0.0.0'
}

/** A refusal of the backup code (its CLI's message) as a job error the reader gets in their language. */
function asJobError(e: BackupRefused): AppError {
  switch (e.key) {
    case 'pgDumpMissing':
      return new AppError(500, 'maintenance.backup.pgDumpMissing', e.params)
    case 'targetInStorage':
      return new AppError(500, 'maintenance.backup.inStorage')
    case 'memoryDatabase':
      return new AppError(500, 'maintenance.backup.memoryDatabase')
    default:
      return new AppError(500, 'maintenance.backup.failed', { detail: e.message })
  }
}

/**
 * The name of the next scheduled backup: its time, and after a backup of the same second a number
 * above that one's. Never a name that sorts before an existing one (defaultBackupTarget would take
 * `velo-…Z` again once the first of that second was removed), or keeping the newest would remove it.
 */
async function nextBackupName(backupDir: string, now: Date): Promise<string> {
  const base = backupFolderName(now)
  const newest = (await scheduledBackups(backupDir)).at(-1)
  if (!newest?.startsWith(base)) return base
  const n = Number(/-(\d+)$/.exec(newest)?.[1] ?? 1)
  return `${base}-${n + 1}`
}

/** The scheduled backups' folder names, oldest first (their names sort by time). */
export async function scheduledBackups(backupDir: string): Promise<string[]> {
  const dir = join(backupDir, SCHEDULED_FOLDER)
  if (!existsSync(dir)) return []
  const entries = await readdir(dir, { withFileTypes: true })
  const byTime = (name: string) => name.replace(/-(\d+)$/, (_, n: string) => `-${n.padStart(6, '0')}`)
  return entries
    .filter((e) => e.isDirectory() && BACKUP_NAME.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => (byTime(a) < byTime(b) ? -1 : 1))
}

/**
 * A backup of the database and the stored files into BACKUP_DIR/scheduled (SQLite: the online backup of
 * `npm run backup`; PostgreSQL: pg_dump), then only the newest monitor.backup.keep scheduled ones stay.
 * Not resumable: a backup cut short by a stopping server is simply taken at the next run.
 */
export const backupJob = defineJobKind({
  kind: 'ops.backup',
  title: (_params, lang) => t(lang, 'maintenance.backup.title'),
  async run(ctx): Promise<BackupJobResult> {
    if (!hasPermission(ctx.auth, RUN_PERMISSION)) throw forbidden('error.forbidden', { permission: RUN_PERMISSION })
    const { config, configValues } = ctx.services
    const keep = await configValues.int(BACKUP_KEEP_KEY, DEFAULT_BACKUP_KEEP)
    const parent = join(config.backupDir, SCHEDULED_FOLDER)
    const now = new Date()
    const target = join(parent, await nextBackupName(config.backupDir, now))
    ctx.progress(0, 2)
    let result
    try {
      const common = { storageDir: config.storageDir, target, serverVersion: serverVersion(), now }
      result =
        config.database.dialect === 'sqlite'
          ? await createBackup({ ...common, database: config.database })
          : await createPostgresBackup({ ...common, database: config.database, signal: ctx.signal })
    } catch (e) {
      if (e instanceof BackupRefused) throw asJobError(e)
      throw e
    }
    ctx.progress(1, 2)
    const names = await scheduledBackups(config.backupDir)
    const removed: string[] = []
    for (const name of names.slice(0, Math.max(0, names.length - keep))) {
      await rm(join(parent, name), { recursive: true, force: true })
      removed.push(`${SCHEDULED_FOLDER}/${name}`)
    }
    ctx.progress(2, 2)
    const { manifest } = result
    const filesSize = manifest.files.reduce((sum, f) => sum + f.size, 0)
    ctx.log.info({ dir: result.dir, removed }, 'scheduled backup written')
    return {
      name: `${SCHEDULED_FOLDER}/${basename(target)}`,
      sizeBytes: manifest.database.size + filesSize,
      files: manifest.files.length,
      removed,
    }
  },
})

defineSchedule({ key: 'backup', kind: backupJob.kind, intervalKey: BACKUP_INTERVAL_KEY, defaultHours: 24, firstRun: 'afterInterval' })
