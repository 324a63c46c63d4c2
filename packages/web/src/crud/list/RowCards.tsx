import type { Key, ReactNode } from 'react'
import { Card, Checkbox, Descriptions, Empty, Spin } from 'antd'
import type { ColumnType } from 'antd/es/table'
import type { ResolvedEntity } from '@velo/shared'
import type { Row } from '../api/crudApi'
import { keyColumnOf } from './keyColumn'

// On a phone a table of many columns leaves room for the selection box and the fixed Actions
// column only: the reader cannot tell which row a button acts on. Below the mobile breakpoint the
// list shows each row as a card instead: the row's name on top (with its box), its other columns
// as label and value below, and its actions at the foot.

type CardColumn<R> = ColumnType<R> & { key: string }

/** What a column shows for a row: its render, else its value. */
function cellOf<R extends Row>(column: CardColumn<R>, row: R, index: number): ReactNode {
  const value = row[column.key]
  return column.render ? (column.render(value, row, index) as ReactNode) : (value as ReactNode)
}

export interface RowCardsProps<R extends Row> {
  entity: ResolvedEntity
  rows: readonly R[]
  /** The list's columns as the table would show them (the Actions column apart). */
  columns: readonly CardColumn<R>[]
  actions?: (row: R) => ReactNode
  loading: boolean
  /** Set when rows can be ticked, as in the table. */
  selection?: { selectedKeys: readonly Key[]; onChange: (keys: Key[]) => void }
}

/** The rows of a list as cards (phones): see above. */
export function RowCards<R extends Row>({ entity, rows, columns, actions, loading, selection }: RowCardsProps<R>) {
  const keyColumn = keyColumnOf(entity, columns)
  const rest = columns.filter((c) => c !== keyColumn)
  const toggle = (id: Key, on: boolean) => {
    if (!selection) return
    const others = selection.selectedKeys.filter((k) => k !== id)
    selection.onChange(on ? [...others, id] : others)
  }
  return (
    <Spin spinning={loading}>
      <div className="crud-cards" data-testid="crud-cards">
        {rows.length === 0 && !loading && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />}
        {rows.map((row, index) => {
          const id = row[entity.idField] as Key
          return (
            <Card
              key={id}
              size="small"
              className="crud-card"
              data-testid="crud-card"
              title={
                <span className="crud-card-title">
                  {selection && <Checkbox checked={selection.selectedKeys.includes(id)} onChange={(e) => toggle(id, e.target.checked)} data-testid="crud-card-select" />}
                  <span className="crud-card-key" data-testid="crud-card-key">
                    {keyColumn ? cellOf(keyColumn, row, index) : String(id)}
                  </span>
                </span>
              }
            >
              {rest.length > 0 && (
                <Descriptions
                  size="small"
                  column={1}
                  colon={false}
                  className="crud-card-fields"
                  items={rest.map((c) => ({ key: c.key, label: c.title as ReactNode, children: cellOf(c, row, index) }))}
                />
              )}
              {actions && (
                <div className="crud-card-actions" data-testid="crud-card-actions">
                  {actions(row)}
                </div>
              )}
            </Card>
          )
        })}
      </div>
    </Spin>
  )
}
