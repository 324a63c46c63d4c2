import type { HTMLAttributes } from 'react'
import { Space, Table, Tag, Typography } from 'antd'
import type { ColumnType } from 'antd/es/table'
import { useQuery } from '@tanstack/react-query'
import type { ScheduledWorkInfo } from '@velo/shared'
import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import { jobKeys, listScheduledWork } from '../../../api/jobs'
import { formatDuration, formatTime } from './jobList'

/** Sweeps run every few seconds: the table follows them at this pace while it is shown. */
const REFRESH_MS = 5000

/** An interval as people say it: 500 ms, 10 s, 1 min, 24 h. */
export function formatEvery(ms: number, t: TFunction): string {
  if (ms < 1000) return t('jobs.every.ms', { n: ms })
  if (ms < 60_000 || ms % 60_000) return t('jobs.every.s', { n: Math.round(ms / 1000) })
  if (ms < 3_600_000 || ms % 3_600_000) return t('jobs.every.min', { n: ms / 60_000 })
  return t('jobs.every.h', { n: ms / 3_600_000 })
}

/**
 * Monitoring › Jobs › Scheduled work: what the server does by itself (platform/jobs/schedule.ts on the
 * server), each with how often and where it runs, its last run (how long it took, how it ended) and
 * the next. A schedule's runs are jobs: its outcome is the job's, in the Jobs tab.
 */
export function ScheduledWork() {
  const { t } = useTranslation()
  const query = useQuery({ queryKey: jobKeys.scheduled, queryFn: listScheduledWork, refetchInterval: REFRESH_MS })

  const columns: ColumnType<ScheduledWorkInfo>[] = [
    { key: 'title', dataIndex: 'title', title: t('jobs.scheduled.column.title') },
    {
      key: 'runs',
      title: t('jobs.scheduled.column.runs'),
      render: (_: unknown, work) => {
        if (work.runs === 'job') {
          return work.intervalHours ? t('jobs.scheduled.runs.job', { every: formatEvery(work.intervalHours * 3_600_000, t) }) : <Tag>{t('jobs.scheduled.off')}</Tag>
        }
        return t(`jobs.scheduled.runs.${work.runs}`, { every: formatEvery(work.everyMs ?? 0, t) })
      },
    },
    {
      key: 'lastRun',
      title: t('jobs.scheduled.column.lastRun'),
      render: (_: unknown, work) =>
        work.lastRunTime ? (
          <Space size="small" wrap>
            <span>{formatTime(work.lastRunTime)}</span>
            {work.lastDurationMs !== null && (
              <Typography.Text type="secondary">
                {t('jobs.scheduled.took', { duration: work.lastDurationMs < 1000 ? t('jobs.every.ms', { n: work.lastDurationMs }) : formatDuration(work.lastDurationMs, t) })}
              </Typography.Text>
            )}
          </Space>
        ) : (
          <Typography.Text type="secondary">{t('jobs.scheduled.never')}</Typography.Text>
        ),
    },
    { key: 'nextRun', dataIndex: 'nextRunTime', title: t('jobs.scheduled.column.nextRun'), render: formatTime },
    {
      key: 'outcome',
      title: t('jobs.scheduled.column.outcome'),
      render: (_: unknown, work) => {
        if (work.runs === 'job') return work.lastJobId !== null && t('jobs.scheduled.job', { jobId: work.lastJobId })
        if (!work.lastRunTime) return null
        return work.lastError ? (
          <Typography.Text type="danger" ellipsis={{ tooltip: work.lastError }} style={{ maxWidth: 320 }} data-testid={`scheduled-error-${work.key}`}>
            {work.lastError}
          </Typography.Text>
        ) : (
          <Tag color="success">{t('jobs.scheduled.ok')}</Tag>
        )
      },
    },
  ]

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Typography.Text type="secondary">{t('jobs.scheduled.hint')}</Typography.Text>
      <Table<ScheduledWorkInfo>
        rowKey="key"
        loading={query.isPending}
        dataSource={query.data ?? []}
        columns={columns}
        pagination={false}
        size="small"
        scroll={{ x: 'max-content' }}
        onRow={(work) => ({ 'data-testid': `scheduled-${work.key}` }) as HTMLAttributes<HTMLElement>}
        data-testid="scheduled-work"
      />
    </Space>
  )
}
