import { Button, Popconfirm, Progress, type ProgressProps, Tag, Typography } from 'antd'
import { DownloadOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import { isFinalJobState, type JobInfo, type JobState, type Paged } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { cancelJob, jobKeys, withJob } from '../../api/jobs'
import { useFeedback } from '../../lib/feedback'

const STATE_COLORS: Record<JobState, string> = { queued: 'default', running: 'processing', succeeded: 'success', failed: 'error', cancelled: 'warning' }
const PROGRESS_STATUS: Record<JobState, ProgressProps['status']> = { queued: 'normal', running: 'active', succeeded: 'success', failed: 'exception', cancelled: 'normal' }

function percentOf(job: JobInfo): number {
  if (job.state === 'succeeded') return 100
  if (!job.total) return 0
  return Math.min(100, Math.floor((job.done * 100) / job.total))
}

const count = (n: number) => n.toLocaleString()

/** The jobs button's list (JobsIndicator.tsx): each job with its state and progress, cancel while it runs, its file once there. */
export function JobsPanel({ jobs, onDownload }: { jobs: readonly JobInfo[]; onDownload: (job: JobInfo) => void }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()

  async function cancel(job: JobInfo) {
    try {
      const { data, msg } = await cancelJob(job.jobId)
      queryClient.setQueryData<Paged<JobInfo>>(jobKeys.mine, (page) => withJob(page, data))
      void message.success(msg)
    } catch {
      // The client showed why.
    }
  }

  return (
    <div className="jobs-list" data-testid="jobs-list">
      {jobs.map((job) => (
        <div key={job.jobId} className="jobs-item" data-testid={`job-${job.jobId}`}>
          <div className="jobs-item-head">
            <span className="jobs-item-title" title={job.title}>
              {job.title}
            </span>
            <Tag color={STATE_COLORS[job.state]}>{t(`jobs.state.${job.state}`)}</Tag>
          </div>
          <Progress
            percent={percentOf(job)}
            status={PROGRESS_STATUS[job.state]}
            size="small"
            format={() => (job.total === null ? '' : t('jobs.progress', { done: count(job.done), total: count(job.total) }))}
          />
          {job.error && (
            <Typography.Text type="danger" className="jobs-item-error">
              {job.error}
            </Typography.Text>
          )}
          <div className="jobs-item-foot">
            <Typography.Text type="secondary" className="jobs-item-time">
              {dayjs(job.createTime).format('YYYY-MM-DD HH:mm:ss')}
            </Typography.Text>
            {!isFinalJobState(job.state) &&
              (job.cancelRequested ? (
                <Typography.Text type="secondary">{t('jobs.cancelling')}</Typography.Text>
              ) : (
                <Popconfirm title={t('jobs.cancelConfirm')} onConfirm={() => cancel(job)} okText={t('jobs.cancel')} cancelText={t('jobs.keep')}>
                  <Button size="small" danger data-testid={`job-cancel-${job.jobId}`}>
                    {t('jobs.cancel')}
                  </Button>
                </Popconfirm>
              ))}
            {job.mayDownload && (
              <Button size="small" type="primary" icon={<DownloadOutlined />} onClick={() => onDownload(job)} data-testid={`job-download-${job.jobId}`}>
                {t('jobs.download')}
              </Button>
            )}
          </div>
        </div>
      ))}
    </div>
  )
}
