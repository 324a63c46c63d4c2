import { type ActionPreview, type FieldDef, type Language, labelFieldIn, type ResolvedEntity, storedColumns, TEXT_LIKE_KINDS } from '@velo/shared'
import { type Db, type Dialect, dynamicDb } from '../../db/database'
import { BusinessType } from '../audit/operation-log'
import type { ActionArgs, PreviewArgs } from '../crud/workflow'
import { AppError, conflict, notFound } from '../errors'
import { t } from '../i18n'
import type { Services } from '../services'
import { packageJobsOf } from './data-package'
import { removePersonalKeys } from './personal-keys'
import { loadRider, type Rider, riderCondition, riderEntities, type RiderEntity } from './rider-rows'

// A rider's erasure (GDPR Art. 17; docs/privacy.md › Erasure): every entity that declares how its rows
// belong to a rider (`rider` in its definition) is treated as its declaration says, in one
// transaction, so an erasure is whole or not at all; what lives outside the database (their files)
// goes once it has committed. Staff ask for it with the member's Erase action, the rider through
// the app, the retention job for members inactive for years.

type Row = Record<string, unknown>

/** What a required personal text keeps once erased: a dash reads as "nothing here" in any language. */
export const ERASED_TEXT = '—'

/** The address an erased member keeps: the column is required and unique, and `.invalid` is never delivered (RFC 2606). */
export const erasedEmail = (memberId: number) => `erased-${memberId}@erased.invalid`

/** What refuses an erasure: one row and why, in the asker's language. */
export interface ErasureHold {
  entity: string
  id: number
  reason: string
}

/** How many rows of each entity the erasure deleted, anonymised, unbound or kept, and files deleted. */
export interface ErasureResult {
  memberId: number
  deleted: number
  anonymised: number
  unbound: number
  kept: number
  files: number
}

export interface EraseOptions {
  /** Who asked: a staff user's name, 'app' (the rider) or 'system' (retention). */
  by: string
  /** Where the request came from (a ticket, "inactive for 3 years"): the operation log keeps it. */
  request: string
  lang: Language
  signal?: AbortSignal
  progress?: (done: number, total?: number | null) => void
}

/**
 * A module's own way to unbind its rows from a rider, where the link carries more than a column (a
 * bike's vehicle record, its device's bind state): called in the erasure's transaction with the
 * rider's rows of that entity.
 */
export type UnbindStep = (args: { tx: Db; rows: Row[]; by: string; lang: Language }) => Promise<void>

const unbindSteps = new Map<string, UnbindStep>()

/** Registers an entity's unbind for erasures (once per process, as job kinds are). */
export function registerErasureUnbind(entityKey: string, step: UnbindStep): void {
  unbindSteps.set(entityKey, step)
}

const rowsOf = (db: Db, e: ResolvedEntity, rider: Rider) => {
  const where = riderCondition(e, rider)
  return where ? dynamicDb(db).selectFrom(e.table).where(where) : null
}

const blank = (v: unknown) => v === null || v === undefined || String(v).trim() === ''

/** Why the rider's data cannot be erased now: an open service order, a legal hold. Empty: nothing holds it. */
export async function erasureHolds(db: Db, rider: Rider, lang: Language): Promise<ErasureHold[]> {
  const holds: ErasureHold[] = []
  for (const { entity: e, rider: r } of riderEntities()) {
    if (!r.hold) continue
    const query = rowsOf(db, e, rider)
    if (!query) continue
    const labelField = labelFieldIn(e, lang)
    const rows = await query.select([e.idField, labelField, r.hold.field]).execute()
    for (const row of rows) {
      const value = row[r.hold.field]
      const holding = r.hold.isNot ? !r.hold.isNot.includes(String(value)) : !blank(value)
      if (!holding) continue
      const reason = r.hold.reason[lang].replaceAll('{label}', String(row[labelField] ?? row[e.idField])).replaceAll('{value}', String(value ?? ''))
      holds.push({ entity: e.key, id: Number(row[e.idField]), reason })
    }
  }
  return holds
}

/** Values as both databases take them: a boolean as 1/0 (SQLite binds no booleans; PostgreSQL casts the parameter). */
const bound = (values: Readonly<Record<string, unknown>> | undefined): Row =>
  Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]))

/** The values an anonymisation writes: each personal field emptied (a required one gets a stand-in), and the declaration's `set`. */
function anonymised(e: ResolvedEntity, set: Readonly<Record<string, unknown>> | undefined, memberId: number): Row {
  const values: Row = {}
  const columns = new Map(storedColumns(e).map((c) => [c.name, c]))
  for (const f of e.fields) {
    const column = columns.get(f.name)
    if (!f.personal || !column) continue
    values[f.name] = standIn(f, column.nullable, memberId)
  }
  return { ...values, ...bound(set) }
}

