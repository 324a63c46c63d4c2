import type { ColumnType } from 'antd/es/table'
import type { ResolvedEntity } from '@velo/shared'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { kindOf } from '../kinds/kindTable'
import type { CellProps, CellRenderer } from '../kinds/types'
import type { ListSort } from './useEntityList'

export type ListColumn = ColumnType<Row> & { key: string }

/** Calls a page's cell renderer inside a component of its own, so the renderer may use hooks. */
function RenderedCell({ render, ...props }: CellProps & { render: CellRenderer }) {
  return render(props)
}

/**
 * The table's columns from the definition's listed fields: the label in the page's language, the
 * kind's cell (or the page's own), and a server-side sorter where the definition allows sorting.
 */
export function listColumns(e: ResolvedEntity, sort: ListSort | null, cells: Readonly<Record<string, CellRenderer>> = {}): ListColumn[] {
  return e.listed.map((field): ListColumn => {
    const kind = kindOf(field)
    const own = cells[field.name]
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
      render: (value: unknown, row: Row) => own ? <RenderedCell render={own} entity={e} field={field} value={value} row={row} /> : <kind.Cell entity={e} field={field} value={value} row={row} />,
    }
  })
}
