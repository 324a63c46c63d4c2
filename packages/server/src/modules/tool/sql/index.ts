import { SQL_CONFIRM_WRITE_CODE, SQL_PERMISSIONS, sqlRunSchema, type SqlHistoryEntry, type SqlRunResult, type SqlSchemaAnswer } from '@velo/shared'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { sql as kysql } from 'kysely'
import { z } from 'zod'
import { BusinessType } from '../../../platform/audit/operation-log'
import { attachment, loadExcelJs, XLSX_TYPE } from '../../../platform/crud/excel'
import { xmlSafe } from '../../../platform/crud/xlsx-stream'
import { AppError, badRequest, forbidden } from '../../../platform/errors'
import { hasPermission } from '../../../platform/rbac/auth-context'
import { caller } from '../../../platform/rbac/guard'
import { envelope, fileAnswer } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { sqlRunLimiter } from './limiter'
import { runPostgres } from './postgres-runner'
import { sqlSecrets } from './secrets'
import { runSqlite } from './sqlite-runner'
import { classify, firstKeyword, WritesError } from './statement'

const tags = ['Tool system']
const MODULE = 'SQL execution'
const HISTORY_SHOWN = 50
const HISTORY_KEPT = 200

const value = z.union([z.string(), z.number(), z.boolean(), z.null()])
const resultSchema = z.object({
  kind: z.enum(['rows', 'write']),
  columns: z.array(z.object({ name: z.string(), type: z.string().nullable() })),
  rows: z.array(z.array(value)),
  truncated: z.enum(['rows', 'size']).nullable(),
  rowsAffected: z.number().nullable(),
  durationMs: z.number(),
})
const historySchema = z.array(
  z.object({
    historyId: z.number(),
    sql: z.string(),
    mode: z.enum(['read', 'write']),
    outcome: z.enum(['ok', 'error', 'refused', 'timeout']),
    rowCount: z.number().nullable(),
    durationMs: z.number(),
    createTime: z.string(),
  }),
)
const schemaAnswerSchema = z.object({ dialect: z.enum(['sqlite', 'postgres']), tables: z.record(z.string(), z.array(z.string())) })

type Outcome = SqlHistoryEntry['outcome']

/**
 * Tool system › SQL execution (docs/tools.md): POST /tool/sql/run and /tool/sql/export, GET
 * /tool/sql/history and /tool/sql/schema. Safe by construction: a keyword check first, then the
 * database decides (SQLite: a read-only connection in a child process, the bytecode walked for
 * secrets; PostgreSQL: login roles without grants on secrets, a read-only transaction).
 */