/**
 * What an erased personal value becomes: nothing where the column takes it (null, or '' for the texts
 * the engine never leaves null), a dash where a value is required, and for a required e-mail (the
 * member's sign-in name, unique) an address that names only the row.
 */
function standIn(f: FieldDef, nullable: boolean, memberId: number): unknown {
  if (f.kind === 'email' && (f.required || f.unique)) return erasedEmail(memberId)
  if (f.required) return TEXT_LIKE_KINDS.includes(f.kind as never) || f.kind === 'image' || f.kind === 'file' ? ERASED_TEXT : 0
  if (nullable) return null
  return TEXT_LIKE_KINDS.includes(f.kind as never) ? '' : 0
}

/** Stored file names in the rows' file and image fields (personal ones only, unless the rows go). */
function filesIn(e: ResolvedEntity, rows: Row[], all: boolean): string[] {
  const fields = e.fields.filter((f) => (f.kind === 'file' || f.kind === 'image') && (all || f.personal))
  return rows.flatMap((row) => fields.flatMap((f) => (typeof row[f.name] === 'string' && row[f.name] ? [String(row[f.name])] : [])))
}

/** Rows handled per statement: a rider's devices may have reported for years. */
const CHUNK = 1000

/** Treats the rider's rows of one entity as its declaration says; answers how many rows and which files to delete. */
async function eraseEntity(tx: Db, dialect: Dialect, { entity: e, rider: r }: RiderEntity, rider: Rider, o: EraseOptions): Promise<{ rows: number; files: string[] }> {
  const db = dynamicDb(tx)
  const where = riderCondition(e, rider)
  if (!where || r.erase === 'keep') {
    const kept = where ? Number((await db.selectFrom(e.table).select((eb) => eb.fn.countAll<number>().as('n')).where(where).executeTakeFirstOrThrow()).n) : 0
    return { rows: kept, files: [] }
  }
  const by = r.by
  if (r.erase === 'unbind' && 'member' in by) {
    const f = e.fieldMap.get(by.member)
    // A list of members (a message's chosen ones): the rider is taken off the list, the row stays.
    if (f?.kind === 'referenceMany') {
      const done = await db.deleteFrom(f.through.table).where(f.through.to, '=', rider.memberId).executeTakeFirst()
      return { rows: Number(done.numDeletedRows), files: [] }
    }
    const rows = await db.selectFrom(e.table).selectAll().where(where).execute()
    const step = unbindSteps.get(e.key)
    if (step) await step({ tx, rows, by: o.by, lang: o.lang })
    else if (rows.length) await db.updateTable(e.table).set({ [by.member]: null, ...bound(r.set) }).where(where).execute()
    return { rows: rows.length, files: [] }
  }
  let count = 0
  const files: string[] = []
  let after: unknown = null
  for (;;) {
    o.signal?.throwIfAborted()
    let page = db.selectFrom(e.table).selectAll().where(where).orderBy(e.idField).limit(CHUNK)
    if (after !== null) page = page.where(e.idField, '>', after as number)
    const rows = await page.execute()
    if (!rows.length) break
    after = rows.at(-1)![e.idField]
    const ids = rows.map((row) => row[e.idField] as number)
    files.push(...filesIn(e, rows, r.erase === 'delete'))
    if (r.erase === 'delete') {
      for (const f of e.fields) if (f.kind === 'referenceMany') await db.deleteFrom(f.through.table).where(f.through.from, 'in', ids).execute()
      await db.deleteFrom(e.table).where(e.idField, 'in', ids).execute()
    } else {
      const values = anonymised(e, r.set, rider.memberId)
      if (e.key === 'member') values.erasedTime = new Date().toISOString()
      if (Object.keys(values).length) await db.updateTable(e.table).set(values).where(e.idField, 'in', ids).execute()
      await removePersonalKeys(tx, dialect, e, rows)
    }
    count += rows.length
    if (rows.length < CHUNK) break
  }
  return { rows: count, files }
}

/** The operation log's row of an erasure the console's action route does not log itself (the app's, the retention job's). */
async function logErasure(db: Db, rider: Rider, o: EraseOptions, result: ErasureResult | null, error: string) {
  await db
    .insertInto('sysOperLog')
    .values({
      title: 'member',
      businessType: BusinessType.delete,
      method: 'eraseRider',
      requestMethod: '',
      operName: o.by.slice(0, 64),
      deptName: '',
      operUrl: `/member/member/${rider.memberId}/erase`,
      operIp: '',
      operParam: JSON.stringify({ memberId: rider.memberId, request: o.request }).slice(0, 2000),
      jsonResult: JSON.stringify(result ?? {}),
      status: error ? '1' : '0',
      errorMsg: error.slice(0, 2000),
      operTime: new Date().toISOString(),
      costTime: 0,
      requestId: '',
    })
    .execute()
}

