import { sql } from 'kysely'
import { RETENTION_TARGETS, type RetentionJobResult, type RetentionNotices, type RetentionTarget } from '@velo/shared'
import { forbidden } from '../../platform/errors'
import { yieldWhenDue } from '../../lib/event-loop'
import { t } from '../../platform/i18n'
import { defineJobKind, defineSchedule } from '../../platform/jobs'
import type { JobContext } from '../../platform/jobs'
import { hasPermission } from '../../platform/rbac/auth-context'
import type { Services } from '../../platform/services'
import { RUN_PERMISSION } from './backup-job'
import { retireInactiveMembers } from './inactive-members'
import { retentionOf } from './targets'
import { trimUploadedLogs } from './uploaded-logs'

export const OPERATION_LOG_RETENTION_KEY = 'monitor.operlog.retentionDays'
export const LOGIN_LOG_RETENTION_KEY = 'monitor.logininfor.retentionDays'
export const RETENTION_INTERVAL_KEY = 'monitor.retention.intervalHours'
export const DEFAULT_LOG_RETENTION_DAYS = 365
const DAY_MS = 86_400_000
/** Rows deleted per statement: SQLite's one writer is held for a short while at a time, and requests get their turn between. */
const DELETE_CHUNK = 2000

/** Deletes a log's rows older than `days`, a chunk at a time through its time index; answers how many. */
async function trimLog(services: Services, table: 'sysOperLog' | 'sysLoginLog', days: number, signal: AbortSignal): Promise<number> {
  const cutoff = new Date(Date.now() - days * DAY_MS).toISOString()
  const { db } = services
  let removed = 0
  for (;;) {
    signal.throwIfAborted()
    const result =
      table === 'sysOperLog'
        ? await db
            .deleteFrom('sysOperLog')
            .where('operId', 'in', db.selectFrom('sysOperLog').select('operId').where('operTime', '<', cutoff).orderBy('operTime').limit(DELETE_CHUNK))
            .executeTakeFirst()
        : await db
            .deleteFrom('sysLoginLog')
            .where('infoId', 'in', db.selectFrom('sysLoginLog').select('infoId').where('loginTime', '<', cutoff).orderBy('loginTime').limit(DELETE_CHUNK))
            .executeTakeFirst()
    const n = Number(result.numDeletedRows)
    removed += n
    if (n < DELETE_CHUNK) return removed
    await yieldWhenDue()
  }
}

/** What trimmers tell besides their count (the inactive members' notices). */
interface Extra {
  notices: RetentionNotices
}

const registered = async (ctx: JobContext, target: RetentionTarget) => (await retentionOf(ctx.services, target)?.(ctx.signal)) ?? 0

const trimmers: Record<RetentionTarget, (ctx: JobContext, extra: Extra) => Promise<number>> = {
  operLog: async (ctx) => trimLog(ctx.services, 'sysOperLog', await ctx.services.configValues.int(OPERATION_LOG_RETENTION_KEY, DEFAULT_LOG_RETENTION_DAYS), ctx.signal),
  loginLog: async (ctx) => trimLog(ctx.services, 'sysLoginLog', await ctx.services.configValues.int(LOGIN_LOG_RETENTION_KEY, DEFAULT_LOG_RETENTION_DAYS), ctx.signal),
  messageLog: (ctx) => registered(ctx, 'messageLog'),
  telemetry: (ctx) => registered(ctx, 'telemetry'),
  jobs: async (ctx) => ctx.services.jobs.removeExpired(ctx.signal),
  // Riders' personal data by category (docs/privacy.md › Retention). Positions live in the IoT area's tables, which registers their step.
  positions: (ctx) => registered(ctx, 'positions'),
  uploadedLogs: (ctx) => trimUploadedLogs(ctx.services, ctx.signal),
  inactiveMembers: (ctx, extra) => retireInactiveMembers(ctx.services, ctx.signal, extra.notices),
}

/**
 * Trims what grows without end: the operation and login logs, the device message log, the telemetry
 * history and finished jobs with their files; and riders' personal data past its retention (positions
 * emptied, uploaded app logs deleted, long-inactive members told, then erased), each by its own
 * setting (GET /monitor/data/retention). Resumable: each step only trims what is old (and a notice
 * given is not given again), so running it again from the start is harmless.
 */
export const retentionJob = defineJobKind({
  kind: 'ops.retention',
  resumable: true,
  title: (_params, lang) => t(lang, 'maintenance.retention.title'),
  async run(ctx): Promise<RetentionJobResult> {
    if (!hasPermission(ctx.auth, RUN_PERMISSION)) throw forbidden('error.forbidden', { permission: RUN_PERMISSION })
    const removed = Object.fromEntries(RETENTION_TARGETS.map((target) => [target, 0])) as Record<RetentionTarget, number>
    const extra: Extra = { notices: { sent: 0, voided: 0, held: 0 } }
    ctx.progress(0, RETENTION_TARGETS.length)
    for (const [i, target] of RETENTION_TARGETS.entries()) {
      ctx.signal.throwIfAborted()
      removed[target] = await trimmers[target](ctx, extra)
      ctx.progress(i + 1, RETENTION_TARGETS.length)
    }
    // What was deleted and added since changes the planner's statistics (SQLite keeps them only when asked).
    if (ctx.services.dialect === 'sqlite') await sql`pragma optimize`.execute(ctx.services.db)
    ctx.log.info({ removed, notices: extra.notices }, 'retention done')
    return { removed, notices: extra.notices }
  },
})

defineSchedule({ key: 'retention', kind: retentionJob.kind, intervalKey: RETENTION_INTERVAL_KEY, defaultHours: 1, firstRun: 'now' })
