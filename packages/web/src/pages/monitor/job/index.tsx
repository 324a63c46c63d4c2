import { useEffect, useMemo, useRef, useState, type HTMLAttributes } from 'react'
import { Badge, Progress, Space, Switch, Table, Tabs, Tag, Tooltip, Typography, type ProgressProps } from 'antd'
import type { ColumnType } from 'antd/es/table'
import { DownloadOutlined, ProfileOutlined, StopOutlined } from '@ant-design/icons'
import { hashKey, keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { type ChecklistResult, DEFAULT_PAGE_SIZE, isFinalJobState, type JobInfo, type JobListBody, type JobState, type Paged } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { eventData, useEventStream, type EventStreamState } from '../../../api/eventStream'
import { feedbackText } from '../../../api/http'
import { ALL_JOBS_STREAM_URL, cancelJob, downloadJobFile, jobKeys, listJobs } from '../../../api/jobs'
import { useJobStream } from '../../../api/jobStore'
import { useAccess } from '../../../session/Access'
import { sessionStore } from '../../../session/sessionStore'
import type { Filters } from '../../../crud/api/crudApi'
import { ColumnSettings } from '../../../crud/list/ColumnSettings'
import { useHiddenColumns } from '../../../crud/list/columnVisibility'
import { ListPager } from '../../../crud/list/ListPager'
import { ListToolbar } from '../../../crud/list/ListToolbar'
import { RowActions } from '../../../crud/list/RowActions'
import { SearchForm } from '../../../crud/list/SearchForm'
import { searchFieldsOf } from '../../../crud/list/searchFields'
import { durationOf, formatDuration, formatTime, isChecklistResult, jobEventEffect, jobSearch, patchJob, percentOf, STATE_COLORS } from './jobList'
import { ChecklistTable } from './ChecklistTable'
import { ScheduledWork } from './ScheduledWork'
import '../../../crud/crud.css'
import { useFeedback } from '../../../lib/feedback'

const JOB_LIST = 'monitor:job:list'
const JOB_CANCEL = 'monitor:job:cancel'
/** Events that ask for the page again are answered by one load at most this often. */
const RELOAD_MS = 1000
/** Without live updates (the stream refused or away), a page with unfinished jobs is loaded again this often. */
const POLL_MS = 3000

const PROGRESS_STATUS: Record<JobState, ProgressProps['status']> = { queued: 'normal', running: 'active', succeeded: 'success', failed: 'exception', cancelled: 'normal' }
const LIVE_BADGE = { open: 'success', connecting: 'processing', reconnecting: 'warning', closed: 'default' } as const

const count = (n: number) => n.toLocaleString()

interface PageState {
  pageNum: number
  pageSize: number
  filters: Filters
}

/** Whether live updates flow, with why they stopped when the server said. */
function JobsLive({ state }: { state: EventStreamState }) {
  const { t } = useTranslation()
  const hint = state.error && state.status !== 'open' ? feedbackText(state.error) : t('jobs.live.hint')
  return (
    <Tooltip title={hint}>
      <span data-testid="jobs-live" data-status={state.status}>
        <Badge status={LIVE_BADGE[state.status]} text={t(`iot.live.${state.status}`)} />
      </span>
    </Tooltip>
  )
}

/**
 * Monitoring › Jobs: every user's background jobs (exports, actions run as jobs), newest first, with
 * filters by state and kind and a switch to the caller's own. Their progress and outcome arrive live
 * (GET /monitor/job/stream/all): a shown job's row changes in place, a new one appears on the first
 * page. Cancel (confirmed) for unfinished jobs with monitor:job:cancel or one's own; Download for the
 * file a finished job left, where the server says the user may download it (`mayDownload`: their own
 * jobs', or any with the admin role; seeing everyone's jobs is not downloading their files).
 */
export default function JobsPage() {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const me = sessionStore.use((s) => s.user?.userId)
  const mayListAll = useAccess({ permissions: [JOB_LIST] })
  const mayCancelAny = useAccess({ permissions: [JOB_CANCEL] })
  const [page, setPage] = useState<PageState>({ pageNum: 1, pageSize: DEFAULT_PAGE_SIZE, filters: {} })
  const [mine, setMine] = useState(false)
  const [searchShown, setSearchShown] = useState(true)
  const [hiddenColumns, setHiddenColumns] = useHiddenColumns(jobSearch.key)
  const searchFields = useMemo(() => searchFieldsOf(jobSearch), [])

  const body: JobListBody = useMemo(
    () => ({ pageNum: page.pageNum, pageSize: page.pageSize, ...page.filters, ...(mine ? { mine: true } : {}) }),
    [page, mine],
  )
  const key = jobKeys.monitorPage(body)

  // Events that ask for the page again within a moment of each other load it once.
  const reloadTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(
    () => () => {
      if (reloadTimer.current) clearTimeout(reloadTimer.current)
    },
    [],
  )
  const reloadSoon = () => {
    reloadTimer.current ??= setTimeout(() => {
      reloadTimer.current = null
      void queryClient.invalidateQueries({ queryKey: jobKeys.monitor })
    }, RELOAD_MS)
  }

  const onJob = (job: JobInfo) => {
    // Any other page cached keeps the job as it is now too.
    queryClient.setQueriesData<Paged<JobInfo>>({ queryKey: jobKeys.monitor }, (cached) => patchJob(cached, job))
    const shown = queryClient.getQueryData<Paged<JobInfo>>(key)
    if (jobEventEffect(shown?.rows ?? [], body, job, me) === 'reload') reloadSoon()
  }
  // What changed between the page's load and the stream's opening, or while the stream was away
  // (a drop), is loaded once.
  const onOpen = (again: boolean) => {
    if (again || queryClient.getQueryState(key)?.dataUpdatedAt) void queryClient.invalidateQueries({ queryKey: jobKeys.monitor })
  }
  // Everyone's jobs with monitor:job:list; one's own otherwise (all this page lists then), from the
  // tab's job stream that the top bar shares.
  const everyone = useEventStream(ALL_JOBS_STREAM_URL, {
    enabled: mayListAll,
    onEvent: (event) => {
      const job = event.event === 'job' ? eventData<JobInfo>(event) : null
      if (job) onJob(job)
    },
    onOpen,
  })
  const own = useJobStream(!mayListAll, { onJob, onOpen })
  const live = mayListAll ? everyone : own
  const liveFlows = live.status === 'open' || live.status === 'connecting'

  const query = useQuery({
    queryKey: key,
    queryFn: () => listJobs(body),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (!liveFlows && q.state.data?.rows.some((j) => !isFinalJobState(j.state)) ? POLL_MS : false),
  })
  const rows = query.data?.rows ?? []
  const total = query.data?.total ?? 0

  /** Search and Reset always load again, from the first page (as every list does). */
  const search = (filters: Filters) => {
    const next = { ...page, filters, pageNum: 1 }
    const nextBody = { pageNum: 1, pageSize: next.pageSize, ...filters, ...(mine ? { mine: true } : {}) }
    if (hashKey([nextBody]) === hashKey([body])) void query.refetch()
    else setPage(next)
  }

  const cancel = (job: JobInfo) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('jobs.cancelConfirmOf', { title: job.title, user: job.createBy }),
      okText: t('jobs.cancel'),
      cancelText: t('jobs.keep'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const { data, msg } = await cancelJob(job.jobId)
          queryClient.setQueriesData<Paged<JobInfo>>({ queryKey: jobKeys.monitor }, (cached) => patchJob(cached, data))
          // The top bar shows one's own jobs: it learns of the cancel too.
          void queryClient.invalidateQueries({ queryKey: jobKeys.mine })
          void message.success(msg)
        } catch {
          // The client showed why (finished meanwhile, not allowed).
        }
      },
    })

  const download = (job: JobInfo) => {
    // The client shows why it failed (the file is gone).
    downloadJobFile(job).catch(() => undefined)
  }

  // A run's report (the device conformance kit's), as far as it got: a job that failed or was cancelled keeps it too.
  const showReport = (job: JobInfo, result: ChecklistResult) =>
    modal.info({ title: job.title, width: 960, icon: null, okText: t('jobs.close'), content: <ChecklistTable result={result} /> })

  const mayCancel = (job: JobInfo) => !isFinalJobState(job.state) && !job.cancelRequested && (mayCancelAny || job.createById === me)

  const columns: (ColumnType<JobInfo> & { key: string })[] = [
    { key: 'jobId', dataIndex: 'jobId', title: t('jobs.column.id') },
    {
      key: 'title',
      dataIndex: 'title',
      title: t('jobs.column.title'),
      render: (title: string) => (
        <Typography.Text ellipsis={{ tooltip: title }} style={{ maxWidth: 280 }}>
          {title}
        </Typography.Text>
      ),
    },
    { key: 'kind', dataIndex: 'kind', title: t('jobs.column.kind'), render: (kind: string) => t(`jobs.kind.${kind}`, { defaultValue: kind }) },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('jobs.column.state'),
      render: (state: JobState, job) => (
        <span data-testid={`job-state-${job.jobId}`} data-state={state}>
          <Tag color={STATE_COLORS[state]}>{t(`jobs.state.${state}`)}</Tag>
          {job.cancelRequested && !isFinalJobState(state) && <Typography.Text type="secondary">{t('jobs.cancelling')}</Typography.Text>}
        </span>
      ),
    },
    {
      key: 'progress',
      title: t('jobs.column.progress'),
      width: 200,
      render: (_: unknown, job) => (
        <Progress
          percent={percentOf(job)}
          status={PROGRESS_STATUS[job.state]}
          size="small"
          format={() => (job.total === null ? (job.done ? count(job.done) : '') : t('jobs.progress', { done: count(job.done), total: count(job.total) }))}
          data-testid={`job-progress-${job.jobId}`}
        />
      ),
    },
    { key: 'createBy', dataIndex: 'createBy', title: t('jobs.column.createBy') },
    { key: 'createTime', dataIndex: 'createTime', title: t('jobs.column.createTime'), render: formatTime },
    { key: 'startTime', dataIndex: 'startTime', title: t('jobs.column.startTime'), render: formatTime },
    { key: 'finishTime', dataIndex: 'finishTime', title: t('jobs.column.finishTime'), render: formatTime },
    {
      key: 'duration',
      title: t('jobs.column.duration'),
      render: (_: unknown, job) => {
        const ms = durationOf(job)
        return ms === null ? null : formatDuration(ms, t)
      },
    },
    {
      key: 'error',
      dataIndex: 'error',
      title: t('jobs.column.error'),
      render: (error: string | null) =>
        error && (
          <Typography.Text type="danger" ellipsis={{ tooltip: error }} style={{ maxWidth: 260 }}>
            {error}
          </Typography.Text>
        ),
    },
  ]
  const shownColumns: ColumnType<JobInfo>[] = [
    ...columns.filter((c) => !hiddenColumns.has(c.key)),
    {
      key: 'actions',
      title: t('crud.actions'),
      fixed: 'right',
      align: 'center',
      render: (_: unknown, job: JobInfo) => (
        <RowActions
          actions={[
            mayCancel(job) && { key: 'cancel', label: t('jobs.cancel'), icon: <StopOutlined />, danger: true, onClick: () => cancel(job), testId: 'row-cancel' },
            job.mayDownload && { key: 'download', label: t('jobs.download'), icon: <DownloadOutlined />, onClick: () => download(job), testId: 'row-download' },
            isChecklistResult(job.result) && { key: 'report', label: t('jobs.report'), icon: <ProfileOutlined />, onClick: () => showReport(job, job.result as ChecklistResult), testId: 'row-report' },
          ]}
        />
      ),
    },
  ]

  const actions = (
    <Space size="middle">
      {mayListAll && (
        <label>
          <Space size="small">
            <Switch
              size="small"
              checked={mine}
              onChange={(on) => {
                setMine(on)
                setPage((p) => ({ ...p, pageNum: 1 }))
              }}
              data-testid="jobs-only-mine"
            />
            {t('jobs.onlyMine')}
          </Space>
        </label>
      )}
      <JobsLive state={live} />
    </Space>
  )

  const jobList = (
    <>
      {searchShown && <SearchForm entity={jobSearch} fields={searchFields} onSearch={search} />}
      <ListToolbar
        actions={actions}
        searchShown={searchShown}
        onToggleSearch={() => setSearchShown(!searchShown)}
        onRefresh={() => void query.refetch()}
        tools={<ColumnSettings columns={columns.map((c) => ({ key: c.key, title: String(c.title) }))} hidden={hiddenColumns} onChange={setHiddenColumns} />}
      />
      <Table<JobInfo>
        rowKey="jobId"
        loading={query.isPending || query.isPlaceholderData}
        dataSource={rows}
        columns={shownColumns}
        pagination={false}
        scroll={{ x: 'max-content' }}
        onRow={(job) => ({ 'data-testid': `job-row-${job.jobId}` }) as HTMLAttributes<HTMLElement>}
        data-testid="jobs-table"
      />
      <ListPager total={total} pageNum={page.pageNum} pageSize={page.pageSize} onChange={(pageNum, pageSize) => setPage({ ...page, pageNum, pageSize })} />
    </>
  )

  return (
    <div className="crud-page" data-testid="jobs-page">
      <div className="crud-main">
        {mayListAll ? (
          // The scheduler's work is the server's, seen with everyone's jobs (monitor:job:list).
          <Tabs
            destroyOnHidden
            items={[
              { key: 'jobs', label: t('jobs.tab.jobs'), children: jobList },
              { key: 'scheduled', label: <span data-testid="jobs-tab-scheduled">{t('jobs.tab.scheduled')}</span>, children: <ScheduledWork /> },
            ]}
          />
        ) : (
          jobList
        )}
      </div>
    </div>
  )
}
