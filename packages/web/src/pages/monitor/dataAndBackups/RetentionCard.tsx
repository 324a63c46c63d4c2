import { Card, Result, Space, Table, Tag, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import type { RetentionSetting } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { listRetentionSettings, monitorDataKeys } from '../../../api/monitorData'
import { ConfigKey } from './ConfigKey'

/** What each log and history keeps, and where that is set (a configuration key, or the server's environment). */
export function RetentionCard() {
  const { t } = useTranslation()
  const query = useQuery({ queryKey: monitorDataKeys.retention, queryFn: listRetentionSettings })

  return (
    <Card title={t('monitorData.retention.title')} data-testid="retention-card">
      {query.isError && !query.data ? (
        <Result status="warning" subTitle={t('monitorData.loadFailed')} />
      ) : (
        <Table<RetentionSetting>
          rowKey="target"
          size="small"
          loading={query.isPending}
          dataSource={query.data ?? []}
          pagination={false}
          scroll={{ x: 'max-content' }}
          columns={[
            { key: 'target', dataIndex: 'target', title: t('monitorData.retention.target'), render: (target: string) => t(`monitorData.target.${target}`) },
            { key: 'days', dataIndex: 'days', title: t('monitorData.retention.kept'), render: (days: number) => t('monitorData.retention.days', { count: days }) },
            {
              key: 'setIn',
              title: t('monitorData.retention.setIn'),
              render: (_: unknown, setting) =>
                setting.fromEnvironment ? (
                  <Space size="small">
                    <Tag>{t('monitorData.retention.environment')}</Tag>
                    <Typography.Text code>{setting.configKey}</Typography.Text>
                  </Space>
                ) : (
                  <ConfigKey name={setting.configKey} />
                ),
            },
          ]}
          data-testid="retention-table"
        />
      )}
    </Card>
  )
}