/**
 * Erases a rider: refused (409, with every reason) while something holds it, 404 for no such member,
 * 409 when already erased. Anonymises the member row (no identifying value left, the account
 * disabled), treats every rider entity as declared, ends their app sessions, and after the commit
 * deletes their files from storage. The operation log keeps who erased whom, why and how many rows,
 * whoever asked (the console's route logs only that a job was queued).
 */
export async function eraseRider(services: Services, memberId: number, o: EraseOptions): Promise<ErasureResult> {
  const rider = await loadRider(services.db, memberId)
  if (!rider) throw notFound()
  try {
    const erased = await services.db.selectFrom('memMember').select('erasedTime').where('memberId', '=', memberId).executeTakeFirstOrThrow()
    if (erased.erasedTime) throw conflict('privacy.erasure.already')
    const holds = await erasureHolds(services.db, rider, o.lang)
    if (holds.length) throw conflict('privacy.erasure.held', { reasons: holds.map((h) => h.reason).join('; ') })
    const entities = riderEntities()
    const result: ErasureResult = { memberId, deleted: 0, anonymised: 0, unbound: 0, kept: 0, files: 0 }
    const files: string[] = []
    o.progress?.(0, entities.length + 1)
    await services.db.transaction().execute(async (tx) => {
      // The member row last: the e-mail that finds their service orders and mails is the one loaded before.
      for (const [i, re] of [...entities.slice(1), entities[0]!].entries()) {
        const done = await eraseEntity(tx, services.dialect, re, rider, o)
        files.push(...done.files)
        const counter = re.rider.erase === 'delete' ? 'deleted' : re.rider.erase === 'anonymise' ? 'anonymised' : re.rider.erase === 'unbind' ? 'unbound' : 'kept'
        result[counter] += done.rows
        o.progress?.(i + 1)
      }
      // Their app sessions end with the account: the app's next call hears "signed out".
      await tx.deleteFrom('memSession').where('memberId', '=', memberId).execute()
    })
    // Files go once the rows that named them are gone: a rollback keeps both.
    const unique = [...new Set(files)]
    for (const name of unique) await services.storage.remove(name)
    if (unique.length) await services.db.deleteFrom('sysFile').where('fileName', 'in', unique).execute()
    // Their data packages are copies of what was erased.
    const packages = await packageJobsOf(services.db, memberId)
    await services.jobs.removeFiles(packages)
    result.files = unique.length + packages.length
    o.progress?.(entities.length + 1)
    await logErasure(services.db, rider, o, result, '')
    return result
  } catch (err) {
    await logErasure(services.db, rider, o, null, err instanceof AppError ? t(o.lang, err.messageKey, err.params) : 'failed').catch(() => undefined)
    throw err
  }
}

const FACTS = { delete: 'privacy.erasure.fact.delete', anonymise: 'privacy.erasure.fact.anonymise', unbind: 'privacy.erasure.fact.unbind', keep: 'privacy.erasure.fact.keep' } as const

/** What erasing one member would do, per entity, for the Erase action's dialog; refused with the reasons while something holds it. */
export async function erasePreview({ tx, rows, lang }: PreviewArgs): Promise<ActionPreview> {
  const memberId = Number(rows[0]!.memberId)
  const rider = await loadRider(tx, memberId)
  if (!rider) throw notFound()
  const holds = await erasureHolds(tx, rider, lang)
  if (holds.length) throw conflict('privacy.erasure.held', { reasons: holds.map((h) => h.reason).join('; ') })
  const facts: ActionPreview['facts'] = []
  for (const { entity: e, rider: r } of riderEntities()) {
    const query = rowsOf(tx, e, rider)
    if (!query) continue
    const n = Number((await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
    if (n === 0) continue
    facts.push({ label: e.label[lang], value: t(lang, FACTS[r.erase], { count: n }) })
  }
  // Named by number, not by e-mail: a refusal's text reaches the operation log, which keeps no personal value.
  return { facts, secondConfirm: t(lang, 'privacy.erasure.secondConfirm', { id: memberId }) }
}

/** The member's Erase action (a job: a rider's devices may have years of positions). */
export async function eraseAction({ services, auth, rows, input, lang, signal, progress }: ActionArgs): Promise<ErasureResult> {
  // The preview's second confirmation is the action's: the engine refuses it without `confirmed` (workflow.ts checkPreview).
  const memberId = Number(rows[0]!.memberId)
  return eraseRider(services, memberId, { by: auth.userName, request: String(input.request ?? ''), lang, signal, progress })
}