export function registerSql(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const dialect = services.dialect
  // Writes ask for a second proof (in execute): whoever may run them needs a second factor.
  services.identity.stepUp.sensitiveRights.add(SQL_PERMISSIONS.write)

  async function caps() {
    const cv = services.configValues
    const timeoutSeconds = Math.min(300, await cv.int('tool.sql.timeoutSeconds', 10))
    const maxRows = Math.min(100_000, await cv.int('tool.sql.maxRows', 10_000))
    const maxMb = Math.min(64, await cv.int('tool.sql.maxResultMb', 8))
    const perUser = Math.min(64, await cv.int('tool.sql.maxConcurrentPerUser', 2))
    const total = Math.min(256, await cv.int('tool.sql.maxConcurrent', 4))
    return { timeoutSeconds, maxRows, maxBytes: maxMb * 1024 * 1024, runs: { perUser, total } }
  }

  async function remember(userId: number, text: string, mode: 'read' | 'write', outcome: Outcome, rowCount: number | null, durationMs: number) {
    await services.db
      .insertInto('toolSqlHistory')
      .values({ userId, sqlText: text, mode, outcome, rowCount, durationMs, createTime: new Date().toISOString() })
      .execute()
    const keep = await services.db
      .selectFrom('toolSqlHistory')
      .select('historyId')
      .where('userId', '=', userId)
      .orderBy('historyId', 'desc')
      .offset(HISTORY_KEPT)
      .limit(1)
      .executeTakeFirst()
    if (keep) await services.db.deleteFrom('toolSqlHistory').where('userId', '=', userId).where('historyId', '<=', keep.historyId).execute()
  }

  /**
   * Runs one statement for the caller; every run, however it ends, goes into the history. It holds
   * one of the caller's and the server's run slots (limiter.ts) until it ends: done, failed, timed
   * out, or stopped because the client went away.
   */
  async function execute(req: FastifyRequest, reply: FastifyReply, text: string, confirmed: boolean, exporting: boolean): Promise<SqlRunResult> {
    const auth = caller(req)
    const mayWrite = hasPermission(auth, SQL_PERMISSIONS.write)
    const started = Date.now()
    let mode: 'read' | 'write' = 'read'
    const finish = async (outcome: Outcome, rowCount: number | null) => {
      await remember(auth.userId, text, mode, outcome, rowCount, Date.now() - started)
    }
    const writes = (): never => {
      if (exporting) throw badRequest('sql.exportRead')
      if (!mayWrite) throw forbidden('sql.writeDenied')
      throw new AppError(409, 'sql.confirmWrite', {}, SQL_CONFIRM_WRITE_CODE, { confirm: true })
    }
    try {
      const kind = classify(text, dialect)
      if (kind === 'write' && !(confirmed && !exporting)) writes()
      if (confirmed && !mayWrite) throw forbidden('sql.writeDenied')
      mode = kind === 'write' || (confirmed && !exporting) ? 'write' : 'read'
      // A write to production is a dangerous action: a second proof first (the console asks and runs it again).
      if (mode === 'write') await services.identity.stepUp.assert(auth)
      const limits = await caps()
      if (services.config.database.dialect === 'sqlite') {
        const file = services.config.database.file
        if (file === ':memory:' || file === '') throw badRequest('sql.memory')
      }
      const release = sqlRunLimiter(services).acquire(auth.userId, limits.runs)
      // A client that goes away (a closed tab, a cancelled request) stops its statement: the child is
      // killed, the query cancelled, and the slot freed for the next run.
      const cancel = new AbortController()
      const gone = () => {
        if (!reply.raw.writableFinished) cancel.abort()
      }
      reply.raw.on('close', gone)
      let result: Omit<SqlRunResult, 'durationMs'>
      try {
        if (services.config.database.dialect === 'sqlite') {
          const answer = await runSqlite(
            { file: services.config.database.file, sql: text, mode, maxRows: limits.maxRows, maxBytes: limits.maxBytes, timeoutMs: limits.timeoutSeconds * 1000 },
            cancel.signal,
          )
          if ('cancelled' in answer) throw badRequest('sql.cancelled')
          if ('timeout' in answer) throw badRequest('sql.timeout', { seconds: String(limits.timeoutSeconds) })
          if ('writes' in answer) writes()
          if ('error' in answer) throw badRequest(answer.error.key as 'sql.error', answer.error.params)
          result = (answer as { result: Omit<SqlRunResult, 'durationMs'> }).result
        } else {
          try {
            result = await runPostgres(
              services.config,
              services.config.database.url,
              {
                sql: text,
                mode,
                explain: firstKeyword(text, dialect) === 'EXPLAIN',
                maxRows: limits.maxRows,
                maxBytes: limits.maxBytes,
                timeoutMs: limits.timeoutSeconds * 1000,
              },
              cancel.signal,
            )
          } catch (err) {
            if (err instanceof WritesError) writes()
            throw err
          }
        }
      } finally {
        reply.raw.off('close', gone)
        release()
      }
      await finish('ok', result.kind === 'write' ? result.rowsAffected : result.rows.length)
      return { ...result, durationMs: Date.now() - started }
    } catch (err) {
      const key = err instanceof AppError ? err.messageKey : undefined
      const outcome: Outcome = key === 'sql.timeout' ? 'timeout' : key === 'sql.error' || key === 'sql.cancelled' || !(err instanceof AppError) ? 'error' : 'refused'
      await finish(outcome, null).catch((e) => req.log.error({ err: e }, 'could not write the SQL history'))
      throw err
    }
  }

  api.post(
    '/tool/sql/run',
    {
      config: { permission: SQL_PERMISSIONS.execute, audit: { module: MODULE, businessType: BusinessType.other } },
      schema: {
        tags,
        summary:
          'Run one SQL statement: read-only unless `write` (needs tool:sql:write); capped by the tool.sql.* config keys, with 429 when the caller (tool.sql.maxConcurrentPerUser) or the server (tool.sql.maxConcurrent) already runs as many as allowed',
        body: sqlRunSchema,
        response: { 200: envelope(resultSchema) },
      },
    },
    async (req, reply) => execute(req, reply, req.body.sql, req.body.write === true, false),
  )

  api.post(
    '/tool/sql/export',
    {
      config: { permission: SQL_PERMISSIONS.export, audit: { module: MODULE, businessType: BusinessType.export } },
      schema: {
        tags,
        summary: 'Run one reading statement and answer its rows as .xlsx',
        body: sqlRunSchema,
        response: { 200: fileAnswer(XLSX_TYPE, 'The rows as a workbook') },
      },
    },
    async (req, reply) => {
      const result = await execute(req, reply, req.body.sql, false, true)
      const wb = new (await loadExcelJs()).Workbook()
      const sheet = wb.addWorksheet('SQL')
      sheet.columns = result.columns.map((c) => ({ header: xmlSafe(c.name), width: Math.max(12, Math.min(60, c.name.length + 4)) }))
      for (const row of result.rows) sheet.addRow(row.map((v) => (typeof v === 'string' ? xmlSafe(v) : v)))
      const bytes = Buffer.from(await wb.xlsx.writeBuffer())
      const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')
      return reply.type(XLSX_TYPE).header('Content-Disposition', attachment(`sql_${stamp}.xlsx`)).send(bytes)
    },
  )

  api.get(
    '/tool/sql/history',
    {
      config: { permission: SQL_PERMISSIONS.execute, audit: false },
      schema: { tags, summary: "The caller's last statements, newest first", response: { 200: envelope(historySchema) } },
    },
    async (req) => {
      const auth = caller(req)
      const rows = await services.db
        .selectFrom('toolSqlHistory')
        .selectAll()
        .where('userId', '=', auth.userId)
        .orderBy('historyId', 'desc')
        .limit(HISTORY_SHOWN)
        .execute()
      return rows.map(
        (r): SqlHistoryEntry => ({
          historyId: Number(r.historyId),
          sql: r.sqlText,
          mode: r.mode as SqlHistoryEntry['mode'],
          outcome: r.outcome as Outcome,
          rowCount: r.rowCount === null ? null : Number(r.rowCount),
          durationMs: Number(r.durationMs),
          createTime: new Date(r.createTime).toISOString(),
        }),
      )
    },
  )

  api.get(
    '/tool/sql/schema',
    {
      config: { permission: SQL_PERMISSIONS.execute, audit: false },
      schema: { tags, summary: 'The tables and columns a statement may read, for completion', response: { 200: envelope(schemaAnswerSchema) } },
    },
    async (): Promise<SqlSchemaAnswer> => {
      const secrets = sqlSecrets()
      const columns =
        dialect === 'sqlite'
          ? await kysql<{ t: string; c: string }>`select m.name as t, p.name as c from sqlite_schema m join pragma_table_info(m.name) p
              where m.type in ('table', 'view') and substr(m.name, 1, 7) <> 'sqlite_' order by m.name, p.cid`.execute(services.db)
          : await kysql<{ t: string; c: string }>`select table_name as t, column_name as c from information_schema.columns
              where table_schema = current_schema() order by table_name, ordinal_position`.execute(services.db)
      const tables: Record<string, string[]> = {}
      for (const { t, c } of columns.rows) {
        if (secrets.tables.has(t) || secrets.columns.get(t)?.has(c)) continue
        ;(tables[t] ??= []).push(c)
      }
      return { dialect, tables }
    },
  )
}
