import { Space } from 'antd'
import type { ColumnType } from 'antd/es/table'
import { carriedName, entityByKey, type FieldDef, type ResolvedEntity } from '@velo/shared'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { kindOf } from '../kinds/kindTable'
import type { CellProps, CellRenderer } from '../kinds/types'
import { Masked } from '../privacy/Masked'
import { isMaskedIn } from '../privacy/personal'
import type { ListSort } from './useEntityList'

export type ListColumn<R extends Row = Row> = ColumnType<R> & { key: string }

/** Calls a page's cell renderer inside a component of its own, so the renderer may use hooks. */
function RenderedCell<R>({ render, ...props }: CellProps<FieldDef, R> & { render: CellRenderer<R> }) {
  return render(props)
}

/** A reference's label, then the fields it carries of the referenced row (an IoT device's SN and its state), each as its kind shows it. */
function CarryingCell<R extends Row>({ entity, field, value, row }: CellProps<FieldDef, R>) {
  const kind = kindOf(field)
  if (field.kind !== 'reference' || !field.carry) return null
  const target = entityByKey(field.entity)
  return (
    <Space size={4} wrap={false}>
      <kind.Cell entity={entity} field={field} value={value} row={row} />
      {value !== null && value !== undefined
        ? field.carry.map((name) => {
            const carried = target.fieldMap.get(name)!
            const CarriedCell = kindOf(carried).Cell
            return <CarriedCell key={name} entity={target} field={carried} value={row[carriedName(field.name, name)]} row={row} />
          })
        : null}
    </Space>
  )
}

/**
 * The table's columns from the definition's listed fields: the label in the page's language, the
 * kind's cell (or the page's own, which gets the entity's row `R`), and a server-side sorter where
 * the definition allows sorting. A personal value the row names as masked shows as a mask, whoever's
 * cell it is: a hidden value must not read as a missing one.
 */
export function listColumns<R extends Row = Row>(e: ResolvedEntity, sort: ListSort | null, cells: Readonly<Record<string, CellRenderer<R>>> = {}): ListColumn<R>[] {
  return e.listed.map((field): ListColumn<R> => {
    const kind = kindOf(field)
    const own = cells[field.name]
    const Cell = field.kind === 'reference' && field.carry?.length ? CarryingCell : kind.Cell
    const sortable = e.sortable.has(field.name)
    return {
      ...kind.column,
      key: field.name,
      dataIndex: field.name,
      title: localized(field.label),
      ...(sortable
        ? {
            sorter: true,
            sortDirections: ['ascend', 'descend'] as const,
            sortOrder: sort?.field === field.name ? (sort.order === 'asc' ? 'ascend' : 'descend') : null,
          }
        : {}),
      render: (value: unknown, row: R) =>
        isMaskedIn(row, field) ? (
          <Masked category={field.personal!} value={value} />
        ) : own ? (
          <RenderedCell render={own} entity={e} field={field} value={value} row={row} />
        ) : (
          <Cell entity={e} field={field} value={value} row={row} />
        ),
    }
  })
}
