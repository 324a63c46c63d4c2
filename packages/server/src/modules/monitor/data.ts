import { existsSync } from 'node:fs'
import { lstat, readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type BackupEntry,
  type DatabaseUsage,
  JOB_STATES,
  type Language,
  MAINTENANCE_SCHEDULES,
  type MaintenanceSchedule,
  RETENTION_TARGETS,
  type RetentionSetting,
  type RetentionTarget,
  type TableUsage,
} from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { sql } from 'kysely'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { ok } from '../../platform/envelope'
import { conflict } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { intervalHoursOf, jobInfo, nextScheduledRun, scheduleDef } from '../../platform/jobs'
import { jobInfoSchema } from '../../platform/jobs/schema'
import { caller } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { MANIFEST_FILE, MANIFEST_SUM_FILE, sha256Text } from '../../ops/backup/manifest'
import { RETENTION_DAYS_KEY as MESSAGE_RETENTION_KEY } from '../../gateway/message-log'
import { DEFAULT_TELEMETRY_RETENTION_DAYS, TELEMETRY_RETENTION_KEY } from '../iot/collections/recorder'
import { DEFAULT_POSITION_RETENTION_DAYS, POSITION_RETENTION_KEY } from '../iot/position-retention'
import {
  DEFAULT_ERASURE_NOTICE_DAYS,
  DEFAULT_INACTIVE_MEMBER_YEARS,
  DEFAULT_LOG_RETENTION_DAYS,
  DEFAULT_UPLOADED_LOG_RETENTION_DAYS,
  ERASURE_NOTICE_DAYS_KEY,
  INACTIVE_MEMBER_YEARS_KEY,
  inactiveLimit,
  LOGIN_LOG_RETENTION_KEY,
  OPERATION_LOG_RETENTION_KEY,
  registerRetention,
  RUN_PERMISSION,
  SCHEDULED_FOLDER,
  UPLOADED_LOG_RETENTION_KEY,
} from '../../ops/maintenance'

export const DATA_LIST_PERMISSION = 'monitor:data:list'
const tags = ['Data and backups']
/** The database figures are kept this long: a dbstat scan of a large SQLite file reads every page. */
const USAGE_CACHE_MS = 60_000
const TOP_TABLES = 20
const DAY_MS = 86_400_000
const MESSAGE_RETENTION_DEFAULT_DAYS = 7
const BACKUP_FOLDER = /^velo-\d{8}T\d{6}Z(-\d+)?$/

const tableUsageSchema = z.object({ table: z.string(), rows: z.number(), dataBytes: z.number(), indexBytes: z.number(), totalBytes: z.number() })
const databaseUsageSchema = z.object({
  dialect: z.enum(['sqlite', 'postgres']),
  sizeBytes: z.number(),
  measuredAt: z.string(),
  tables: z.array(tableUsageSchema),
  tableCount: z.number(),
})
const maintenanceRunSchema = z.object({
  jobId: z.number(),
  state: z.enum(JOB_STATES),
  createBy: z.string(),
  createTime: z.string(),
  finishTime: z.string().nullable(),
  result: z.unknown(),
  error: z.string().nullable(),
})
const scheduleSchema = z.object({
  key: z.enum(MAINTENANCE_SCHEDULES),
  kind: z.string(),
  intervalHours: z.number(),
  configKey: z.string(),
  nextRunTime: z.string().nullable(),
  lastRun: maintenanceRunSchema.nullable(),
})
const retentionSchema = z.object({
  target: z.enum(RETENTION_TARGETS),
  days: z.number(),
  years: z.number().optional(),
  configKey: z.string(),
  fromEnvironment: z.boolean(),
  notice: z.object({ days: z.number(), configKey: z.string() }).optional(),
})
const backupSchema = z.object({
  name: z.string(),
  scheduled: z.boolean(),
  createdAt: z.string(),
  dialect: z.enum(['sqlite', 'postgres']),
  sizeBytes: z.number(),
  files: z.number(),
  serverVersion: z.string(),
  manifestOk: z.boolean(),
})

const fileSize = (path: string) => stat(path).then(
  (s) => s.size,
  () => 0,
)

