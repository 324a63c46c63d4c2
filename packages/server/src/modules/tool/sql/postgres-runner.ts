import { randomBytes } from 'node:crypto'
import type { SqlColumn, SqlRunResult, SqlValue } from '@velo/shared'
import type { Client, QueryConfig } from 'pg'
import type { AppConfig } from '../../../config'
import { nodePostgres } from '../../../db/database'
import { AppError, badRequest } from '../../../platform/errors'
import { sqlSecrets } from './secrets'
import { WritesError } from './statement'

/**
 * PostgreSQL: each statement runs on a client of its own, connected as a login role holding only the
 * grants it needs (`<database>_sql_read`: SELECT on what is not secret; `<database>_sql_write`: that
 * and INSERT/UPDATE/DELETE on it). Not SET ROLE on the app's connection: set_config('role', …) would
 * take the app's rights back. The server creates the roles and grants when the schema changes.
 */
interface Logins {
  read: string
  write: string
}

const ident = (name: string) => nodePostgres().Client.prototype.escapeIdentifier(name)
let provisioned: { url: string; fingerprint: string; logins: Logins } | undefined

function roleNames(appUrl: string) {
  const database = decodeURIComponent(new URL(appUrl).pathname.slice(1)).toLowerCase().replace(/[^a-z0-9_]/g, '_')
  return { read: `${database}_sql_read`, write: `${database}_sql_write` }
}

function loginUrl(appUrl: string, role: string, password: string) {
  const url = new URL(appUrl)
  url.username = encodeURIComponent(role)
  url.password = encodeURIComponent(password)
  return url.toString()
}

/** The logins, creating the roles and (re)granting when the schema's fingerprint changed. */
async function logins(config: AppConfig, appUrl: string): Promise<Logins> {
  if (config.sqlReadDatabaseUrl && config.sqlWriteDatabaseUrl) return { read: config.sqlReadDatabaseUrl, write: config.sqlWriteDatabaseUrl }
  const admin = new (nodePostgres().Client)({ connectionString: appUrl })
  await admin.connect()
  try {
    const fp = await admin.query<{ fp: string }>(
      `select md5(coalesce(string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name), '')) as fp
       from information_schema.columns where table_schema = current_schema()`,
    )
    const fingerprint = fp.rows[0]!.fp
    if (provisioned && provisioned.url === appUrl && provisioned.fingerprint === fingerprint) return provisioned.logins
    const names = roleNames(appUrl)
    const may = await admin.query<{ ok: boolean }>('select (rolsuper or rolcreaterole) as ok from pg_roles where rolname = current_user')
    if (!may.rows[0]?.ok) throw new AppError(503, 'sql.noRoles')
    await admin.query('begin')
    try {
      // Instances sharing the database provision one at a time.
      await admin.query("select pg_advisory_xact_lock(hashtext('velo:tool:sql:roles'))")
      const urls: Record<string, string> = {}
      for (const role of [names.read, names.write]) {
        const stored = await admin.query<{ password: string }>('select password from tool_sql_credential where role_name = $1', [role])
        const exists = (await admin.query('select 1 from pg_roles where rolname = $1', [role])).rowCount! > 0
        let password = stored.rows[0]?.password
        if (!password || !exists) {
          // Hex: safe inside the literal CREATE ROLE needs (it takes no parameters).
          password = randomBytes(24).toString('hex')
          // A role that exists gets a new password only: changing its other attributes (nosuperuser…)
          // needs a superuser, which the app's login need not be; it was made with them.
          await admin.query(
            exists
              ? `alter role ${ident(role)} with login password '${password}'`
              : `create role ${ident(role)} login noinherit nosuperuser nocreatedb nocreaterole noreplication password '${password}'`,
          )
          await admin.query('delete from tool_sql_credential where role_name = $1', [role])
          await admin.query('insert into tool_sql_credential (role_name, password, create_time) values ($1, $2, $3)', [role, password, new Date().toISOString()])
        }
        urls[role] = loginUrl(appUrl, role, password)
      }
      const schema = (await admin.query<{ s: string }>('select current_schema() as s')).rows[0]!.s
      const tables = await admin.query<{ table_name: string; columns: string[] }>(
        `select c.table_name, array_agg(c.column_name::text order by c.ordinal_position) as columns
         from information_schema.columns c join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
         where c.table_schema = $1 and t.table_type in ('BASE TABLE', 'VIEW') group by c.table_name`,
        [schema],
      )
      const secrets = sqlSecrets()
      // A view reads with its owner's rights: one over a table holding secrets is not granted at all.
      const usages = await admin.query<{ view_name: string; table_name: string }>(
        'select view_name, table_name from information_schema.view_table_usage where view_schema = $1',
        [schema],
      )
      const unsafeViews = new Set(usages.rows.filter((u) => secrets.tables.has(u.table_name) || secrets.columns.has(u.table_name)).map((u) => u.view_name))
      for (const role of [names.read, names.write]) {
        const r = ident(role)
        await admin.query(`revoke all on all tables in schema ${ident(schema)} from ${r}`)
        await admin.query(`revoke all on all sequences in schema ${ident(schema)} from ${r}`)
        await admin.query(`grant usage on schema ${ident(schema)} to ${r}`)
        const write = role === names.write
        for (const t of tables.rows) {
          if (secrets.tables.has(t.table_name) || unsafeViews.has(t.table_name)) continue
          const table = `${ident(schema)}.${ident(t.table_name)}`
          const secret = secrets.columns.get(t.table_name)
          if (!secret) {
            await admin.query(`grant select${write ? ', insert, update, delete' : ''} on ${table} to ${r}`)
          } else {
            const open = t.columns.filter((c) => !secret.has(c)).map(ident).join(', ')
            if (!open) continue
            await admin.query(`grant select (${open}) on ${table} to ${r}`)
            if (write) await admin.query(`grant insert (${open}), update (${open}) on ${table} to ${r}`)
          }
        }
        // SELECT on a sequence reads its last value; nextval needs USAGE, which only the writer has.
        await admin.query(`grant ${write ? 'select, usage' : 'select'} on all sequences in schema ${ident(schema)} to ${r}`)
      }
      await admin.query('commit')
      provisioned = { url: appUrl, fingerprint, logins: { read: urls[names.read]!, write: urls[names.write]! } }
      return provisioned.logins
    } catch (err) {
      await admin.query('rollback').catch(() => {})
      throw err
    }
  } finally {
    await admin.end().catch(() => {})
  }
}

