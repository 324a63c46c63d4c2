import type { HTMLAttributes } from 'react'
import { Card, Empty, Result, Table, Tag, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { formatBytes, type BackupEntry } from '@velo/shared'
import dayjs from 'dayjs'
import { Trans, useTranslation } from 'react-i18next'
import { listBackups, monitorDataKeys } from '../../../api/monitorData'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import { DIALECT_NAMES } from './DatabaseCard'
import { count } from './runs'

// Texts mark a command or path as <0>…</0> (an indexed tag: the Chinese texts hold no English words).
const code = <Typography.Text code />
/** Commands and paths, the same in every language (kept out of the texts so translations stay words). */
const COMMANDS = { backup: 'npm run backup', restore: 'npm run restore', doc: 'docs/ops/backup.md' }

/**
 * The backups on the server, newest first. There is no download on purpose: a backup holds every
 * password hash, so it stays on the server, and restoring is done there (npm run restore).
 */
export function BackupsCard() {
  const { t } = useTranslation()
  const query = useQuery({ queryKey: monitorDataKeys.backups, queryFn: listBackups })

  return (
    <Card title={t('monitorData.backups.title')} data-testid="backups-card">
      {query.isError && !query.data ? (
        <Result status="warning" subTitle={t('monitorData.loadFailed')} />
      ) : (
        <Table<BackupEntry>
          rowKey="name"
          size="small"
          loading={query.isPending}
          dataSource={query.data ?? []}
          pagination={false}
          scroll={{ x: 'max-content' }}
          locale={{
            emptyText: (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={<Trans i18nKey="monitorData.backups.empty" values={COMMANDS} components={[code]} />}
                data-testid="backups-empty"
              />
            ),
          }}
          onRow={(row) => ({ 'data-testid': `backup-${row.name}` }) as HTMLAttributes<HTMLElement>}
          columns={[
            { key: 'name', dataIndex: 'name', title: t('monitorData.backups.name'), render: (name: string) => <Typography.Text code>{name}</Typography.Text> },
            {
              key: 'scheduled',
              dataIndex: 'scheduled',
              title: t('monitorData.backups.made'),
              render: (scheduled: boolean) => (scheduled ? t('monitorData.backups.scheduled') : t('monitorData.backups.manual')),
            },
            { key: 'createdAt', dataIndex: 'createdAt', title: t('monitorData.backups.createdAt'), render: (at: string) => dayjs(at).format(DATETIME_FORMAT) },
            { key: 'dialect', dataIndex: 'dialect', title: t('monitorData.database.dialect'), render: (dialect: BackupEntry['dialect']) => DIALECT_NAMES[dialect] ?? dialect },
            { key: 'size', dataIndex: 'sizeBytes', title: t('monitorData.backups.size'), align: 'right', render: formatBytes },
            { key: 'files', dataIndex: 'files', title: t('monitorData.backups.files'), align: 'right', render: count },
            {
              key: 'manifestOk',
              dataIndex: 'manifestOk',
              title: t('monitorData.backups.checksum'),
              render: (ok: boolean) => (
                <span data-testid="backup-checksum" data-ok={ok}>
                  <Tag color={ok ? 'success' : 'error'}>{ok ? t('monitorData.backups.checksumOk') : t('monitorData.backups.checksumBad')}</Tag>
                </span>
              ),
            },
            { key: 'serverVersion', dataIndex: 'serverVersion', title: t('monitorData.backups.serverVersion') },
          ]}
          data-testid="backups-table"
        />
      )}
      <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }} data-testid="backups-restore">
        <Trans i18nKey="monitorData.backups.restore" values={COMMANDS} components={[code]} />
      </Typography.Paragraph>
    </Card>
  )
}
