import type { ColumnType } from 'antd/es/table'
import type { ResolvedEntity } from '@velo/shared'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { kindOf } from '../kinds/kindTable'
import type { ListSort } from './useEntityList'

export type ListColumn = ColumnType<Row> & { key: string }

/**
 * The table's columns from the definition's listed fields: the label in the page's language, the
 * kind's cell, and a server-side sorter where the definition allows sorting.
 */
export function listColumns(e: ResolvedEntity, sort: ListSort | null): ListColumn[] {
  return e.listed.map((field): ListColumn => {
    const kind = kindOf(field)
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
      render: (value: unknown, row: Row) => <kind.Cell entity={e} field={field} value={value} row={row} />,
    }
  })
}
