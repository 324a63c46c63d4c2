import { lazy, Suspense, useEffect, useState } from 'react'
import { Badge, Button, Popover, Spin, Tooltip } from 'antd'
import { DownloadOutlined, ScheduleOutlined } from '@ant-design/icons'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { usePageSettled } from '../../lib/usePageSettled'
import { isFinalJobState, type JobInfo, type Paged } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { downloadJobFile, jobKeys, listMyJobs, withJob } from '../../api/jobs'
import { jobStore, useJobStream } from '../../api/jobStore'
import './jobs.css'
import { useFeedback } from '../../lib/feedback'

// The list itself (progress bars, the cancel confirmation) loads when it is first wanted: most users
// have no job, and the shell's first paint is the badge at most. Pointing at the button or starting a
// job starts the load, so the list is usually there by the time it opens.
const loadPanel = () => import('./JobsPanel')
const JobsPanel = lazy(() => loadPanel().then((m) => ({ default: m.JobsPanel })))

/**
 * The jobs button of the top bar: the user's newest jobs (exports and other long work started in
 * the background) with their progress live from the server, cancel while they run, and the file of a
 * finished export to download. It shows once the user has a job; a badge counts those not finished,
 * and while there are any, their changes come from the tab's job stream (api/jobStore.ts).
 */
export function JobsIndicator() {
  const { t } = useTranslation()
  const { notification } = useFeedback()
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
        void loadPanel()
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

  if (!jobs.length) return null

  const content = (
    <Suspense
      fallback={
        <div className="jobs-list jobs-list-loading">
          <Spin size="small" />
        </div>
      }
    >
      <JobsPanel jobs={jobs} onDownload={download} />
    </Suspense>
  )

  return (
    <Popover content={content} title={t('jobs.title')} trigger="click" placement="bottomRight" open={open} onOpenChange={setOpen}>
      <Tooltip title={t('jobs.title')} placement="bottom">
        <button type="button" className="navbar-icon navbar-button" aria-label={t('jobs.title')} onMouseEnter={() => void loadPanel()} onFocus={() => void loadPanel()} data-testid="jobs-indicator">
          <Badge count={active} size="small" offset={[4, -2]}>
            <ScheduleOutlined className={active ? 'jobs-icon-active' : undefined} />
          </Badge>
        </button>
      </Tooltip>
    </Popover>
  )
}
