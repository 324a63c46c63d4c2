import { entityByKey, labelWithUnit, type FieldDef, type Language, type ResolvedEntity } from '@velo/shared'
import { sql, type Transaction } from 'kysely'
import { type Db, type DynamicDb, dynamicDb } from '../../db/database'
import type { Database } from '../../db/schema'
import { z } from 'zod'
import { AppError, badRequest } from '../errors'
import { yieldWhenDue } from '../../lib/event-loop'
import { t } from '../i18n'
import { localizeIssue } from '../i18n/zod-messages'
import type { AuthContext } from '../rbac/auth-context'
import { isScoped } from '../rbac/entity-scope'
import type { RowScope } from '../rbac/data-scope'
import { BOOLEAN_LABELS } from './excel'
import { ADD_MANY_ROWS, type CheckMemo, type EntityRepository } from './repository'
import { importRowSchema } from './schemas'
import { readFirstSheet } from './xlsx-read'
import { inSlice } from './slice'

type Row = Record<string, unknown>

export interface ImportIssue {
  /** The spreadsheet's row number (the header is row 1). */
  row: number
  field: string
  message: string
}

/** The report lists this many problems; the count says how many rows had any. */
const MAX_REPORTED = 1000

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0])
const ZIP_MAGIC = Buffer.from([0x50, 0x4b])

/** Refuses what is not an Excel file by name, and says so plainly when it is the old binary format. */
export function checkWorkbookFile(nameExtension: string, bytes: Buffer) {
  if (nameExtension !== 'xls' && nameExtension !== 'xlsx') throw badRequest('import.badType')
  if (bytes.subarray(0, 4).equals(OLE_MAGIC)) throw badRequest('import.oldXls')
  if (!bytes.subarray(0, 2).equals(ZIP_MAGIC)) throw badRequest('import.unreadable')
}

/**
 * What a column of the file is: a value to import; the row's id, which names the row to update; or
 * a column the export writes that import does not take (read-only values such as times and
 * counters, computed ones, long texts kept out of the template), recognised and skipped so that an
 * exported file imports back.
 */
type Column = { use: 'value'; field: FieldDef } | { use: 'id'; field: FieldDef } | { use: 'ignored'; field: FieldDef } | null

/** Full-width brackets read as plain ones: "时长（秒）" and "时长(秒)" name the same column. */
const headerKey = (text: string) => text.replace(/（/g, '(').replace(/）/g, ')').toLowerCase()

/**
 * Header text → column: the label in either language, with the unit the export writes beside a
 * duration's number ("Duration (s)") or without it, or the field name itself.
 */
function mapHeader(e: ResolvedEntity, header: string[]): Column[] {
  const byName = new Map<string, Column>()
  const add = (f: FieldDef, column: Column) => {
    const withUnit = labelWithUnit(f)
    for (const key of [f.name, f.label.en_US, f.label.zh_CN, withUnit.en_US, withUnit.zh_CN]) byName.set(headerKey(key), column)
  }
  for (const f of e.exported) add(f, { use: 'ignored', field: f })
  add(e.fieldMap.get(e.idField)!, { use: 'id', field: e.fieldMap.get(e.idField)! })
  // Importable columns win a name they share with another.
  for (const f of e.imported) add(f, { use: 'value', field: f })
  return header.map((h) => {
    if (h === '') return null
    const column = byName.get(headerKey(h))
    if (!column) throw badRequest('import.unknownColumn', { column: h.slice(0, 100) })
    return column
  })
}

/** The id in a cell of the id column: a positive whole number, else none. */
function idIn(cell: unknown): number | undefined {
  const n = typeof cell === 'number' ? cell : typeof cell === 'string' && cell.trim() !== '' ? Number(cell.trim()) : Number.NaN
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** A database's own refusal (NOT NULL, UNIQUE, CHECK, foreign key): SQLite's and PostgreSQL's codes. */
function isConstraintError(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? '')
  return code.startsWith('SQLITE_CONSTRAINT') || /^23\d{3}$/.test(code)
}