/** The roles a test database got (its cleanup drops them). */
export function sqlRoleNames(appUrl: string) {
  return roleNames(appUrl)
}

function cellOf(v: unknown): SqlValue {
  if (v === null || v === undefined) return null
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v
  if (typeof v === 'bigint') return String(v)
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString()
  if (Buffer.isBuffer(v)) return `\\x${v.toString('hex')}`
  return JSON.stringify(v)
}

async function typeNames(client: Client, oids: number[]): Promise<Map<number, string>> {
  if (!oids.length) return new Map()
  const r = await client.query<{ oid: number; typname: string }>('select oid::int as oid, typname from pg_type where oid = any($1::oid[])', [oids])
  return new Map(r.rows.map((x) => [x.oid, x.typname]))
}

export interface PostgresJob {
  sql: string
  mode: 'read' | 'write'
  explain: boolean
  maxRows: number
  maxBytes: number
  timeoutMs: number
}

/** The secret tables and columns a statement's text names (for the message only: the grants refuse). */
function secretsNamed(text: string): string[] {
  const words = new Set(text.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? [])
  const secrets = sqlSecrets()
  const out: string[] = []
  for (const t of secrets.tables) if (words.has(t)) out.push(t)
  for (const [t, columns] of secrets.columns) if (words.has(t)) for (const c of columns) out.push(`${t}.${c}`)
  return out
}

/** Maps what PostgreSQL said to this tool's answers. */
function mapped(err: unknown, job: PostgresJob): Error {
  const e = err as { code?: string; message?: string }
  if (job.mode === 'read' && (e.code === '25006' || e.code === '0A000')) return new WritesError()
  if (e.code === '57014') return badRequest('sql.timeout', { seconds: String(Math.round(job.timeoutMs / 1000)) })
  if (e.code === '42501') {
    // The grants refused it; when the statement names secrets, say which (the database names only the table).
    const named = secretsNamed(job.sql)
    return named.length ? badRequest('sql.secret', { columns: named.join(', ') }) : badRequest('sql.denied', { message: String(e.message) })
  }
  if (e.code === '42601' && /multiple commands/i.test(String(e.message))) return badRequest('sql.multiple')
  if (e.code) return badRequest('sql.error', { message: String(e.message) })
  return err as Error
}

