import type { EntityDef, FieldDef, Operation } from './types'

const ALL_OPERATIONS: readonly Operation[] = ['list', 'get', 'add', 'edit', 'remove', 'export']

export interface ResolvedEntity extends EntityDef {
  operations: readonly Operation[]
  fieldMap: ReadonlyMap<string, FieldDef>
  searchable: readonly FieldDef[]
  sortable: ReadonlySet<string>
  listed: readonly FieldDef[]
  exported: readonly FieldDef[]
  writable: readonly FieldDef[]
}

/** Checks a definition once and precomputes what its consumers need; a bad definition fails at start. */
export function defineEntity(def: EntityDef): ResolvedEntity {
  const fieldMap = new Map<string, FieldDef>()
  for (const f of def.fields) {
    if (fieldMap.has(f.name)) throw new Error(`${def.key}: field ${f.name} is defined twice`)
    if (!/^[a-z][A-Za-z0-9]*$/.test(f.name)) throw new Error(`${def.key}: field name ${f.name} must be camelCase`)
    fieldMap.set(f.name, f)
  }
  const mustExist = (name: string, what: string) => {
    if (!fieldMap.has(name)) throw new Error(`${def.key}: ${what} ${name} is not a field`)
  }
  mustExist(def.idField, 'idField')
  mustExist(def.defaultSort.field, 'defaultSort')
  if (def.dataScope) {
    mustExist(def.dataScope.deptField, 'dataScope.deptField')
    if (def.dataScope.userField) mustExist(def.dataScope.userField, 'dataScope.userField')
  }
  const sortable = new Set(def.fields.filter((f) => f.sort).map((f) => f.name))
  sortable.add(def.defaultSort.field)
  return {
    ...def,
    operations: def.operations ?? ALL_OPERATIONS,
    fieldMap,
    searchable: def.fields.filter((f) => f.search),
    sortable,
    listed: def.fields.filter((f) => f.list !== false && !f.hidden),
    exported: def.fields.filter((f) => f.export !== false && !f.hidden),
    writable: def.fields.filter((f) => !f.readOnly && f.name !== def.idField),
  }
}