/** SQLite: the file and its WAL; per table its pages (dbstat) with its indexes' pages, rows counted for the largest. */
async function sqliteUsage(services: Services): Promise<Omit<DatabaseUsage, 'measuredAt'>> {
  const { db, config } = services
  const file = config.database.dialect === 'sqlite' ? config.database.file : ':memory:'
  const objects = (await sql<{ type: string; name: string; tblName: string }>`select type, name, tbl_name as "tblName" from sqlite_master where type in ('table', 'index')`.execute(db)).rows
  const pages = (await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat group by name`.execute(db)).rows
  const bytesOf = new Map(pages.map((p) => [p.name, Number(p.bytes)]))
  const tables = new Map<string, TableUsage>()
  for (const o of objects) if (o.type === 'table' && !o.name.startsWith('sqlite_')) tables.set(o.name, { table: o.name, rows: 0, dataBytes: bytesOf.get(o.name) ?? 0, indexBytes: 0, totalBytes: 0 })
  for (const o of objects) {
    const table = tables.get(o.tblName)
    if (o.type === 'index' && table) table.indexBytes += bytesOf.get(o.name) ?? 0
  }
  const largest = [...tables.values()].map((t) => ({ ...t, totalBytes: t.dataBytes + t.indexBytes })).sort((a, b) => b.totalBytes - a.totalBytes || a.table.localeCompare(b.table)).slice(0, TOP_TABLES)
  for (const t of largest) {
    // The name is one sqlite_master gave, quoted as an identifier: never text of the request.
    const counted = await sql<{ n: number }>`select count(*) as n from ${sql.id(t.table)}`.execute(db)
    t.rows = Number(counted.rows[0]?.n ?? 0)
  }
  const sizeBytes =
    file === ':memory:'
      ? Number((await sql<{ n: number }>`select page_count * page_size as n from pragma_page_count(), pragma_page_size()`.execute(db)).rows[0]?.n ?? 0)
      : (await fileSize(file)) + (await fileSize(`${file}-wal`))
  return { dialect: 'sqlite', sizeBytes, tables: largest, tableCount: tables.size }
}

/** PostgreSQL: the database's size and the current schema's tables, with TOAST in their data and rows estimated. */
async function postgresUsage(services: Services): Promise<Omit<DatabaseUsage, 'measuredAt'>> {
  const { db } = services
  const size = await sql<{ n: number }>`select pg_database_size(current_database()) as n`.execute(db)
  const rows = (
    await sql<{ table: string; rows: number; total: number; indexes: number }>`
      select c.relname as "table", c.reltuples::float8 as "rows", pg_total_relation_size(c.oid) as "total", pg_indexes_size(c.oid) as "indexes"
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and n.nspname = current_schema()`.execute(db)
  ).rows
  const tables = rows
    .map((r): TableUsage => {
      const total = Number(r.total)
      const indexBytes = Number(r.indexes)
      // reltuples is -1 for a table never vacuumed or analyzed.
      return { table: r.table, rows: Math.max(0, Math.round(Number(r.rows))), dataBytes: Math.max(0, total - indexBytes), indexBytes, totalBytes: total }
    })
    .sort((a, b) => b.totalBytes - a.totalBytes || a.table.localeCompare(b.table))
  return { dialect: 'postgres', sizeBytes: Number(size.rows[0]?.n ?? 0), tables: tables.slice(0, TOP_TABLES), tableCount: tables.length }
}

/** One backup folder's entry from its manifest; none when the folder holds no readable manifest. */
async function backupEntry(root: string, name: string): Promise<BackupEntry | undefined> {
  const dir = join(root, name)
  const manifestPath = join(dir, MANIFEST_FILE)
  const sumPath = join(dir, MANIFEST_SUM_FILE)
  // Links are not followed: a manifest that points elsewhere is no backup of this folder.
  const regular = async (p: string) => (await lstat(p).catch(() => undefined))?.isFile() ?? false
  if (!(await regular(manifestPath))) return undefined
  const text = await readFile(manifestPath).catch(() => undefined)
  if (!text) return undefined
  /** As the file may have it: each value is checked before it is used. */
  let manifest: { createdAt?: unknown; serverVersion?: unknown; database?: { dialect?: unknown; size?: unknown }; files?: unknown } | null
  try {
    manifest = JSON.parse(text.toString('utf8'))
  } catch {
    return undefined
  }
  if (!manifest || typeof manifest !== 'object') return undefined
  const sum = (await regular(sumPath)) ? (await readFile(sumPath, 'utf8').catch(() => '')).trim().split(/\s+/)[0] : ''
  const files: { size?: unknown }[] = Array.isArray(manifest.files) ? manifest.files : []
  const size = (n: unknown) => (Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : 0)
  return {
    name,
    scheduled: name.startsWith(`${SCHEDULED_FOLDER}/`),
    createdAt: typeof manifest.createdAt === 'string' ? manifest.createdAt : '',
    dialect: manifest.database?.dialect === 'postgres' ? 'postgres' : 'sqlite',
    sizeBytes: size(manifest.database?.size) + files.reduce((s: number, f) => s + size(f?.size), 0) + text.length,
    files: files.length,
    serverVersion: typeof manifest.serverVersion === 'string' ? manifest.serverVersion : '',
    manifestOk: sum === sha256Text(text),
  }
}

/** The backup folders (velo-…) at the top of BACKUP_DIR and under scheduled/, not those still being written (.partial). */
async function listBackups(backupDir: string): Promise<BackupEntry[]> {
  const folders = async (dir: string) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    // A Dirent of a symbolic link is not a directory: links out of the backup folder are not followed.
    return entries.filter((e) => e.isDirectory() && BACKUP_FOLDER.test(e.name)).map((e) => e.name)
  }
  const names = [...(await folders(backupDir)), ...(await folders(join(backupDir, SCHEDULED_FOLDER))).map((n) => `${SCHEDULED_FOLDER}/${n}`)]
  const entries = (await Promise.all(names.map((n) => backupEntry(backupDir, n)))).filter((e): e is BackupEntry => !!e)
  return entries.sort((a, b) => (a.createdAt === b.createdAt ? a.name.localeCompare(b.name) : a.createdAt < b.createdAt ? 1 : -1))
}

/**
 * Monitoring › Data and backups (shared monitor/data.ts): the database's size and largest tables, the
 * maintenance schedules with their last run, what each log keeps, and the backups on disk. Every route
 * needs monitor:data:list; Run now needs monitor:data:run, and its job checks it again when it runs.
 */
export function registerMonitorData(app: FastifyInstance, services: Services) {
  const { db, jobs, config, configValues } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  // The retention job trims the gateway's message log: this app's gateway is the one it prunes.
  registerRetention(services, 'messageLog', () => app.iot.messageLog.prune())

  let usage: { at: number; value: DatabaseUsage } | undefined
  api.get(
    '/monitor/data/database',
    {
      config: { permission: DATA_LIST_PERMISSION },
      schema: { tags, summary: 'The database size and its largest tables (measured at most once a minute)', response: { 200: envelope(databaseUsageSchema) } },
    },
    async (): Promise<DatabaseUsage> => {
      if (usage && Date.now() - usage.at < USAGE_CACHE_MS) return usage.value
      const measured = services.dialect === 'postgres' ? await postgresUsage(services) : await sqliteUsage(services)
      usage = { at: Date.now(), value: { ...measured, measuredAt: new Date().toISOString() } }
      return usage.value
    },
  )

  const scheduleOf = async (key: (typeof MAINTENANCE_SCHEDULES)[number], lang: Language): Promise<MaintenanceSchedule> => {
    const def = scheduleDef(key)!
    const intervalHours = await intervalHoursOf(services, def)
    const row = await db.selectFrom('sysJobSchedule').selectAll().where('scheduleKey', '=', key).executeTakeFirst()
    const last = await db.selectFrom('sysJob').selectAll().where('kind', '=', def.kind).orderBy('jobId', 'desc').limit(1).executeTakeFirst()
    const nextRunTime = nextScheduledRun(def, row, intervalHours)
    const info = last && jobInfo(last, lang)
    return {
      key,
      kind: def.kind,
      intervalHours,
      configKey: def.intervalKey,
      nextRunTime,
      lastRun: info
        ? { jobId: info.jobId, state: info.state, createBy: info.createBy, createTime: info.createTime, finishTime: info.finishTime, result: info.state === 'succeeded' ? info.result : null, error: info.error }
        : null,
    }
  }

  api.get(
    '/monitor/data/schedules',
    {
      config: { permission: DATA_LIST_PERMISSION },
      schema: { tags, summary: 'The maintenance schedules (backup, retention): interval, next run and last run', response: { 200: envelope(z.array(scheduleSchema)) } },
    },
    async (req): Promise<MaintenanceSchedule[]> => {
      const lang = languageOf(req)
      return Promise.all(MAINTENANCE_SCHEDULES.map((key) => scheduleOf(key, lang)))
    },
  )

  api.get(
    '/monitor/data/retention',
    { config: { permission: DATA_LIST_PERMISSION }, schema: { tags, summary: 'How long each log, history and category of riders’ personal data is kept, and where that is set', response: { 200: envelope(z.array(retentionSchema)) } } },
    async (): Promise<RetentionSetting[]> => {
      const setting = async (target: RetentionTarget, configKey: string, fallback: number): Promise<RetentionSetting> => ({ target, days: await configValues.int(configKey, fallback), configKey, fromEnvironment: false })
      const settings: Record<RetentionTarget, () => Promise<RetentionSetting>> = {
        operLog: () => setting('operLog', OPERATION_LOG_RETENTION_KEY, DEFAULT_LOG_RETENTION_DAYS),
        loginLog: () => setting('loginLog', LOGIN_LOG_RETENTION_KEY, DEFAULT_LOG_RETENTION_DAYS),
        messageLog: () => setting('messageLog', MESSAGE_RETENTION_KEY, MESSAGE_RETENTION_DEFAULT_DAYS),
        telemetry: () => setting('telemetry', TELEMETRY_RETENTION_KEY, DEFAULT_TELEMETRY_RETENTION_DAYS),
        jobs: async () => ({ target: 'jobs', days: config.jobRetentionMs / DAY_MS, configKey: 'JOB_RETENTION_DAYS', fromEnvironment: true }),
        positions: () => setting('positions', POSITION_RETENTION_KEY, DEFAULT_POSITION_RETENTION_DAYS),
        uploadedLogs: () => setting('uploadedLogs', UPLOADED_LOG_RETENTION_KEY, DEFAULT_UPLOADED_LOG_RETENTION_DAYS),
        inactiveMembers: async () => {
          const years = await configValues.int(INACTIVE_MEMBER_YEARS_KEY, DEFAULT_INACTIVE_MEMBER_YEARS)
          const now = Date.now()
          return {
            target: 'inactiveMembers',
            // Calendar years: the days they are counted back from today.
            days: Math.round((now - inactiveLimit(years, now).getTime()) / DAY_MS),
            years,
            configKey: INACTIVE_MEMBER_YEARS_KEY,
            fromEnvironment: false,
            notice: { days: await configValues.int(ERASURE_NOTICE_DAYS_KEY, DEFAULT_ERASURE_NOTICE_DAYS), configKey: ERASURE_NOTICE_DAYS_KEY },
          }
        },
      }
      return Promise.all(RETENTION_TARGETS.map((target) => settings[target]()))
    },
  )

  api.get(
    '/monitor/data/backups',
    { config: { permission: DATA_LIST_PERMISSION }, schema: { tags, summary: 'The backups in BACKUP_DIR (npm run backup’s and the scheduled ones), newest first', response: { 200: envelope(z.array(backupSchema)) } } },
    async (): Promise<BackupEntry[]> => (existsSync(config.backupDir) ? listBackups(config.backupDir) : []),
  )

  api.post(
    '/monitor/data/schedules/:key/run',
    {
      config: { permission: RUN_PERMISSION, audit: { module: 'Data and backups', businessType: BusinessType.other } },
      schema: {
        tags,
        summary: `Queue a schedule's job now, as the caller (${RUN_PERMISSION}); refused while one of its kind is queued or running`,
        params: z.object({ key: z.enum(MAINTENANCE_SCHEDULES) }),
        response: { 200: envelope(jobInfoSchema) },
      },
    },
    async (req) => {
      const lang = languageOf(req)
      const def = scheduleDef(req.params.key)!
      const active = await db.selectFrom('sysJob').selectAll().where('kind', '=', def.kind).where('state', 'in', ['queued', 'running']).orderBy('jobId').limit(1).executeTakeFirst()
      if (active) throw conflict('maintenance.alreadyActive', { title: jobInfo(active, lang).title, jobId: active.jobId })
      const row = await jobs.enqueue(def.kind, {}, caller(req))
      return ok(jobInfo(row, lang), 'job.queued')
    },
  )
}