/** Asks the server to cancel what a backend runs, over a connection of the same login (which may cancel its own). */
async function cancelBackend(connectionString: string, pid: number) {
  const c = new (nodePostgres().Client)({ connectionString })
  c.on('error', () => {})
  try {
    await c.connect()
    await c.query('select pg_cancel_backend($1)', [pid])
  } finally {
    await c.end().catch(() => {})
  }
}

/**
 * Runs one statement on a connection of its own. When `signal` aborts (the client went away), the
 * running query is cancelled and the run answers sql.cancelled, unless it had already committed.
 */
export async function runPostgres(config: AppConfig, appUrl: string, job: PostgresJob, signal?: AbortSignal): Promise<Omit<SqlRunResult, 'durationMs'>> {
  if (signal?.aborted) throw badRequest('sql.cancelled')
  let connectionString = ''
  const connect = async () => {
    const urls = await logins(config, appUrl)
    connectionString = job.mode === 'write' ? urls.write : urls.read
    const c = new (nodePostgres().Client)({ connectionString })
    c.on('error', () => {})
    await c.connect()
    return c
  }
  let client: Client
  try {
    client = await connect()
  } catch (err) {
    // A role dropped or its password changed behind this process: provision again, once.
    if (!provisioned || !['28P01', '28000'].includes(String((err as { code?: string }).code))) throw err
    provisioned = undefined
    client = await connect()
  }
  // node-postgres keeps the backend's pid from the start-up message (not in its types).
  const pid = (client as unknown as { processID: number | null }).processID
  const cancel = () => {
    if (pid) cancelBackend(connectionString, pid).catch(() => {})
  }
  signal?.addEventListener('abort', cancel, { once: true })
  let committed = false
  const checkCancelled = () => {
    if (signal?.aborted) throw badRequest('sql.cancelled')
  }
  // Extended protocol everywhere: a second command in the text is refused by the parser.
  const q = (text: string) => {
    checkCancelled()
    return client.query({ text, rowMode: 'array', queryMode: 'extended' } as QueryConfig & { rowMode: 'array' })
  }
  try {
    checkCancelled()
    await client.query(job.mode === 'read' ? 'begin read only' : 'begin')
    await client.query(`set local statement_timeout = ${Math.max(1, Math.round(job.timeoutMs))}`)
    let fields: { name: string; dataTypeID: number }[] = []
    const rows: SqlValue[][] = []
    let truncated: SqlRunResult['truncated'] = null
    let rowsAffected: number | null = null
    let size = 0
    const take = (batch: unknown[][]) => {
      for (const raw of batch) {
        if (rows.length >= job.maxRows) return (truncated = 'rows')
        const row = raw.map(cellOf)
        size += JSON.stringify(row).length
        if (size > job.maxBytes) return (truncated = 'size')
        rows.push(row)
      }
      return null
    }
    if (job.mode === 'read' && !job.explain) {
      await q(`declare velo_sql no scroll cursor for ${job.sql}`)
      const r = await q(`fetch forward ${job.maxRows + 1} from velo_sql`)
      fields = r.fields
      take(r.rows as unknown[][])
    } else {
      const r = await q(job.sql)
      fields = r.fields ?? []
      take((r.rows ?? []) as unknown[][])
      if (job.mode === 'write') rowsAffected = r.rowCount ?? 0
    }
    checkCancelled()
    await client.query(job.mode === 'read' ? 'rollback' : 'commit')
    committed = true
    const types = await typeNames(client, [...new Set(fields.map((f) => f.dataTypeID))])
    const columns: SqlColumn[] = fields.map((f) => ({ name: f.name, type: types.get(f.dataTypeID) ?? null }))
    return { kind: job.mode === 'write' ? 'write' : 'rows', columns, rows, truncated, rowsAffected }
  } catch (err) {
    // A cancelled query fails as a timed-out one does (57014): say what happened.
    if (signal?.aborted && !committed) throw badRequest('sql.cancelled')
    throw mapped(err, job)
  } finally {
    signal?.removeEventListener('abort', cancel)
    await client.end().catch(() => {})
  }
}
