import { useMemo, useState } from 'react'
import { Badge, Radio, type BadgeProps } from 'antd'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { EnumOption, FieldDef, ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { crudApi, crudKeys, type Filters, type StateCounts } from '../api/crudApi'

/** The bar's value for "every state" (a radio group needs one). */
const ALL = ''

/** Tag colours that are statuses draw a status dot; the rest are colours (gold, cyan). */
const STATUS_COLOURS = new Set<string>(['success', 'processing', 'default', 'error', 'warning'])
const dotOf = (color: string | undefined): BadgeProps | null =>
  !color ? null : STATUS_COLOURS.has(color) ? { status: color as BadgeProps['status'] } : { color }

/**
 * The status filter of a list of rows with states, when the status is searchable and the page does
 * not fix it itself: the chosen state is sent with the list, the export and everything else the
 * page's filters reach; the search form leaves the field out.
 */
export function useStateFilter(entity: ResolvedEntity, params: Filters, { initial, off = false }: StateFilterOptions = {}) {
  const field = entity.transitions?.field
  // The list takes only searchable fields as filters (anything else is a 400).
  const searched = field ? entity.searchable.find((f) => f.name === field) : undefined
  const shown = !!searched && !(field! in params) && !off
  const [chosen, setChosen] = useState<string | undefined>(initial)
  // A field searched with 'in' takes a list, even of one state.
  const forced = useMemo(
    () => (shown && chosen ? { ...params, [field!]: searched?.search === 'in' ? [chosen] : chosen } : params),
    [shown, chosen, params, field, searched],
  )
  return { field: shown ? field : undefined, chosen, choose: setChosen, forced }
}

export interface StateFilterOptions {
  /** The state chosen when the list opens (from the URL). */
  initial?: string
  /** No bar: the list's URL named several states, which the search form shows instead. */
  off?: boolean
}

/**
 * Rows per state for the list's other filters (its search and the page's), without its sort. The
 * counts are fetched again with the list: `reload` after a search or refresh, and an entity's
 * invalidation after a change reaches them too (their key is under the entity's).
 */
export function useStateCounts(entity: ResolvedEntity, filters: Filters, enabled: boolean) {
  const [round, setRound] = useState(0)
  const { orderByColumn: _orderByColumn, isAsc: _isAsc, ...body } = filters
  // A new round is a new key: one request even when the filters change at the same time.
  const query = useQuery({
    queryKey: [...crudKeys.counts(entity, body), round],
    queryFn: () => crudApi(entity).counts(body),
    enabled,
    placeholderData: keepPreviousData,
  })
  return { counts: query.data, reload: () => setRound((r) => r + 1) }
}

export interface StateFilterBarProps {
  entity: ResolvedEntity
  counts: StateCounts | undefined
  value: string | undefined
  onChange: (state: string | undefined) => void
}

/** "All (n)" and each state with its count, in the state's colour; a radio group, so arrow keys move between them. */
export function StateFilterBar({ entity, counts, value, onChange }: StateFilterBarProps) {
  const { t } = useTranslation()
  const field = entity.fieldMap.get(entity.transitions!.field) as FieldDef & { kind: 'enum' }
  const counted = (label: string, n: number | undefined) => (n === undefined ? label : `${label} (${n})`)
  const total = counts && Object.values(counts).reduce((sum, n) => sum + n, 0)
  const options = [
    { value: ALL, label: counted(t('crud.allStates'), total) },
    ...field.options.map((o: EnumOption) => {
      const dot = dotOf(o.color)
      const text = counted(localized(o.label), counts?.[o.value])
      // What the state means, when the definition says, as the button's tooltip.
      return { value: o.value, label: dot ? <Badge {...dot} text={text} /> : text, title: o.description && localized(o.description) }
    }),
  ]
  return (
    <Radio.Group
      className="crud-state-filter"
      optionType="button"
      options={options}
      value={value ?? ALL}
      onChange={(event) => onChange(event.target.value === ALL ? undefined : (event.target.value as string))}
      aria-label={t('crud.stateFilter', { field: localized(field.label) })}
      data-testid="state-filter"
    />
  )
}
