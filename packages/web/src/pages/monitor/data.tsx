import { useEffect, useRef } from 'react'
import { Card, Col, Result, Row, Space } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { isFinalJobState, type JobInfo, type MaintenanceRun, type MaintenanceSchedule } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { jobStore, useJobStream } from '../../api/jobStore'
import { listMaintenanceSchedules, monitorDataKeys, runScheduleNow } from '../../api/monitorData'
import { useAccess } from '../../session/Access'
import { sessionStore } from '../../session/sessionStore'
import { BackupsCard } from './dataAndBackups/BackupsCard'
import { DatabaseCard } from './dataAndBackups/DatabaseCard'
import { RetentionCard } from './dataAndBackups/RetentionCard'
import { runOf, withJobChange } from './dataAndBackups/runs'
import { ScheduleCard } from './dataAndBackups/ScheduleCard'
import { useFeedback } from '../../lib/feedback'

// The page is data.tsx (component monitor/data/index) and its parts are in dataAndBackups/: no source
// folder is named data/, the name of the server's runtime folder (database, files, backups) that git ignores.

const DATA_RUN = 'monitor:data:run'
/** A run the caller's job stream does not carry (the schedule's own, or the stream away) is read again this often until it ends. */
const POLL_MS = 3000

const unfinishedRuns = (schedules: MaintenanceSchedule[] | undefined): MaintenanceRun[] =>
  (schedules ?? []).flatMap((s) => (s.lastRun && !isFinalJobState(s.lastRun.state) ? [s.lastRun] : []))

/** The schedules' finished runs, as one key: it changes when a run ends (or a new one has ended). */
const finishedRunsKey = (schedules: MaintenanceSchedule[] | undefined) =>
  (schedules ?? [])
    .map((s) => (s.lastRun && isFinalJobState(s.lastRun.state) ? `${s.key}:${s.lastRun.jobId}` : ''))
    .join('|')

/**
 * Monitoring › Data and backups, for administrators: how big the database is and what fills it, the
 * maintenance schedules (backups, data retention) with their last run and Run now, what each log
 * keeps, and the backups on the server. A run started here is followed on the caller's job stream
 * (the one the top bar uses); one started by the schedule is read again until it ends. When a run
 * ends the backups and the database figures are read again.
 */
export default function MonitorDataPage() {
  const { t } = useTranslation()
  const { modal } = useFeedback()
  const queryClient = useQueryClient()
  const me = sessionStore.use((s) => s.user?.username)
  const mayRun = useAccess({ permissions: [DATA_RUN] })

  // Whether the caller's job stream carries every unfinished run; set below, read by the poll.
  const followedLive = useRef(false)
  const schedules = useQuery({
    queryKey: monitorDataKeys.schedules,
    queryFn: listMaintenanceSchedules,
    refetchInterval: (query) => (unfinishedRuns(query.state.data).length > 0 && !followedLive.current ? POLL_MS : false),
  })
  const unfinished = unfinishedRuns(schedules.data)

  const live = useJobStream(unfinished.length > 0, {
    onJob: (job: JobInfo) => {
      queryClient.setQueryData<MaintenanceSchedule[]>(monitorDataKeys.schedules, (cached) => withJobChange(cached, job))
      // The schedule's next run and the server's own view of the outcome.
      if (isFinalJobState(job.state)) void queryClient.invalidateQueries({ queryKey: monitorDataKeys.schedules })
    },
    // What happened before the stream opened (or while it was away) is read once.
    onOpen: () => void queryClient.invalidateQueries({ queryKey: monitorDataKeys.schedules }),
  })
  // The stream carries the caller's own jobs only: the schedule's runs (or any, while it is away) are polled.
  followedLive.current = live.status === 'open' && unfinished.every((run) => run.createBy === me)

  // A run that ended made a backup or removed rows: the lists below show it.
  const finished = finishedRunsKey(schedules.data)
  const seenFinished = useRef<string | null>(null)
  useEffect(() => {
    if (!schedules.data) return
    if (seenFinished.current !== null && seenFinished.current !== finished) {
      void queryClient.invalidateQueries({ queryKey: monitorDataKeys.backups })
      void queryClient.invalidateQueries({ queryKey: monitorDataKeys.database })
    }
    seenFinished.current = finished
  }, [finished, schedules.data, queryClient])

  const runNow = (schedule: MaintenanceSchedule) => {
    const title = t(`monitorData.schedule.${schedule.key}`)
    modal.confirm({
      title: t('monitorData.runConfirmTitle', { title }),
      content: t(`monitorData.runConfirm.${schedule.key}`),
      okText: t('monitorData.runNow'),
      cancelText: t('common.cancel'),
      onOk: async () => {
        try {
          const job = await runScheduleNow(schedule.key)
          queryClient.setQueryData<MaintenanceSchedule[]>(monitorDataKeys.schedules, (cached) =>
            cached?.map((s) => (s.key === schedule.key ? { ...s, lastRun: runOf(job) } : s)),
          )
          // The top bar's list shows it too, as any job started in this tab.
          jobStore.started(job)
        } catch {
          // The client showed the server's message (one is queued or running already).
        }
      },
    })
  }

  return (
    <div className="crud-page" data-testid="monitor-data-page">
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <DatabaseCard />
        <Card title={t('monitorData.schedule.title')} loading={schedules.isPending} data-testid="schedules-card">
          {schedules.isError && !schedules.data ? (
            <Result status="warning" subTitle={t('monitorData.loadFailed')} />
          ) : (
            <Row gutter={[16, 16]}>
              {(schedules.data ?? []).map((schedule) => (
                <Col key={schedule.key} xs={24} lg={12}>
                  <ScheduleCard schedule={schedule} mayRun={mayRun} onRun={runNow} />
                </Col>
              ))}
            </Row>
          )}
        </Card>
        <RetentionCard />
        <BackupsCard />
      </Space>
    </div>
  )
}
