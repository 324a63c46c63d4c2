import { Card, Result, Space, Table, Tag, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import type { RetentionSetting } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { listRetentionSettings, monitorDataKeys } from '../../../api/monitorData'
import { ConfigKey } from './ConfigKey'

/**
 * What each log, history and category of riders' personal data keeps, and where that is set (a
 * configuration key, or the server's environment). Inactive members are kept in years, and told in
 * the app some days before they are erased: both settings show on their row.
 */
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
            {
              key: 'days',
              title: t('monitorData.retention.kept'),
              render: (_: unknown, setting) => (
                <Space orientation="vertical" size={0}>
                  {setting.years === undefined ? t('monitorData.retention.days', { count: setting.days }) : t('monitorData.retention.inactiveYears', { count: setting.years })}
                  {setting.notice && <Typography.Text type="secondary">{t('monitorData.retention.notice', { count: setting.notice.days })}</Typography.Text>}
                </Space>
              ),
            },
            {
              key: 'setIn',
              title: t('monitorData.retention.setIn'),
              render: (_: unknown, setting) =>
                setting.fromEnvironment ? (
                  <Space size="small">
                    <Tag>{t('monitorData.retention.environment')}</Tag>
                    <Typography.Text code>{setting.configKey}</Typography.Text>
                  </Space>
                ) : setting.notice ? (
                  <Space orientation="vertical" size={0}>
                    <ConfigKey name={setting.configKey} />
                    <ConfigKey name={setting.notice.configKey} />
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
