import type { HTMLAttributes, TdHTMLAttributes } from 'react'
import { Table } from 'antd'
import type { ColumnType } from 'antd/es/table'
import type { FigureData, FigureValue } from '@velo/shared'
import { localized } from '../i18n'
import { formatValue } from './format'
import type { ShownColumn } from './chartOption'

type TableRow = { key: number; values: FigureValue[] }

const TEXT_UNITS = new Set(['text', 'day', 'week', 'month'])

/** A figure's rows as a table, columns labelled in the page's language and values in their units. */
export function FigureTable({ figureKey, data, shown }: { figureKey: string; data: FigureData; shown: ShownColumn[] }) {
  const columns: ColumnType<TableRow>[] = shown.map(({ column, index }) => ({
    key: column.key,
    title: localized(column.label),
    align: TEXT_UNITS.has(column.unit) ? 'left' : 'right',
    render: (_: unknown, row: TableRow) => formatValue(row.values[index], column.unit),
    onCell: () => ({ 'data-testid': `cell-${figureKey}-${column.key}` }) as TdHTMLAttributes<HTMLTableCellElement>,
  }))
  return (
    <Table<TableRow>
      size="small"
      columns={columns}
      dataSource={data.rows.map((values, key) => ({ key, values }))}
      // Every row in the page (a day-by-day figure has up to 400), scrolled within the figure's height.
      pagination={false}
      scroll={{ x: 'max-content', ...(data.rows.length > 10 ? { y: 320 } : {}) }}
      onRow={(_row, i) => ({ 'data-testid': `row-${figureKey}-${i}` }) as HTMLAttributes<HTMLTableRowElement>}
      data-testid={`table-${figureKey}`}
    />
  )
}
