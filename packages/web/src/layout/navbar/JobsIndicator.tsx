import { useEffect, useState } from 'react'
import { App, Badge, Button, Popconfirm, Popover, Progress, type ProgressProps, Tag, Tooltip, Typography } from 'antd'
import { DownloadOutlined, ScheduleOutlined } from '@ant-design/icons'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { usePageSettled } from '../../lib/usePageSettled'
import { isFinalJobState, type JobInfo, type JobState, type Paged } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { cancelJob, downloadJobFile, jobKeys, listMyJobs, withJob } from '../../api/jobs'
import { jobStore, useJobStream } from '../../api/jobStore'
import './jobs.css'

const STATE_COLORS: Record<JobState, string> = { queued: 'default', running: 'processing', succeeded: 'success', failed: 'error', cancelled: 'warning' }
const PROGRESS_STATUS: Record<JobState, ProgressProps['status']> = { queued: 'normal', running: 'active', succeeded: 'success', failed: 'exception', cancelled: 'normal' }

function percentOf(job: JobInfo): number {
  if (job.state === 'succeeded') return 100
  if (!job.total) return 0
  return Math.min(100, Math.floor((job.done * 100) / job.total))
}

const count = (n: number) => n.toLocaleString()

/**
 * The jobs button of the top bar: the user's newest jobs (exports and other long work started in
 * the background) with their progress live from the server, cancel while they run, and the file of a
 * finished export to download. It shows once the user has a job; a badge counts those not finished,
 * and while there are any, their changes come from the tab's job stream (api/jobStore.ts).
 */
export function JobsIndicator() {
  const { t } = useTranslation()
  const { message, notification } = App.useApp()
  const queryClient = useQueryClient()
  const [open, setOpen] = useState(false)
  // Asked once the page's own requests are answered and the browser is idle: the jobs badge must not
  // delay the rows staff came for.
  const settled = usePageSettled()
  const query = useQuery({ queryKey: jobKeys.mine, queryFn: listMyJobs, staleTime: 60_000, enabled: settled })
  const jobs = query.data?.rows ?? []
  const active = jobs.filter((j) => !isFinalJobState(j.state)).length

  useEffect(
    () =>
      jobStore.onStarted((job) => {
        queryClient.setQueryData<Paged<JobInfo>>(jobKeys.mine, (page) => withJob(page, job))
        setOpen(true)
      }),
    [queryClient],
  )

  const download = (job: JobInfo) => {
    // The client shows why it failed.
    downloadJobFile(job).catch(() => undefined)
  }

  // Followed only while a job is unfinished: most users have none, and a stream held by every tab for
  // nothing would be a connection each (and a page that never goes idle). The tab's one stream is
  // shared with whatever else follows jobs (an import dialog).
  useJobStream(active > 0, {
    onJob: (job) => {
      const before = queryClient.getQueryData<Paged<JobInfo>>(jobKeys.mine)?.rows.find((r) => r.jobId === job.jobId)
      queryClient.setQueryData<Paged<JobInfo>>(jobKeys.mine, (page) => withJob(page, job))
      // Say so once when a job the user saw running ends, wherever they are in the console.
      if (!before || isFinalJobState(before.state) || !isFinalJobState(job.state)) return
      const key = `job-${job.jobId}`
      if (job.state === 'succeeded') {
        notification.success({
          key,
          message: t('jobs.finished', { title: job.title }),
          description: job.mayDownload ? (
            <Button size="small" icon={<DownloadOutlined />} onClick={() => download(job)}>
              {t('jobs.download')}
            </Button>
          ) : undefined,
        })
      } else if (job.state === 'failed') {
        notification.error({ key, message: t('jobs.failed', { title: job.title }), description: job.error })
      }
    },
    // What changed before the stream opened (a short job may be done already), or while it was away, is read again.
    onOpen: () => void queryClient.invalidateQueries({ queryKey: jobKeys.mine }),
  })

  async function cancel(job: JobInfo) {
    try {
      const { data, msg } = await cancelJob(job.jobId)
      queryClient.setQueryData<Paged<JobInfo>>(jobKeys.mine, (page) => withJob(page, data))
      void message.success(msg)
    } catch {
      // The client showed why.
    }
  }

  if (!jobs.length) return null

  const content = (
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
              <Button size="small" type="primary" icon={<DownloadOutlined />} onClick={() => download(job)} data-testid={`job-download-${job.jobId}`}>
                {t('jobs.download')}
              </Button>
            )}
          </div>
        </div>
      ))}
    </div>
  )

  return (
    <Popover content={content} title={t('jobs.title')} trigger="click" placement="bottomRight" open={open} onOpenChange={setOpen}>
      <Tooltip title={t('jobs.title')} placement="bottom">
        <button type="button" className="navbar-icon navbar-button" aria-label={t('jobs.title')} data-testid="jobs-indicator">
          <Badge count={active} size="small" offset={[4, -2]}>
            <ScheduleOutlined className={active ? 'jobs-icon-active' : undefined} />
          </Badge>
        </button>
      </Tooltip>
    </Popover>
  )
}
