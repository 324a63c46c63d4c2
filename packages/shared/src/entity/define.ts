import type { EntityDef, FieldDef, Operation } from './types'

const ALL_OPERATIONS: readonly Operation[] = ['list', 'get', 'add', 'edit', 'remove', 'export', 'import']

export interface ResolvedEntity extends EntityDef {
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
}

const isWritable = (f: FieldDef, idField: string) => !f.readOnly && f.name !== idField

/** Checks a definition once and precomputes what its consumers need; a bad definition fails at start. */
export function defineEntity(def: EntityDef): ResolvedEntity {
  const fieldMap = new Map<string, FieldDef>()
  for (const f of def.fields) {
    if (fieldMap.has(f.name)) throw new Error(`${def.key}: field ${f.name} is defined twice`)
    if (!/^[a-z][A-Za-z0-9]*$/.test(f.name)) throw new Error(`${def.key}: field name ${f.name} must be camelCase`)
    if (f.search === 'subtree' && f.kind !== 'reference' && f.kind !== 'treeParent') {
      throw new Error(`${def.key}: ${f.name} searches a subtree but refers to no tree`)
    }
    fieldMap.set(f.name, f)
  }
  const mustExist = (name: string, what: string) => {
    if (!fieldMap.has(name)) throw new Error(`${def.key}: ${what} ${name} is not a field`)
  }
  for (const f of def.fields) if (f.when) mustExist(f.when.field, `${f.name}.when`)
  mustExist(def.idField, 'idField')
  mustExist(def.defaultSort.field, 'defaultSort')
  if (def.dataScope) {
    mustExist(def.dataScope.deptField, 'dataScope.deptField')
    if (def.dataScope.userField) mustExist(def.dataScope.userField, 'dataScope.userField')
  }
  const labelField = def.labelField ?? def.fields.find((f) => f.kind === 'text')?.name ?? def.idField
  mustExist(labelField, 'labelField')
  const parents = def.fields.filter((f) => f.kind === 'treeParent')
  if (parents.length > 1) throw new Error(`${def.key}: a tree has one parent field`)
  const sortable = new Set(def.fields.filter((f) => f.sort).map((f) => f.name))
  sortable.add(def.defaultSort.field)
  const writable = def.fields.filter((f) => isWritable(f, def.idField))
  const readable = def.fields.filter((f) => f.kind !== 'password')
  const stored = readable.filter((f) => f.kind !== 'referenceMany')
  return {
    ...def,
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
  }
}
