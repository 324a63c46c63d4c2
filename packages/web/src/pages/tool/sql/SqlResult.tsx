import { useMemo } from 'react'
import { Empty, Table, Typography, theme } from 'antd'
import type { ColumnsType } from 'antd/es/table'
import type { SqlRunResult, SqlValue } from '@velo/shared'
import { useTranslation } from 'react-i18next'

/** Cells wider than this are cut with an ellipsis; hovering shows the whole text. */
const CELL_MAX_WIDTH = 320
/** Texts this long may be cut, so they carry their whole text for hovering. */
const LONG_TEXT = 32
export const PAGE_SIZES = [10, 20, 50, 100]

interface ResultRow {
  key: number
  cells: SqlValue[]
}

function Cell({ value }: { value: SqlValue }) {
  const { token } = theme.useToken()
  if (value === null) {
    return (
      <span style={{ color: token.colorTextQuaternary, fontStyle: 'italic' }} data-null="true">
        NULL
      </span>
    )
  }
  const text = String(value)
  return (
    <span
      title={text.length >= LONG_TEXT ? text : undefined}
      style={{ display: 'inline-block', maxWidth: CELL_MAX_WIDTH, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', verticalAlign: 'bottom' }}
    >
      {text}
    </span>
  )
}

/** The line above the rows: how many, how fast, and whether the caps stopped them. */
export function SqlSummary({ result }: { result: SqlRunResult }) {
  const { t } = useTranslation()
  const ms = result.durationMs
  const truncated =
    result.truncated === 'rows' ? t('tool.sql.truncatedRows', { cap: result.rows.length.toLocaleString() }) : result.truncated === 'size' ? t('tool.sql.truncatedSize') : null
  return (
    <Typography.Text data-testid="sql-summary">
      {result.kind === 'write' ? (
        <>
          <span data-testid="sql-affected">{t('tool.sql.affected', { count: result.rowsAffected ?? 0, ms })}</span>
          {result.columns.length > 0 && ` — ${t('tool.sql.returned', { count: result.rows.length })}`}
        </>
      ) : (
        t('tool.sql.rows', { count: result.rows.length, ms })
      )}
      {truncated && (
        <Typography.Text type="warning" data-testid="sql-truncated">
          {` — ${truncated}`}
        </Typography.Text>
      )}
    </Typography.Text>
  )
}

/**
 * A statement's answer: the columns it named (with the database's type as a hint) and its rows,
 * paged in the browser since the server already capped them.
 */
export function SqlResultTable({ result }: { result: SqlRunResult }) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  const data = useMemo<ResultRow[]>(() => result.rows.map((cells, key) => ({ key, cells })), [result])
  // Keyed by position: a statement may name two columns alike (`a.id, b.id`).
  const columns = useMemo<ColumnsType<ResultRow>>(
    () =>
      result.columns.map((column, index) => ({
        key: index,
        title: (
          <span>
            {column.name}
            {column.type && <span style={{ marginLeft: 6, fontSize: token.fontSizeSM, fontWeight: 'normal', color: token.colorTextTertiary }}>{column.type}</span>}
          </span>
        ),
        render: (_: unknown, row: ResultRow) => <Cell value={row.cells[index] ?? null} />,
      })),
    [result, token.fontSizeSM, token.colorTextTertiary],
  )
  if (result.kind === 'write' && result.columns.length === 0) return null
  return (
    <div data-testid="sql-result">
      <Table<ResultRow>
      size="small"
      bordered
      columns={columns}
      dataSource={data}
      scroll={{ x: 'max-content' }}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('tool.sql.noRows')} /> }}
      pagination={{
        defaultPageSize: 20,
        pageSizeOptions: PAGE_SIZES,
        showSizeChanger: true,
        hideOnSinglePage: false,
        showTotal: (total, [from, to]) => t('tool.sql.total', { from, to, total }),
      }}
      />
    </div>
  )
}
