import type { Language } from '../api'
import type { EntityDef, FieldDef, Label, Operation } from './types'
import { checkRelatedDefinition } from './related'
import { checkWorkflow } from './workflow'
import { checkStates } from './states'

export * from './related'

const ALL_OPERATIONS: readonly Operation[] = ['list', 'get', 'add', 'edit', 'remove', 'export', 'import']

/** Type only: the key under which a resolved entity's type keeps its definition as written (row-types.ts). */
declare const DEFINITION: unique symbol

/** A checked definition with what its consumers need; `D` is the definition as written (for `RowOf`). */
export interface ResolvedEntity<D extends EntityDef = EntityDef> extends EntityDef {
  /** As the definition writes them (a literal for a literal definition), so SQL typed against the server's Database can name the table and id through the definition. */
  table: D['table']
  idField: D['idField']
  singular: Label
  operations: readonly Operation[]
  labelField: string
  fieldMap: ReadonlyMap<string, FieldDef>
  searchable: readonly FieldDef[]
  sortable: ReadonlySet<string>
  listed: readonly FieldDef[]
  exported: readonly FieldDef[]
  /** Fields a client may send on add (on modify, minus the immutable ones and passwords). */
  writable: readonly FieldDef[]
  /** Columns of the import template, in order. */
  imported: readonly FieldDef[]
  /** Fields of the add/modify form. */
  formFields: readonly FieldDef[]
  /** Columns read from the table: every field but passwords and links. */
  columns: readonly string[]
  /** Matches import rows to existing ones when updating: the first unique field. */
  importKey: string | null
  /** The parent field when the entity is a tree. */
  treeParent: string | null
  /** Other entities' rows listed in a row's details; checked against them by relatedListsOf. */
  related: NonNullable<EntityDef['related']>
  /** Never set: carries the literal type of the definition, so `RowOf<typeof faq>` can read its fields. */
  readonly [DEFINITION]?: D
}

// The status of an entity with transitions changes only through its steps, never by add, modify or import.
const isWritable = (f: FieldDef, def: EntityDef) => !f.readOnly && f.name !== def.idField && f.name !== def.transitions?.field

/**
 * One row's name from a list's label, for definitions that do not give one: English in sentence
 * case and singular ('System users' → 'system user', 'Countries' → 'country'; 'IoT model' stays),
 * Chinese without a trailing 管理 ('用户管理' → '用户').
 */
/** Names a field may not take: a list call's paging and sort, and the list's URL parameters. */
export const LIST_PLACE_NAMES: readonly string[] = ['pageNum', 'pageSize', 'orderByColumn', 'isAsc']

export function singularOf(label: Label): Label {
  const words = label.en_US.split(' ')
  const last = words.at(-1) ?? ''
  words[words.length - 1] = /ies$/.test(last) ? last.replace(/ies$/, 'y') : /[^su]s$/.test(last) ? last.slice(0, -1) : last
  const first = words[0] ?? ''
  // An acronym or a name (IoT, FAQ) keeps its capitals.
  if (!/^[A-Z][A-Z]/.test(first) && !/[A-Z]/.test(first.slice(1))) words[0] = first.charAt(0).toLowerCase() + first.slice(1)
  return { en_US: words.join(' '), zh_CN: label.zh_CN.replace(/管理$/, '') || label.zh_CN }
}

type FieldOfKind<F> = F extends { kind: infer K } ? Extract<FieldDef, { kind: K }> : FieldDef

/**
 * Type only: with the definition's literal type inferred (for RowOf), TypeScript no longer refuses
 * unknown properties; this does, on the definition and on each field (a misspelt `lable: …` is an
 * error at that property, "not assignable to type 'never'").
 */
type KnownKeysOnly<D extends EntityDef> = Record<Exclude<keyof D, keyof ResolvedEntity>, never> & { fields: KnownFieldKeysOnly<D['fields']> }
// Fields given as a fixed list are checked one by one; a list with a spread in it (`[...base, x]`) is not.
type KnownFieldKeysOnly<T> = T extends readonly unknown[] ? (number extends T['length'] ? unknown : { [I in keyof T]: Record<Exclude<keyof T[I], keyof FieldOfKind<T[I]>>, never> }) : unknown

