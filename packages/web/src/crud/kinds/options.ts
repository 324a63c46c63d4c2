import { useMemo, type Key } from 'react'
import type { DataNode } from 'antd/es/tree'
import { useQuery } from '@tanstack/react-query'
import { entityByKey, type EnumOption, type FieldDef, type ResolvedEntity, timeZoneNames } from '@velo/shared'
import i18n, { localized } from '../../i18n'
import { crudApi, crudKeys, type Row } from '../api/crudApi'
import { useDict, type DictItem } from '../api/dicts'
import { nestRows, type TreeRow } from '../tree'

// The choices of the kinds that have them (dictionary, fixed list, yes/no, time zone, rows of another
// entity), in one shape for tags, selects, radios and trees.

export type OptionValue = string | number | boolean

export interface FieldOption {
  value: OptionValue
  label: string
  /** Tag colour in lists; none means the value shows as plain text. */
  color?: string
  /** What choosing it means (the definition's `description`), shown under it where it is chosen. */
  description?: string
}

export interface TreeOption {
  value: string | number
  title: string
  children?: TreeOption[]
  disabled?: boolean
}

export interface FieldOptions {
  options: FieldOption[]
  /** Set when the choices are the nodes of a tree entity. */
  tree: TreeOption[] | null
  /** The referenced tree's nested rows (for excluding a node's own subtree). */
  nodes: TreeRow[]
  loading: boolean
  /** Asks the server again (a picker opening: rows added since the list's search form loaded them). */
  refresh?: () => void
}

/** Dictionary list styles (RuoYi's listClass) → antd tag colours; '' shows plain text. */
const LIST_CLASS_COLORS: Record<string, string> = {
  default: 'default',
  primary: 'processing',
  success: 'success',
  info: 'default',
  warning: 'warning',
  danger: 'error',
}

export const dictOption = (item: DictItem): FieldOption => ({
  value: item.dictValue,
  label: i18n.language === 'zh_CN' && item.dictLabelZh ? item.dictLabelZh : item.dictLabel,
  color: item.listClass ? (LIST_CLASS_COLORS[item.listClass] ?? item.listClass) : undefined,
})

let timeZones: FieldOption[] | undefined
/** The runtime's IANA zones, the same list the server checks against. */
export function timeZoneOptions(): FieldOption[] {
  timeZones ??= timeZoneNames().map((zone) => ({ value: zone, label: zone }))
  return timeZones
}

/** A fixed list's choice in the page's language, with what it means when the definition says. */
export const enumOption = (o: EnumOption): FieldOption => ({
  value: o.value,
  label: localized(o.label),
  color: o.color ?? 'default',
  ...(o.description ? { description: localized(o.description) } : {}),
})

const booleanOptions = (alarm = false): FieldOption[] => [
  { value: true, label: i18n.t('crud.yes'), color: alarm ? 'error' : 'success' },
  { value: false, label: i18n.t('crud.no'), color: 'default' },
]

/** The entity a field's values are ids of: the referenced one, or the field's own for a tree parent. */
export function referencedEntity(owner: ResolvedEntity, f: FieldDef): ResolvedEntity | null {
  if (f.kind === 'reference' || f.kind === 'referenceMany') return entityByKey(f.entity)
  if (f.kind === 'treeParent') return owner
  return null
}

/**
 * The choices of an entity for other forms' pickers (GET {path}/options), as rows of that entity
 * (id, label field and, for a tree, the parent), cached under it so its changes refresh them. The
 * entity is whichever a field refers to, so they are `Row`s keyed by the definition's names.
 */
export function useEntityRows(e: ResolvedEntity | null, params?: Record<string, number | string>) {
  return useQuery({
    queryKey: e ? [...crudKeys.options(e), params ?? {}] : ['crud', 'none'],
    queryFn: async (): Promise<Row[]> => {
      const entity = e as ResolvedEntity
      const options = await crudApi(entity).options(params)
      return options.map((o) => ({
        [entity.idField]: o.value,
        [entity.labelField]: o.label,
        ...(entity.treeParent ? { [entity.treeParent]: o.parentId ?? 0 } : {}),
      }))
    },
    enabled: e !== null,
    staleTime: 60_000,
  })
}

export function toTreeOptions(nodes: readonly TreeRow[], e: ResolvedEntity): TreeOption[] {
  return nodes.map((n) => ({
    value: n[e.idField] as string | number,
    title: String(n[e.labelField] ?? n[e.idField]),
    ...(n.children?.length ? { children: toTreeOptions(n.children, e) } : {}),
  }))
}

/** Tree options as antd Tree nodes (keyed by id). */
export const toDataNodes = (nodes: readonly TreeOption[]): DataNode[] =>
  nodes.map((n) => ({ key: n.value as Key, title: n.title, ...(n.children ? { children: toDataNodes(n.children) } : {}) }))

const rowOption = (e: ResolvedEntity) => (row: Row): FieldOption => ({
  value: row[e.idField] as OptionValue,
  label: String(row[e.labelField] ?? row[e.idField]),
})

/**
 * The rows of an entity as choices (`params`: those of one owner, `{modelId: 3}`; those named like a
 * keyword; one by id): a list, and for a tree entity its nested nodes too.
 */
export function useEntityChoices(e: ResolvedEntity | null, params?: Record<string, number | string>): FieldOptions {
  const rows = useEntityRows(e, params)
  return useMemo(() => {
    const list = rows.data ?? []
    const nodes = e?.treeParent ? nestRows(list, e.idField, e.treeParent) : []
    return {
      options: e ? list.map(rowOption(e)) : [],
      tree: e?.treeParent ? toTreeOptions(nodes, e) : null,
      nodes,
      loading: rows.isPending && rows.fetchStatus !== 'idle',
      refresh: () => void rows.refetch(),
    }
  }, [e, rows.data, rows.isPending, rows.fetchStatus, rows.refetch])
}

/** The choices of one field; hooks run in the same order for every kind, only the enabled query fetches. */
export function useFieldOptions(owner: ResolvedEntity, f: FieldDef): FieldOptions {
  const dict = useDict(f.kind === 'dict' ? f.dict : null)
  const referenced = useEntityChoices(referencedEntity(owner, f))
  return useMemo(() => {
    const none = { options: [], tree: null, nodes: [], loading: false }
    switch (f.kind) {
      case 'dict':
        return { ...none, options: (dict.data ?? []).map(dictOption), loading: dict.isPending && dict.fetchStatus !== 'idle' }
      case 'enum':
        return { ...none, options: f.options.map(enumOption) }
      case 'boolean':
        return { ...none, options: booleanOptions(f.alarm) }
      case 'timeZone':
        return { ...none, options: timeZoneOptions() }
      case 'reference':
      case 'referenceMany':
      case 'treeParent':
        return referenced
      default:
        return none
    }
  }, [f, dict.data, dict.isPending, dict.fetchStatus, referenced])
}
