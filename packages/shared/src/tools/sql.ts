import { z } from 'zod'

// Tool system › SQL execution (docs/tools.md): the contract between the page and the server.
// A statement runs read-only unless the caller holds `tool:sql:write` and confirmed it (`write`).

export const SQL_PERMISSIONS = {
  page: 'tool:sql:list',
  execute: 'tool:sql:execute',
  write: 'tool:sql:write',
  export: 'tool:sql:export',
} as const

/** The longest statement accepted, in characters. */
export const SQL_MAX_LENGTH = 100_000

export const sqlRunSchema = z.object({
  sql: z.string().min(1).max(SQL_MAX_LENGTH),
  /** The user confirmed that this statement writes (needs `tool:sql:write`). */
  write: z.boolean().optional(),
})
export type SqlRunRequest = z.infer<typeof sqlRunSchema>

export interface SqlColumn {
  name: string
  /** The database's type name where it knows it ('integer', 'varchar', 'timestamptz'), else null. */
  type: string | null
}

/** A cell: text, number or boolean as the database answered; bytes as '\\x…' hex, big integers as text. */
export type SqlValue = string | number | boolean | null

export interface SqlRunResult {
  /** rows: a statement answering rows; write: a write with its count (and rows of RETURNING). */
  kind: 'rows' | 'write'
  columns: SqlColumn[]
  rows: SqlValue[][]
  /** Why rows stopped before the end: the row cap or the size cap (config tool.sql.*); null: all rows. */
  truncated: null | 'rows' | 'size'
  /** Rows inserted, updated or deleted by a write; null for a read. */
  rowsAffected: number | null
  durationMs: number
}

/**
 * HTTP 409 with this `code` in the envelope: the statement writes; the caller holds `tool:sql:write`
 * and must confirm it (send it again with `write: true`). The message says so in the caller's language.
 */
export const SQL_CONFIRM_WRITE_CODE = 4091

export interface SqlHistoryEntry {
  historyId: number
  sql: string
  mode: 'read' | 'write'
  outcome: 'ok' | 'error' | 'refused' | 'timeout'
  rowCount: number | null
  durationMs: number
  createTime: string
}

/** GET /tool/sql/schema: the readable tables and their columns for completion (secrets left out). */
export interface SqlSchemaAnswer {
  dialect: 'sqlite' | 'postgres'
  tables: Record<string, string[]>
}