/** Checks a definition once and precomputes what its consumers need; a bad definition fails at start. */
export function defineEntity<const D extends EntityDef>(def: D & KnownKeysOnly<D>): ResolvedEntity<D> {
  const fieldMap = new Map<string, FieldDef>()
  for (const f of def.fields) {
    if (fieldMap.has(f.name)) throw new Error(`${def.key}: field ${f.name} is defined twice`)
    if (!/^[a-z][A-Za-z0-9]*$/.test(f.name)) throw new Error(`${def.key}: field name ${f.name} must be camelCase`)
    if (f.search === 'subtree' && f.kind !== 'reference' && f.kind !== 'treeParent') {
      throw new Error(`${def.key}: ${f.name} searches a subtree but refers to no tree`)
    }
    // A link field filters its rows by one linked id (the rows linked to it); no other test is served.
    if (f.kind === 'text' && f.check && f.check !== 'luhn') throw new Error(`${def.key}: ${f.name} has an unknown check ${String(f.check)}`)
    if (f.kind === 'referenceMany' && f.search && f.search !== 'eq') throw new Error(`${def.key}: ${f.name} links rows: its search can only be 'eq'`)
    fieldMap.set(f.name, f)
  }
  const mustExist = (name: string, what: string) => {
    if (!fieldMap.has(name)) throw new Error(`${def.key}: ${what} ${name} is not a field`)
  }
  for (const f of def.fields) if (f.when) mustExist(f.when.field, `${f.name}.when`)
  for (const f of def.fields) if (f.kind === 'reference' && f.within) mustExist(f.within, `${f.name}.within`)
  for (const f of def.fields) {
    if (!f.typedBy) continue
    mustExist(f.typedBy.field, `${f.name}.typedBy`)
    if (f.kind !== 'text' && f.kind !== 'longText') throw new Error(`${def.key}: ${f.name} is typed by another field, so it must be text`)
  }
  if (def.app) {
    for (const name of def.app.fields) mustExist(name, 'app.fields')
    for (const name of def.app.filters ?? []) mustExist(name, 'app.filters')
    if (def.app.published) mustExist(def.app.published.field, 'app.published')
    if (def.app.window) for (const name of [def.app.window.start, def.app.window.end]) mustExist(name, 'app.window')
    if (def.app.language) mustExist(def.app.language, 'app.language')
    if (def.app.country) mustExist(def.app.country, 'app.country')
    if (def.app.sort) mustExist(def.app.sort.field, 'app.sort')
    for (const name of def.app.fields) {
      if (fieldMap.get(name)!.kind === 'password') throw new Error(`${def.key}: app.fields ${name} is a password`)
    }
  }
  if (def.slice) {
    const { column, value } = def.slice
    if (fieldMap.has(column) || !def.storage?.columns?.some((c) => c.name === column && c.kind === 'text' && c.required)) {
      throw new Error(`${def.key}: slice column ${column} must be a required text storage column, not a field`)
    }
    if (!/^[a-z][A-Za-z0-9]*$/.test(value)) throw new Error(`${def.key}: slice value ${value} must be a plain word`)
  }
  for (const f of def.fields) {
    // The list call's paging and sort, and the list's URL (web crud/list/urlFilters.ts), use these names beside the fields'.
    if (LIST_PLACE_NAMES.includes(f.name)) throw new Error(`${def.key}.${f.name}: the name is a list's page or sort (${LIST_PLACE_NAMES.join(', ')}); name the field otherwise`)
    if (f.sortBy && (!f.sort || !def.storage?.columns?.some((c) => c.name === f.sortBy))) throw new Error(`${def.key}.${f.name}: sortBy ${f.sortBy} needs sort and must name a storage column`)
  }
  checkWorkflow(def, fieldMap)
  checkStates(def, fieldMap)
  checkRelatedDefinition(def)
  mustExist(def.idField, 'idField')
  mustExist(def.defaultSort.field, 'defaultSort')
  checkScopeDefinition(def, fieldMap)
  const labelField = def.labelField ?? def.fields.find((f) => f.kind === 'text')?.name ?? def.idField
  mustExist(labelField, 'labelField')
  for (const name of Object.values(def.labelFieldByLanguage ?? {})) mustExist(name, 'labelFieldByLanguage')
  const parents = def.fields.filter((f) => f.kind === 'treeParent')
  if (parents.length > 1) throw new Error(`${def.key}: a tree has one parent field`)
  const sortable = new Set(def.fields.filter((f) => f.sort).map((f) => f.name))
  sortable.add(def.defaultSort.field)
  const writable = def.fields.filter((f) => isWritable(f, def))
  const readable = def.fields.filter((f) => f.kind !== 'password')
  const stored = readable.filter((f) => f.kind !== 'referenceMany')
  return {
    ...def,
    singular: def.singular ?? singularOf(def.label),
    operations: def.operations ?? ALL_OPERATIONS,
    labelField,
    fieldMap,
    searchable: def.fields.filter((f) => f.search),
    sortable,
    listed: readable.filter((f) => (f.list ?? f.kind !== 'referenceMany') && !f.hidden),
    exported: stored.filter((f) => f.export !== false && !f.hidden),
    writable,
    imported: writable.filter((f) => f.import ?? !['password', 'image', 'file', 'richText', 'referenceMany'].includes(f.kind)),
    formFields: writable.filter((f) => f.form !== false),
    columns: stored.map((f) => f.name),
    importKey: def.fields.find((f) => f.unique)?.name ?? null,
    treeParent: parents[0]?.name ?? null,
    related: def.related ?? [],
  }
}

