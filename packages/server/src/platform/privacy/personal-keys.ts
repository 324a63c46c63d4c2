import type { ResolvedEntity } from '@velo/shared'
import { sql } from 'kysely'
import { type Db, type Dialect, dynamicDb } from '../../db/database'

type Row = Record<string, unknown>

/**
 * Takes the personal keys (a field's `personalKeys`: a device message's gps) out of these rows' JSON
 * texts, the rest of each text kept: by the database's JSON functions (SQLite json_remove, PostgreSQL
 * jsonb -) for a JSON object holding one; a text that names a key but is no JSON object (a payload
 * cut at its length limit) keeps nothing. The rows carry the id and the fields' texts as read. The
 * retention of positions and a rider's erasure both take them out here. Answers how many rows changed.
 */
export async function removePersonalKeys(db: Db, dialect: Dialect, e: ResolvedEntity, rows: readonly Row[]): Promise<number> {
  const table = dynamicDb(db)
  const postgres = dialect === 'postgres'
  let changed = 0
  for (const field of e.fields) {
    if (!field.personalKeys) continue
    const { name } = field
    const keys = field.personalKeys.keys
    const removed = postgres
      ? sql<string>`(${sql.ref(name)}::jsonb - ${sql.val(keys)}::text[])::text`
      : sql<string>`json_remove(${sql.ref(name)}, ${sql.join(keys.map((k) => `$."${k}"`))})`
    const inSql: number[] = []
    const rewritten: { id: number; text: string }[] = []
    for (const row of rows) {
      const id = row[e.idField] as number
      const text = String(row[name] ?? '')
      if (!keys.some((k) => text.includes(`"${k}"`))) continue
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        rewritten.push({ id, text: '{}' })
        continue
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) rewritten.push({ id, text: '{}' })
      else if (!keys.some((k) => Object.hasOwn(parsed, k))) continue
      // PostgreSQL's jsonb refuses a \u0000 that JSON allows: that rare text is rewritten here instead.
      else if (postgres && text.includes('\\u0000')) rewritten.push({ id, text: JSON.stringify(Object.fromEntries(Object.entries(parsed).filter(([k]) => !keys.includes(k)))) })
      else inSql.push(id)
    }
    if (inSql.length) {
      let update = table.updateTable(e.table).set({ [name]: removed }).where(e.idField, 'in', inSql)
      if (!postgres) update = update.where(sql<boolean>`json_valid(${sql.ref(name)})`)
      changed += Number((await update.executeTakeFirst()).numUpdatedRows)
    }
    for (const { id, text } of rewritten) changed += Number((await table.updateTable(e.table).set({ [name]: text }).where(e.idField, '=', id).executeTakeFirst()).numUpdatedRows)
  }
  return changed
}
