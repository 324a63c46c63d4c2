import { allEntities, GEN_NAME_PATTERN, LIST_PLACE_NAMES, MENU_CATALOGUE, type GenColumn, type GenKind, type GenTableConfig } from '@velo/shared'
import { snakeCase } from '../../../db/schema-gen/shape'
import type { DbColumnInfo } from './introspect'

// The default settings of an imported table, and the checks a table's settings pass before they
// are saved or turned into files.

/** The columns every audited table has (the foundation migration's audited()). */
export const AUDIT_COLUMN_NAMES = ['create_by', 'create_time', 'update_by', 'update_time', 'remark'] as const

/**
 * Words a generated file cannot take as a variable name (the entity key names the exported
 * constant): JavaScript's reserved words and the names the file imports.
 */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await arguments eval undefined defineEntity'
  ).split(' '),
)

/** camelCase of a snake_case (or any) name, reduced to a safe identifier; '' when nothing is left. */
export function camelName(name: string): string {
  const words = name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
  const joined = words.map((w, i) => (i ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join('')
  const safe = /^[0-9]/.test(joined) ? `t${joined}` : joined
  return safe.slice(0, 63)
}

const hasCjk = (s: string) => /[\u3000-\u9fff\uf900-\ufaff]/.test(s)

/** 'user_name' → 'User name'. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
  // Initialisms read as such: 'gadget_id' → 'Gadget ID'.
  const text = words.map((w) => (w === 'id' || w === 'url' || w === 'ip' ? w.toUpperCase() : w)).join(' ')
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : name
}

const fit = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 100).trim()

/** Both labels of a column or table from its database comment, else from its name. */
function labelsOf(name: string, comment: string): GenColumn['label'] {
  const said = fit(comment)
  const en = said && !hasCjk(said) ? said : fit(humanize(name)) || 'Field'
  return { en_US: en, zh_CN: said || en }
}

type Family = { kind: GenKind; int?: boolean }

/** The field kind a database type suggests. */
export function kindOfType(dbType: string, max: number | null): Family {
  const t = dbType.toLowerCase()
  if (/bool/.test(t)) return { kind: 'boolean' }
  if (/^(timestamp|datetime)/.test(t)) return { kind: 'datetime' }
  if (/^date$/.test(t)) return { kind: 'date' }
  const decimal = /^(numeric|decimal)\s*(\(\s*\d+\s*,\s*(\d+)\s*\))?/.exec(t)
  if (decimal) return decimal[3] === '2' ? { kind: 'money' } : { kind: 'number' }
  if (/int|serial/.test(t)) return { kind: 'number', int: true }
  if (/real|double|float/.test(t)) return { kind: 'number' }
  if (max !== null) return { kind: max > 255 ? 'longText' : 'text' }
  if (/text|clob|json/.test(t)) return { kind: 'longText' }
  return { kind: 'text' }
}

/** Whether a number column holds whole numbers (its field says `int: true`). */
export const isIntegerType = (dbType: string) => kindOfType(dbType, null).int === true

const TEXT_KINDS: readonly GenKind[] = ['text', 'longText', 'email', 'phone', 'dict', 'image']

/** The settings of one column as imported: the user edits them afterwards. */
export function defaultColumn(c: DbColumnInfo, fieldName: string, auditedTable: boolean): GenColumn {
  // Only a table with all five audit columns has them filled in by the server; elsewhere they are ordinary columns.
  const audit = auditedTable && (AUDIT_COLUMN_NAMES as readonly string[]).includes(c.column)
  let { kind } = kindOfType(c.dbType, c.max)
  // SQLite keeps times as text (the product's own tables do): the name says which text is a time.
  if (c.dbType === 'text' && /(_time|_at)$/.test(c.column)) kind = 'datetime'
  else if (c.dbType === 'text' && /(_date|_on)$/.test(c.column)) kind = 'date'
  if (c.primaryKey) kind = 'number'
  else if (c.column === 'parent_id') kind = 'treeParent'
  else if (TEXT_KINDS.includes(kind) && /(^|_)e?mail$/.test(c.column)) kind = 'email'
  const textual = TEXT_KINDS.includes(kind)
  const search: GenColumn['search'] =
    c.primaryKey || kind === 'longText' || kind === 'treeParent' || kind === 'image' || (audit && c.column !== 'create_time')
      ? ''
      : kind === 'date' || kind === 'datetime'
        ? 'range'
        : textual
          ? 'like'
          : 'eq'
  const hiddenAudit = audit && c.column !== 'create_time' && c.column !== 'remark'
  return {
    column: c.column,
    dbType: c.dbType.slice(0, 128),
    primaryKey: c.primaryKey,
    nullable: c.nullable,
    comment: c.comment.slice(0, 1000),
    name: fieldName,
    label: labelsOf(c.column, c.comment),
    kind,
    // The server sets the creation time of an audited row; every other NOT NULL column is asked for.
    required: !c.primaryKey && !c.nullable && !audit && kind !== 'treeParent',
    search,
    list: !hiddenAudit && kind !== 'longText' && c.column !== 'remark',
    form: !c.primaryKey && (!audit || c.column === 'remark'),
    export: !hiddenAudit,
    dict: '',
    max: c.max,
  }
}

const isAudited = (columns: readonly DbColumnInfo[]) => AUDIT_COLUMN_NAMES.every((name) => columns.some((c) => c.column === name))

/** The first catalogue area whose key starts the table's name ('service_part' → service), else tool. */
export function areaOf(table: string): string {
  return MENU_CATALOGUE.find((a) => table.toLowerCase().startsWith(`${a.key}_`))?.key ?? 'tool'
}

/** The settings of a table as imported: an entity key no definition has, its path and permission in its area. */
export function defaultConfig(table: string, comment: string, columns: readonly DbColumnInfo[], takenKeys: ReadonlySet<string>): GenTableConfig {
  const area = areaOf(table)
  const unprefixed = table.toLowerCase().startsWith(`${area}_`) ? table.slice(area.length + 1) : table
  const candidates = [camelName(unprefixed), camelName(table)].filter((k) => GEN_NAME_PATTERN.test(k))
  let entityKey = candidates.find((k) => !takenKeys.has(k) && !RESERVED.has(k)) ?? `${candidates[0] ?? 'generated'}`.slice(0, 60)
  for (let i = 2; takenKeys.has(entityKey) || RESERVED.has(entityKey) || !GEN_NAME_PATTERN.test(entityKey); i++) entityKey = `${(candidates[0] ?? 'generated').slice(0, 58)}${i}`
  const names = new Set<string>()
  const audited = isAudited(columns)
  const cols = columns.map((c, i) => {
    let name = camelName(c.column)
    if (!GEN_NAME_PATTERN.test(name)) name = `field${i + 1}`
    for (let n = 2; names.has(name); n++) name = `${name.slice(0, 58)}${n}`
    names.add(name)
    return defaultColumn(c, name, audited)
  })
  const parent = cols.find((c) => c.kind === 'treeParent')
  return {
    entityKey,
    area,
    path: `/${area}/${entityKey}`,
    permission: `${area}:${entityKey}`,
    label: labelsOf(unprefixed, comment),
    template: parent ? 'tree' : 'plain',
    treeParent: parent?.column ?? null,
    columns: cols,
  }
}

/**
 * A stored config brought up to the database's columns again: edits of the columns still there are
 * kept (their database facts refreshed), new ones get their defaults, gone ones are dropped.
 */
export function syncConfig(config: GenTableConfig, columns: readonly DbColumnInfo[]): GenTableConfig {
  const kept = new Map(config.columns.map((c) => [c.column, c]))
  const names = new Set(config.columns.filter((c) => columns.some((d) => d.column === c.column)).map((c) => c.name))
  const cols = columns.map((d, i) => {
    const prior = kept.get(d.column)
    if (prior) return { ...prior, dbType: d.dbType.slice(0, 128), primaryKey: d.primaryKey, nullable: d.nullable, comment: d.comment.slice(0, 1000), max: d.max }
    let name = camelName(d.column)
    if (!GEN_NAME_PATTERN.test(name)) name = `field${i + 1}`
    for (let n = 2; names.has(name); n++) name = `${name.slice(0, 58)}${n}`
    names.add(name)
    return defaultColumn(d, name, isAudited(columns))
  })
  const parentKept = cols.some((c) => c.column === config.treeParent && c.kind === 'treeParent')
  return { ...config, columns: cols, ...(parentKept ? {} : { treeParent: null, template: 'plain' as const }) }
}

/** A problem with one setting: the property it concerns ('columns.2.dict') and the words for it. */
export interface GenIssue {
  field: string
  key: GenIssueKey
  params?: Record<string, string | number>
}

export type GenIssueKey =
  | 'gen.keyTaken'
  | 'gen.keyReserved'
  | 'gen.pathTaken'
  | 'gen.pathOfPage'
  | 'gen.permissionTaken'
  | 'gen.unknownArea'
  | 'gen.nameTwice'
  | 'gen.nameReserved'
  | 'gen.nameColumn'
  | 'gen.tableName'
  | 'gen.onePrimaryKey'
  | 'gen.primaryKeyKind'
  | 'gen.treeNeedsParent'
  | 'gen.parentNeedsTree'
  | 'gen.unknownDict'
  | 'gen.searchKind'
  | 'gen.unknownColumn'

const LIKE_KINDS: readonly GenKind[] = ['text', 'longText', 'email', 'phone']
const RANGE_KINDS: readonly GenKind[] = ['number', 'money', 'date', 'datetime']

/**
 * What keeps the settings from making a definition that serves this table: checked on save and
 * again before any file is written. `dictTypes` are the dictionary types the database has.
 */
export function configIssues(tableName: string, config: GenTableConfig, dictTypes: ReadonlySet<string>, stored: GenTableConfig | null): GenIssue[] {
  const issues: GenIssue[] = []
  const others = allEntities()
  if (others.some((e) => e.key === config.entityKey)) issues.push({ field: 'entityKey', key: 'gen.keyTaken', params: { value: config.entityKey } })
  if (RESERVED.has(config.entityKey)) issues.push({ field: 'entityKey', key: 'gen.keyReserved', params: { value: config.entityKey } })
  if (others.some((e) => e.path === config.path)) issues.push({ field: 'path', key: 'gen.pathTaken', params: { value: config.path } })
  // The console finds a menu page's definition by the page's path (component '<area>/<key>/index').
  const pagePath = `/${config.area}/${config.entityKey}`
  if (config.path !== pagePath) issues.push({ field: 'path', key: 'gen.pathOfPage', params: { value: pagePath } })
  if (others.some((e) => e.permission === config.permission)) issues.push({ field: 'permission', key: 'gen.permissionTaken', params: { value: config.permission } })
  if (!MENU_CATALOGUE.some((a) => a.key === config.area)) issues.push({ field: 'area', key: 'gen.unknownArea', params: { value: config.area } })
  if (snakeCase(camelName(tableName)) !== tableName || !GEN_NAME_PATTERN.test(camelName(tableName))) issues.push({ field: 'tableName', key: 'gen.tableName' })
  const seen = new Set<string>()
  config.columns.forEach((c, i) => {
    const at = (p: string) => `columns.${i}.${p}`
    if (seen.has(c.name)) issues.push({ field: at('name'), key: 'gen.nameTwice', params: { value: c.name } })
    if (LIST_PLACE_NAMES.includes(c.name)) issues.push({ field: at('name'), key: 'gen.nameReserved', params: { value: c.name } })
    seen.add(c.name)
    if (snakeCase(c.name) !== c.column) issues.push({ field: at('name'), key: 'gen.nameColumn', params: { value: c.name } })
    if (stored && !stored.columns.some((s) => s.column === c.column)) issues.push({ field: at('column'), key: 'gen.unknownColumn' })
    if (c.primaryKey && c.kind !== 'number') issues.push({ field: at('kind'), key: 'gen.primaryKeyKind' })
    if (c.kind === 'dict' && !dictTypes.has(c.dict)) issues.push({ field: at('dict'), key: 'gen.unknownDict', params: { value: c.dict } })
    if ((c.search === 'like' && !LIKE_KINDS.includes(c.kind)) || (c.search === 'range' && !RANGE_KINDS.includes(c.kind)) || (c.search && c.kind === 'treeParent')) {
      issues.push({ field: at('search'), key: 'gen.searchKind' })
    }
  })
  if (config.columns.filter((c) => c.primaryKey).length !== 1) issues.push({ field: 'columns', key: 'gen.onePrimaryKey' })
  const parents = config.columns.filter((c) => c.kind === 'treeParent')
  if (config.template === 'tree' && (parents.length !== 1 || (config.treeParent !== null && parents[0]!.column !== config.treeParent))) {
    issues.push({ field: 'treeParent', key: 'gen.treeNeedsParent' })
  }
  if (config.template === 'plain' && parents.length) issues.push({ field: 'template', key: 'gen.parentNeedsTree' })
  return issues
}

/** The settings as saved: the database's facts of each column come from the stored config, never from the request. */
export function withStoredFacts(config: GenTableConfig, stored: GenTableConfig): GenTableConfig {
  const facts = new Map(stored.columns.map((c) => [c.column, c]))
  const parent = config.columns.find((c) => c.kind === 'treeParent')
  return {
    ...config,
    treeParent: config.template === 'tree' ? (parent?.column ?? null) : null,
    columns: config.columns.map((c) => {
      const f = facts.get(c.column)
      return f ? { ...c, dbType: f.dbType, primaryKey: f.primaryKey, nullable: f.nullable, comment: f.comment, max: f.max } : c
    }),
  }
}

