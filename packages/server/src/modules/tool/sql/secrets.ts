import { allEntities, isSecretColumn, storedColumns } from '@velo/shared'

/** snake_case, as Kysely's CamelCasePlugin names the database's tables and columns. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * Tables SQL execution never reads or writes: sessions (token hashes), the cache (captcha answers,
 * mail codes), the outbox (mails carry the same codes and reset links), its own credentials, staff's
 * second factors and SQLite's index samples.
 */
const SECRET_TABLES = [
  'sys_session',
  'mem_session',
  'sys_cache',
  'sys_mail_outbox',
  'tool_sql_credential',
  // Second factors: sealed seeds, passkeys' credentials, recovery codes' hashes.
  'sys_user_factor',
  'sys_user_recovery_code',
  // SQLite's ANALYZE samples: whole index keys, a secret's among them if one is indexed.
  'sqlite_stat3',
  'sqlite_stat4',
]

export interface SqlSecrets {
  tables: Set<string>
  /** table → its secret columns (snake_case). */
  columns: Map<string, Set<string>>
}

let computed: SqlSecrets | undefined

/**
 * The one list of what SQL execution refuses to read, from the definitions (every `password` field
 * and every storage column marked `secret`) and the fixed tables above.
 */
export function sqlSecrets(): SqlSecrets {
  if (computed) return computed
  const columns = new Map<string, Set<string>>()
  const add = (table: string, column: string) => {
    const set = columns.get(table) ?? new Set<string>()
    set.add(column)
    columns.set(table, set)
  }
  for (const e of allEntities()) {
    for (const c of storedColumns(e)) if (isSecretColumn(c)) add(snake(e.table), snake(c.name))
  }
  computed = { tables: new Set(SECRET_TABLES), columns }
  return computed
}

/** What the SQLite runner and the PostgreSQL grants are given: plain arrays. */
export function secretsForRunner() {
  const s = sqlSecrets()
  return { tables: [...s.tables], columns: Object.fromEntries([...s.columns].map(([t, c]) => [t, [...c]])) }
}