const quoted = (fields: readonly FieldDef[], lang: Language) => fields.map((f) => (lang === 'zh_CN' ? `“${f.label.zh_CN}”` : `"${f.label.en_US}"`)).join(lang === 'zh_CN' ? '、' : ', ')

const YES = new Set([BOOLEAN_LABELS.en_US[0].toLowerCase(), BOOLEAN_LABELS.zh_CN[0], 'true', '1', 'y'])
const NO = new Set([BOOLEAN_LABELS.en_US[1].toLowerCase(), BOOLEAN_LABELS.zh_CN[1], 'false', '0', 'n'])

const pad = (n: number) => String(n).padStart(2, '0')
const isoDate = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`

/** Labels (either language) and values of a list, case-insensitive, to values. */
function choiceMap(entries: [value: string, ...labels: string[]][]): Map<string, string> {
  const m = new Map<string, string>()
  for (const [value, ...labels] of entries) for (const l of [value, ...labels]) if (l) m.set(l.toLowerCase(), value)
  return m
}

/**
 * Turns the cells of one row into the values the API takes, reading the forms export writes:
 * dictionary and option labels, Yes/No, dates, a referenced row's name.
 */
class CellReader {
  private readonly choices = new Map<string, Map<string, string>>()
  private readonly referenceIds = new Map<string, Map<string, number>>()

  private readonly db: DynamicDb
  constructor(
    db: Db,
    private readonly fields: (FieldDef | null)[],
  ) {
    this.db = dynamicDb(db)
  }

  async prepare(rows: { cells: unknown[] }[]) {
    for (const [i, f] of this.fields.entries()) {
      if (!f) continue
      if (f.kind === 'dict') {
        const items = await this.db.selectFrom('sysDictData').select(['dictValue', 'dictLabel', 'dictLabelZh']).where('dictType', '=', f.dict).execute()
        this.choices.set(f.name, choiceMap(items.map((d) => [d.dictValue, d.dictLabel, d.dictLabelZh])))
      } else if (f.kind === 'enum') {
        this.choices.set(f.name, choiceMap(f.options.map((o) => [o.value, o.label.en_US, o.label.zh_CN])))
      } else if (f.kind === 'reference') {
        // Names in the file → ids, in one query per 500 distinct names.
        const target = entityByKey(f.entity)
        const names = [...new Set(rows.map((r) => r.cells[i]).filter((v): v is string => typeof v === 'string' && v.trim() !== ''))]
        const ids = new Map<string, number>()
        // A row is named in each language it has a name in (an export in Chinese names a country 荷兰).
        const labels = [...new Set([target.labelField, ...Object.values(target.labelFieldByLanguage ?? {})])]
        for (const label of labels) {
          for (let k = 0; k < names.length; k += 500) {
            const found = await this.db
              .selectFrom(target.table)
              .select([target.idField, label])
              .where(label, 'in', names.slice(k, k + 500).map((n) => n.trim()))
              .where(inSlice(target))
              .execute()
            for (const r of found) {
              const name = String(r[label]).toLowerCase()
              if (!ids.has(name)) ids.set(name, Number(r[target.idField]))
            }
          }
        }
        this.referenceIds.set(f.name, ids)
      }
    }
  }

  /** The row's values, and the names of referenced rows that do not exist. */
  values(cells: unknown[]): Row {
    const out: Row = {}
    for (const [i, f] of this.fields.entries()) {
      if (!f) continue
      const raw = cells[i] ?? null
      out[f.name] = raw === null || raw === '' ? undefined : this.convert(f, raw)
    }
    return out
  }

  private convert(f: FieldDef, raw: unknown): unknown {
    const text = raw instanceof Date ? raw.toISOString() : String(raw).trim()
    switch (f.kind) {
      case 'dict':
      case 'enum':
        return this.choices.get(f.name)?.get(text.toLowerCase()) ?? text
      case 'boolean': {
        if (typeof raw === 'boolean') return raw
        const lower = text.toLowerCase()
        if (YES.has(lower)) return true
        if (NO.has(lower)) return false
        return text
      }
      case 'number':
      case 'money':
      case 'treeParent':
        return typeof raw === 'number' ? raw : text !== '' && !Number.isNaN(Number(text)) ? Number(text) : text
      case 'reference':
        if (typeof raw === 'number') return raw
        return this.referenceIds.get(f.name)?.get(text.toLowerCase()) ?? new UnknownName(text)
      case 'date':
        return raw instanceof Date ? isoDate(raw) : text
      case 'datetime':
        if (raw instanceof Date) return raw.toISOString()
        // "2026-05-01 08:30" as people type it: read as UTC, like every stored time.
        return /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(text) ? `${text.replace(' ', 'T')}${text.length === 16 ? ':00' : ''}Z` : text
      default:
        return typeof raw === 'number' && Number.isInteger(raw) ? String(raw) : text
    }
  }
}

/** A referenced row's name that matches no row: reported as such, not as "expected a number". */
class UnknownName {
  constructor(readonly name: string) {}
}

export interface ImportResult {
  inserted: number
  updated: number
}

/**
 * Imports a workbook into an entity: every row is read and checked first, then all are written in
 * one transaction. Any bad row (format, a value the database refuses, a hook's rule) means nothing
 * is written and the answer lists the problems by row.
 */
export async function importWorkbook(options: {
  repo: EntityRepository
  db: Db
  bytes: Buffer
  updateSupport: boolean
  auth: AuthContext
  scope: RowScope
  lang: Language
  /**
   * Rows written so far of the file's data rows (an import job's progress bar): (0, total) once the
   * file is read, then after each row. Rows are written only once every row passed its checks, and
   * the writing is the long part.
   */
  progress?: (done: number, total: number) => void
  /** Aborted: the import stops at its next row and, inside the transaction, rolls it back (all or none). */
  signal?: AbortSignal
  /** Last in the transaction, once every row is written: what must commit with the rows or not at all (an import job's mark). */
  beforeCommit?: (tx: Transaction<Database>, result: ImportResult) => Promise<void>
}): Promise<ImportResult> {
  const { repo, lang, signal } = options
  const e = repo.entity
  const { columns, rows } = await readFirstSheet(options.bytes, (header) => mapHeader(e, header))
  if (rows.length === 0) throw badRequest('import.empty')
  options.progress?.(0, rows.length)
  const fields = columns.map((c) => (c?.use === 'value' ? c.field : null))
  // The id names the stored row only where the entity has no natural key; otherwise the column is skipped.
  const idColumn = e.importKey ? -1 : columns.findIndex((c) => c?.use === 'id')
  const idDef = e.fieldMap.get(e.idField)!

  // Values a new row cannot do without: a file without their column adds no row. Without the
  // update option every row is new, so the file is refused at once; with it, only rows that match
  // none are.
  const present = new Set(fields.flatMap((f) => (f ? [f.name] : [])))
  const missing = e.imported.filter((f) => f.required && !('default' in f && f.default !== undefined) && !present.has(f.name))
  const missingParams = () => ({ columnsEn: quoted(missing, 'en_US'), columnsZh: quoted(missing, 'zh_CN') })
  if (missing.length && !options.updateSupport) throw badRequest('import.missingColumns', missingParams())

  const issues: ImportIssue[] = []
  const badRows = new Set<number>()
  /** badRows in the order they came (a batch written again takes back those since its start). */
  const badLog: number[] = []
  const report = (row: number, field: string, message: string) => {
    if (!badRows.has(row)) badLog.push(row)
    badRows.add(row)
    if (issues.length < MAX_REPORTED) issues.push({ row, field, message })
  }

  // 1. Each row on its own: formats, required, limits — the same schema as the add form.
  const reader = new CellReader(options.db, fields)
  await reader.prepare(rows)
  const schema = importRowSchema(fields.filter((f): f is FieldDef => f !== null))
  const parsed: { number: number; values: Row; id?: number }[] = []
  const seen = new Map<string, Map<string, number>>()
  const seenIds = new Set<number>()
  for (const r of rows) {
    // Checking 100,000 rows is seconds of work that answers at once: let other requests in between.
    await yieldWhenDue()
    signal?.throwIfAborted()
    const id = idColumn >= 0 ? idIn(r.cells[idColumn]) : undefined
    if (id !== undefined) {
      if (seenIds.has(id)) report(r.number, e.idField, t(lang, 'import.duplicateInFile', { fieldEn: idDef.label.en_US, fieldZh: idDef.label.zh_CN, value: String(id) }))
      seenIds.add(id)
    }
    const cells = reader.values(r.cells)
    const unknown = Object.entries(cells).filter((entry): entry is [string, UnknownName] => entry[1] instanceof UnknownName)
    for (const [name, { name: value }] of unknown) {
      const f = e.fieldMap.get(name)!
      report(r.number, name, t(lang, 'import.unknownName', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value }))
    }
    if (unknown.length) continue
    const result = schema.safeParse(cells)
    if (!result.success) {
      for (const iss of result.error.issues) {
        const field = String(iss.path[0] ?? '')
        report(r.number, field, localizeIssue({ code: iss.code, path: field, message: iss.message, params: iss as never }, lang))
      }
      continue
    }
    const values = result.data as Row
    // Unique values twice in the file would pass each row's check and clash on the second insert.
    for (const f of e.imported) {
      const v = values[f.name]
      if (!f.unique || v === undefined || v === null || v === '') continue
      const key = String(v).toLowerCase()
      const first = seen.get(f.name) ?? new Map<string, number>()
      seen.set(f.name, first)
      if (first.has(key)) report(r.number, f.name, t(lang, 'import.duplicateInFile', { fieldEn: f.label.en_US, fieldZh: f.label.zh_CN, value: String(v) }))
      else first.set(key, r.number)
    }
    parsed.push({ number: r.number, values, id })
  }

  // 2. All rows against the database in one transaction, rolled back if any row is refused. A row
  // names a stored one by the entity's natural key (its first unique field) or, for an entity
  // without one, by the id column an export writes. With the update option that row is updated;
  // without it the row is refused as existing (RuoYi's updateSupport), so importing a file twice
  // never doubles its rows.
  const result = { inserted: 0, updated: 0 }
  // Kept only for a module that acts after commit: 100,000 imported log rows need not stay in memory.
  const changes: ({ op: 'create'; row: Row } | { op: 'update'; before: Row; after: Row })[] = []
  const track = repo.actsAfterCommit
  const key = e.importKey
  // New rows of an entity without per-row create hooks are checked one by one, as always, and written
  // ADD_MANY_ROWS to an INSERT (on PostgreSQL an INSERT a row was a round trip a row). Each batch
  // goes after a savepoint taken where the rows since the last written batch began: should the
  // database refuse one of its rows all the same (another writer took a unique value meanwhile), or
  // an update among them, everything since the savepoint is undone, the report goes back to what it
  // was there, and those rows are written again one at a time, so the report names the row as the
  // row-by-row import always did, and stops there.
  // A caller limited by a data scope has each new row checked against it once written (one at a
  // time, so the refusal names the row): a row outside the scope is refused, not written.
  const scoped = !options.scope.all && isScoped(e)
  const batched = repo.addsInBatches && !scoped
  try {
    await options.db.transaction().execute(async (tx) => {
      const memo: CheckMemo = { dictValues: new Set(), taken: await takenValues(tx, e, parsed) }
      const storedIds = key ? new Set<number>() : await existingIds(tx, e, parsed)
      const queue: Row[] = []
      /** The unique values of the queued rows, by field: a row with one of them waits for the queue to be written. */
      const queued = new Map([...memo.taken.keys()].map((f) => [f, new Set<unknown>()]))
      // The values checkValues and the key look up in the memo (a blank one is not, but for a dictionary).
      const looksUp = (f: string, v: unknown) => v !== undefined && v !== null && (v !== '' || e.fieldMap.get(f)?.kind === 'dict')
      const waits = (row: Row) => queue.length > 0 && [...queued].some(([f, values]) => looksUp(f, row[f]) && values.has(row[f]))
      // Where the savepoint was taken: the first row since, and the report, counts and changes as they were.
      let from = 0
      const mark = () => ({ issues: issues.length, bad: badLog.length, inserted: result.inserted, updated: result.updated, changes: changes.length })
      let at = mark()
      const savepoint = () => sql`savepoint velo_import`.execute(tx)

      /** Writes the queued rows, then moves the savepoint to row `upTo`, the next not yet seen. */
      const flush = async (upTo: number): Promise<'next' | 'stop'> => {
        if (!queue.length) return 'next'
        try {
          const added = await repo.addMany(tx, queue, memo, track)
          if (track) for (const row of added) changes.push({ op: 'create', row })
        } catch (err) {
          if (!isConstraintError(err)) throw err
          return await again(upTo)
        }
        return moveSavepoint(upTo)
      }

      const moveSavepoint = async (upTo: number): Promise<'next'> => {
        emptyQueue()
        await sql`release savepoint velo_import`.execute(tx)
        await savepoint()
        from = upTo
        at = mark()
        return 'next'
      }
      const emptyQueue = () => {
        queue.length = 0
        for (const values of queued.values()) values.clear()
      }

      /** Undoes the rows since the savepoint and writes them (up to `upTo`) one at a time. */
      const again = async (upTo: number): Promise<'next' | 'stop'> => {
        await sql`rollback to savepoint velo_import`.execute(tx)
        issues.length = at.issues
        for (const n of badLog.splice(at.bad)) badRows.delete(n)
        result.inserted = at.inserted
        result.updated = at.updated
        changes.length = at.changes
        emptyQueue()
        for (let i = from; i < upTo; i++) if ((await write(i, false)) === 'stop') return 'stop'
        // The refusal did not come again: on with batches from here.
        return moveSavepoint(upTo)
      }

      /** Row `i` of the file against the database: refused, updated, added, or (batch) queued to be added. */
      const write = async (i: number, batch: boolean): Promise<'next' | 'stop'> => {
        const { number, values, id } = parsed[i]!
        if (badRows.has(number)) return 'next'
        // Its key may name a queued row, which the row-by-row import would have found written.
        if (batch && waits(values) && (await flush(i)) === 'stop') return 'stop'
        const keyed = key && values[key] !== undefined && values[key] !== null && values[key] !== ''
        const existing = keyed ? memo.taken.get(key)?.get(values[key]) : id !== undefined && storedIds.has(id) ? id : undefined
        if (existing !== undefined && !options.updateSupport) {
          const named = keyed ? e.fieldMap.get(key)! : idDef
          report(number, named.name, t(lang, 'import.exists', { fieldEn: named.label.en_US, fieldZh: named.label.zh_CN, value: String(keyed ? values[key] : id) }))
          return 'next'
        }
        if (existing === undefined && missing.length) {
          report(number, missing[0]!.name, t(lang, 'import.missingColumns', missingParams()))
          return 'next'
        }
        try {
          if (existing !== undefined) {
            // A module acting after commit sees the changes in the file's order: the queued rows first.
            if (batch && track && (await flush(i)) === 'stop') return 'stop'
            const change = await repo.updateIn(tx, existing, values, options.auth, options.scope, memo)
            if (track) changes.push({ op: 'update', ...change })
            result.updated++
          } else if (batch) {
            const columns = await repo.checkedForAdd(tx, values, options.auth, memo)
            // A unique value (a default, say) a queued row has too: checked again once that row is written.
            if (waits(columns)) return (await flush(i)) === 'stop' ? 'stop' : write(i, batch)
            queue.push(columns)
            for (const [f, values] of queued) if (looksUp(f, columns[f])) values.add(columns[f])
            result.inserted++
          } else {
            const row = await repo.createIn(tx, values, options.auth, memo)
            if (scoped) await repo.assertInScope(tx, [row[e.idField]], options.scope)
            if (track) changes.push({ op: 'create', row })
            result.inserted++
          }
        } catch (err) {
          if (isConstraintError(err)) {
            // A batch since the savepoint: written again row by row, which reports the refused row.
            if (batch) return again(i + 1)
            // The database refused the row; PostgreSQL takes no more statements in this transaction.
            report(number, '', t(lang, 'import.rowRefused'))
            return 'stop'
          }
          if (!(err instanceof AppError)) throw err
          const field = (err.data as { errors?: { field?: string }[] } | null)?.errors?.[0]?.field ?? ''
          report(number, field, t(lang, err.messageKey, err.params))
        }
        return 'next'
      }

      if (batched) await savepoint()
      let stopped = false
      for (let i = 0; i < parsed.length && !stopped; i++) {
        // Thrown inside the transaction: nothing of the rows written so far is kept.
        signal?.throwIfAborted()
        if (i > 0) options.progress?.(i, rows.length)
        // Rows checked without a query each answer at once: let other requests in between.
        if (batched) await yieldWhenDue()
        stopped = (await write(i, batched)) === 'stop'
        if (!stopped && queue.length >= ADD_MANY_ROWS) stopped = (await flush(i + 1)) === 'stop'
      }
      if (!stopped && batched) await flush(parsed.length)
      if (badRows.size) throw new RollBack()
      signal?.throwIfAborted()
      options.progress?.(rows.length, rows.length)
      if (options.beforeCommit) await options.beforeCommit(tx, { ...result })
    })
  } catch (err) {
    if (!(err instanceof RollBack)) throw err
  }
  if (badRows.size) throw badRequest('import.failed', { count: badRows.size }, { errors: issues })
  // What a single change does once committed (a disabled user's sessions end), the import's rows do too.
  await repo.committed(options.auth, changes)
  return result
}

/** The ids of the file that name stored rows: one query per 500. */
async function existingIds(db: Db, e: ResolvedEntity, rows: { id?: number }[]): Promise<Set<number>> {
  const tx = dynamicDb(db)
  const wanted = [...new Set(rows.flatMap((r) => (r.id === undefined ? [] : [r.id])))]
  const out = new Set<number>()
  for (let i = 0; i < wanted.length; i += 500) {
    const found = await tx.selectFrom(e.table).select(e.idField).where(e.idField, 'in', wanted.slice(i, i + 500)).where(inSlice(e)).execute()
    for (const r of found) out.add(Number(r[e.idField]))
  }
  return out
}

class RollBack extends Error {}

/** For each unique field, the file's values that are already stored, with their rows: one query per 500 values. */
async function takenValues(db: Db, e: ResolvedEntity, rows: { values: Row }[]): Promise<Map<string, Map<unknown, number>>> {
  const tx = dynamicDb(db)
  const out = new Map<string, Map<unknown, number>>()
  for (const f of e.writable.filter((w) => w.unique)) {
    const taken = new Map<unknown, number>()
    const wanted = [...new Set(rows.map((r) => r.values[f.name]).filter((v) => v !== undefined && v !== null && v !== ''))]
    for (let i = 0; i < wanted.length; i += 500) {
      const found = await tx.selectFrom(e.table).select([e.idField, f.name]).where(f.name, 'in', wanted.slice(i, i + 500)).execute()
      for (const r of found) taken.set(r[f.name], Number(r[e.idField]))
    }
    out.set(f.name, taken)
  }
  return out
}

export const updateSupportField = z.enum(['true', 'false', '1', '0']).optional()
