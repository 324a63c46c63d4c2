import { carriedName, entityByKey, type FieldDef, hiddenCategories, MASK, maskText, PARTLY_MASKED_KINDS, type PersonalCategory, type ResolvedEntity } from '@velo/shared'
import { type AuthContext, hasPermission } from '../rbac/auth-context'

// What a staff user sees of riders' personal data (shared/src/privacy.ts): every answer that carries
// rows of an entity passes them through maskRows with the caller's view, so a category the caller
// holds no right to leaves the server as a mask, whichever route, export or job carries it.

type Row = Record<string, unknown>

/** The categories of personal data a caller sees masked. */
export interface PrivacyView {
  readonly hidden: ReadonlySet<PersonalCategory>
}

/** Sees every value: the server's own reads, and callers holding every category's right. */
export const SEES_ALL: PrivacyView = { hidden: new Set() }

export function privacyViewOf(auth: AuthContext): PrivacyView {
  const hidden = hiddenCategories((permission) => hasPermission(auth, permission))
  return hidden.size ? { hidden } : SEES_ALL
}

const isHidden = (view: PrivacyView, f: FieldDef | undefined) => !!f?.personal && view.hidden.has(f.personal)

/** The entity's fields the view hides. */
export function hiddenFields(e: ResolvedEntity, view: PrivacyView): FieldDef[] {
  return view.hidden.size ? e.fields.filter((f) => isHidden(view, f)) : []
}

/**
 * Searchable fields the view hides: a search on one matches the whole value only (case aside), so a
 * rider can be found by the e-mail they give on the phone without the list revealing anyone else's.
 */
export function exactSearchFields(e: ResolvedEntity, view: PrivacyView): ReadonlySet<string> {
  return new Set(hiddenFields(e, view).flatMap((f) => (f.search === 'like' ? [f.name] : [])))
}

/** A value as the view shows it: a partial mask of a text, else null (named in the row's `masked`). */
export function maskValue(f: FieldDef, value: unknown): unknown {
  // A missing value hides nothing: blank stays blank.
  if (value === null || value === undefined || value === '') return value ?? null
  if (PARTLY_MASKED_KINDS.includes(f.kind) && typeof value === 'string') return maskText(f.kind, value)
  return null
}

/**
 * Masks, in place, the rows' values the view hides: the entity's own personal fields (named in
 * `masked`, which a row carries only when something of it was masked), each reference's label
 * where the referenced entity is named by a personal field (a ride's member, by e-mail), personal
 * fields a reference carries, and personal keys of a JSON text. Answers the rows.
 */
export function maskRows<R extends Row>(e: ResolvedEntity, rows: R[], view: PrivacyView): R[] {
  if (!view.hidden.size || !rows.length) return rows
  const own = hiddenFields(e, view)
  const labels: { name: string; field: FieldDef }[] = []
  const carried: string[] = []
  for (const f of e.fields) {
    if (f.kind !== 'reference' && f.kind !== 'referenceMany') continue
    const target = entityByKey(f.entity)
    const label = target.fieldMap.get(target.labelField)
    if (isHidden(view, label)) labels.push({ name: f.kind === 'reference' ? `${f.name}Label` : `${f.name}Labels`, field: label! })
    if (f.kind === 'reference') for (const c of f.carry ?? []) if (isHidden(view, target.fieldMap.get(c))) carried.push(carriedName(f.name, c))
  }
  const inJson = e.fields.filter((f) => f.personalKeys && view.hidden.has(f.personalKeys.category))
  if (!own.length && !labels.length && !carried.length && !inJson.length) return rows
  for (const r of rows) {
    const row = r as Row
    const masked: string[] = []
    for (const f of own) {
      if (!(f.name in row)) continue
      const value = row[f.name]
      row[f.name] = maskValue(f, value)
      // A missing value hides nothing: only values there are named as masked.
      if (value !== null && value !== undefined && value !== '') masked.push(f.name)
    }
    if (masked.length) row.masked = masked
    for (const { name, field } of labels) {
      const value = row[name]
      if (Array.isArray(value)) row[name] = value.map((v) => maskValue(field, v))
      else if (value !== undefined) row[name] = maskValue(field, value)
    }
    for (const name of carried) if (name in row) row[name] = null
    for (const f of inJson) if (typeof row[f.name] === 'string') row[f.name] = maskJsonKeys(row[f.name] as string, f.personalKeys!.keys)
  }
  return rows
}

/** A JSON text with the values of these top-level keys replaced by a mask; a text that is no JSON object as it was. */
export function maskJsonKeys(text: string, keys: readonly string[]): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return text
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return text
  const object = parsed as Row
  if (!keys.some((k) => k in object && object[k] !== null)) return text
  for (const k of keys) if (k in object && object[k] !== null) object[k] = MASK.repeat(3)
  return JSON.stringify(object)
}

/** One row, masked in place (maskRows). */
export const maskRow = <R extends Row>(e: ResolvedEntity, row: R, view: PrivacyView): R => maskRows(e, [row], view)[0]!

/** Whether the entity is named by a personal field the view hides (a member, by e-mail): its pickers are searched by the whole name. */
export const labelHidden = (e: ResolvedEntity, view: PrivacyView) => isHidden(view, e.fieldMap.get(e.labelField))

/** A picker's labels of an entity named by a personal field the view hides, masked in place. */
export function maskOptions<O extends { label: string }>(e: ResolvedEntity, options: O[], view: PrivacyView): O[] {
  if (!labelHidden(e, view)) return options
  const label = e.fieldMap.get(e.labelField)!
  for (const o of options) o.label = String(maskValue(label, o.label) ?? '')
  return options
}

/**
 * Batches of an export's rows given as arrays of values named by `columns` (EntityRepository.exportRead),
 * masked in place as they pass: each row goes through maskRows as an object, so the rules are the
 * list's to the letter, and only when the view hides something; for everyone else they pass as they are.
 */
export async function* maskRowArrays(e: ResolvedEntity, columns: readonly string[], batches: AsyncIterable<unknown[][]>, view: PrivacyView): AsyncGenerator<unknown[][]> {
  if (!view.hidden.size) return yield* batches
  for await (const rows of batches) {
    const objects = rows.map((row) => {
      const o: Row = {}
      for (let i = 0; i < columns.length; i++) o[columns[i]!] = row[i]
      return o
    })
    maskRows(e, objects, view)
    rows.forEach((row, r) => {
      for (let i = 0; i < columns.length; i++) row[i] = objects[r]![columns[i]!]
    })
    yield rows
  }
}