/**
 * What a scope declaration says alone: an owner's columns are this entity's fields of the right kind
 * (`person` may also be the audit column createBy), and `none` gives its reason in both languages.
 * What needs the other entities (a `via` target that has an owner, a `heldBy` reference to this
 * entity) is checked by scopeProblems once every definition is registered.
 */
function checkScopeDefinition(def: EntityDef, fieldMap: Map<string, FieldDef>) {
  const s = def.scope
  if (!s) return
  const where = `${def.key}: scope`
  if (s.none !== undefined) {
    if (!s.none.en_US?.trim() || !s.none.zh_CN?.trim()) throw new Error(`${where}.none must say why in en_US and zh_CN`)
    return
  }
  // The row's own id counts as a reference to its own entity (a department owns itself).
  const refersTo = (name: string, entity: string) => {
    const f = fieldMap.get(name)
    return name === def.idField ? def.key === entity : f?.kind === 'reference' && f.entity === entity
  }
  if (!s.dept && !s.country && !s.via && !s.heldBy && !s.person) throw new Error(`${where} names no owner: say dept, country, via, heldBy or person, or none with the reason`)
  if (s.dept && !refersTo(s.dept, 'dept')) throw new Error(`${where}.dept ${s.dept} must be a reference to dept (or the id of dept)`)
  if (s.country && !refersTo(s.country, 'country')) throw new Error(`${where}.country ${s.country} must be a reference to country`)
  if (s.via && fieldMap.get(s.via)?.kind !== 'reference') throw new Error(`${where}.via ${s.via} must be a reference field`)
  if (s.person && s.person !== 'createBy' && !refersTo(s.person, 'user')) throw new Error(`${where}.person ${s.person} must be a reference to user (or the id of user), or createBy`)
  if (s.person === 'createBy' && def.storage?.audited === false) throw new Error(`${where}.person createBy needs the audit columns`)
}

/**
 * The field that names a row of `e` to a reader of `lang`: the definition's field for that language
 * (a country's Chinese name), else its label field. Lists, details, pickers, exports and the
 * dashboards name rows through it, so a name reads the same everywhere in one language.
 */
export function labelFieldIn(e: Pick<ResolvedEntity, 'labelField' | 'labelFieldByLanguage'>, lang: Language): string {
  return e.labelFieldByLanguage?.[lang] ?? e.labelField
}
