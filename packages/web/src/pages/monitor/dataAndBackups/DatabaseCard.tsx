import type { HTMLAttributes } from 'react'
import { Button, Card, Descriptions, Progress, Result, Table, Typography } from 'antd'
import { ReloadOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import { formatBytes, type TableUsage } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { getDatabaseUsage, monitorDataKeys } from '../../../api/monitorData'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import { count } from './runs'

export const DIALECT_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const

/** A table's share of the whole database, in percent to a tenth. */
const shareOf = (table: TableUsage, sizeBytes: number) => (sizeBytes > 0 ? Math.min(100, Math.round((table.totalBytes / sizeBytes) * 1000) / 10) : 0)

/** The database's size and the tables that fill it, largest first, each with its share so the big ones stand out. */
export function DatabaseCard() {
  const { t } = useTranslation()
  const query = useQuery({ queryKey: monitorDataKeys.database, queryFn: getDatabaseUsage })
  const usage = query.data

  return (
    <Card
      title={t('monitorData.database.title')}
      loading={query.isPending}
      extra={
        // The server measures at most once a minute: a refresh within it shows the same "measured at".
        <Button size="small" icon={<ReloadOutlined />} loading={query.isFetching && !query.isPending} onClick={() => void query.refetch()} data-testid="database-refresh">
          {t('crud.refresh')}
        </Button>
      }
      data-testid="database-card"
    >
      {query.isError && !usage ? (
        <Result status="warning" subTitle={t('monitorData.loadFailed')} />
      ) : (
        usage && (
          <>
            <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 4 }}>
              <Descriptions.Item label={t('monitorData.database.dialect')}>{DIALECT_NAMES[usage.dialect]}</Descriptions.Item>
              <Descriptions.Item label={t('monitorData.database.size')}>
                <Typography.Text strong data-testid="database-size">
                  {formatBytes(usage.sizeBytes)}
                </Typography.Text>
              </Descriptions.Item>
              <Descriptions.Item label={t('monitorData.database.tableCount')}>{count(usage.tableCount)}</Descriptions.Item>
              <Descriptions.Item label={t('monitorData.database.measuredAt')}>{dayjs(usage.measuredAt).format(DATETIME_FORMAT)}</Descriptions.Item>
            </Descriptions>
            <Typography.Title level={5}>{t('monitorData.database.largest')}</Typography.Title>
            <Table<TableUsage>
              rowKey="table"
              size="small"
              dataSource={usage.tables}
              pagination={false}
              scroll={{ x: 'max-content' }}
              onRow={(row) => ({ 'data-testid': `table-usage-${row.table}` }) as HTMLAttributes<HTMLElement>}
              columns={[
                { key: 'table', dataIndex: 'table', title: t('monitorData.database.table'), render: (name: string) => <Typography.Text code>{name}</Typography.Text> },
                { key: 'rows', dataIndex: 'rows', title: t('monitorData.database.rows'), align: 'right', render: count },
                { key: 'data', dataIndex: 'dataBytes', title: t('monitorData.database.data'), align: 'right', render: formatBytes },
                { key: 'index', dataIndex: 'indexBytes', title: t('monitorData.database.indexes'), align: 'right', render: formatBytes },
                { key: 'total', dataIndex: 'totalBytes', title: t('monitorData.database.total'), align: 'right', render: formatBytes },
                {
                  key: 'share',
                  title: t('monitorData.database.share'),
                  width: 200,
                  render: (_: unknown, row) => <Progress percent={shareOf(row, usage.sizeBytes)} size="small" status="normal" format={(p) => `${p}%`} />,
                },
              ]}
              data-testid="database-tables"
            />
          </>
        )
      )}
    </Card>
  )
}
