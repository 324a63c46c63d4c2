import { useMemo, useState } from 'react'
import { Input, Modal, Result, Table, Typography, type ButtonProps } from 'antd'
import type { ColumnType } from 'antd/es/table'
import { SearchOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import type { GenDbTable } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { genApi, genKeys } from './genApi'
import { useFeedback } from '../../../lib/feedback'

/**
 * Import tables into code generation (RuoYi's 导入表): the tables of the database that no
 * definition covers and no earlier import holds, found by name or comment, ticked, imported.
 */
export function ImportDialog({ onClose, onImported }: { onClose: () => void; onImported: () => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  // Fresh on every opening: another admin may have imported some in the meantime.
  const tables = useQuery({ queryKey: genKeys.tables, queryFn: genApi.tables, gcTime: 0, refetchOnWindowFocus: false })
  const [filter, setFilter] = useState('')
  const [selected, setSelected] = useState<string[]>([])
  const [importing, setImporting] = useState(false)

  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase()
    const all = tables.data ?? []
    return needle ? all.filter((table) => table.tableName.toLowerCase().includes(needle) || table.comment.toLowerCase().includes(needle)) : all
  }, [tables.data, filter])

  const columns: ColumnType<GenDbTable>[] = [
    { key: 'tableName', dataIndex: 'tableName', title: t('gen.tableName'), render: (name: string) => <Typography.Text code>{name}</Typography.Text> },
    { key: 'comment', dataIndex: 'comment', title: t('gen.tableComment'), ellipsis: true },
    { key: 'columns', dataIndex: 'columns', title: t('gen.columnCount'), align: 'right', width: 90 },
  ]

  const submit = async () => {
    setImporting(true)
    try {
      const { imported } = await genApi.import(selected)
      void message.success(t('gen.imported', { count: imported }))
      onImported()
      onClose()
    } catch {
      // The client showed why (a table imported meanwhile, or no longer there); the dialog stays.
      void tables.refetch()
    } finally {
      setImporting(false)
    }
  }

  return (
    <Modal
      open
      title={t('gen.importTitle')}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('gen.importOk', { count: selected.length })}
      okButtonProps={{ disabled: selected.length === 0, loading: importing, 'data-testid': 'gen-import-ok' } as ButtonProps}
      width="min(800px, calc(100vw - 32px))"
      destroyOnHidden
    >
      <div data-testid="gen-import-dialog">
        {tables.isError ? (
          <Result status="warning" subTitle={t('gen.tablesFailed')} />
        ) : (
          <>
            <Input
              allowClear
              prefix={<SearchOutlined />}
              placeholder={t('gen.tableFilter')}
              aria-label={t('gen.tableFilter')}
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              style={{ marginBottom: 12 }}
              data-testid="gen-import-filter"
            />
            <Table<GenDbTable>
              size="small"
              rowKey="tableName"
              loading={tables.isPending}
              columns={columns}
              dataSource={shown}
              pagination={{ pageSize: 10, size: 'small', showSizeChanger: false, hideOnSinglePage: true }}
              scroll={{ y: 400 }}
              locale={{ emptyText: t('gen.noTables') }}
              rowSelection={{
                selectedRowKeys: selected,
                // Ticked tables stay ticked while the filter hides them.
                preserveSelectedRowKeys: true,
                onChange: (keys) => setSelected(keys.map(String)),
              }}
            />
          </>
        )}
      </div>
    </Modal>
  )
}
