import { useMemo, type ReactNode } from 'react'
import { Alert, Button, Space, Spin, Typography } from 'antd'
import { DownloadOutlined } from '@ant-design/icons'
import { useMutation } from '@tanstack/react-query'
import { DASHBOARD_DEFAULT_DAYS, type DashboardDef } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { ApiError, feedbackText } from '../api/http'
import { useAccessCheck } from '../session/Access'
import { localized } from '../i18n'
import { downloadDashboard, useDashboardData } from './api'
import { shownColumns } from './chartOption'
import { Figure } from './Figure'
import { FiltersBar } from './FiltersBar'
import { readViewQuery, shownRange, writeViewQuery, type ViewQuery } from './urlQuery'
import './dashboards.css'

export interface DashboardViewProps {
  def: DashboardDef
  /** Above the filters instead of the dashboard's title (the home page's welcome). */
  header?: ReactNode
  /** Fetch the figures again this often while shown. */
  refetchEveryMs?: number
}

/** The server's text for a failed load (its localized message for a 400), else our own. */
const failureText = (error: unknown, fallback: string) => (error instanceof ApiError ? feedbackText(error) : fallback)

/**
 * A dashboard drawn from its definition: the filters bar (kept in the URL), the figures by kind, the
 * .xlsx download and when the summaries were last brought up to date. Figures and cards the user
 * has no right to are left out; what the server answers is already limited to their countries.
 */
export function DashboardView({ def, header, refetchEveryMs }: DashboardViewProps) {
  const { t } = useTranslation()
  const may = useAccessCheck()
  const [params, setParams] = useSearchParams()
  const search = params.toString()
  // Keyed by the URL's text: the same view is the same query whatever object holds it.
  const view = useMemo(() => readViewQuery(new URLSearchParams(search), def), [search, def])
  const data = useDashboardData(def.key, view, { refetchEveryMs })
  const answer = data.data
  const range = answer && !data.isPlaceholderData ? { from: answer.query.from, to: answer.query.to } : shownRange(view)
  const exportDownload = useMutation({
    mutationFn: (shown: ViewQuery) => downloadDashboard(def.key, shown),
    // onError left out: requestFile already showed the server's message.
  })
  const mayExport = def.permission === null || may({ permissions: [`${def.permission}:export`] })
  const allowed = (permission: string) => may({ permissions: [permission] })

  const setView = (next: ViewQuery) => setParams(writeViewQuery(next))

  const figures = def.figures
    .map((figure) => ({ figure, shown: shownColumns(figure, allowed), data: answer?.figures.find((f) => f.key === figure.key) }))
    // A figure with nothing the user may see, or that the server left out for them, is not shown.
    .filter(({ figure, shown, data: d }) => shown.length > (figure.kind === 'kpis' || figure.kind === 'table' ? 0 : 1) && (!answer || d))
  const firstLoad = data.isPending
  const failed = data.isError && !data.isFetching
  // A request the server refused (400): the same view would be refused again.
  const refused = data.error instanceof ApiError && data.error.kind === 'business' && data.error.code === 400

  return (
    <div className="dash-page" data-testid={`dashboard-${def.key}`}>
      <div className="dash-head">
        {header ?? (
          <Typography.Title level={4} className="dash-title">
            {localized(def.title)}
          </Typography.Title>
        )}
        <Space className="dash-meta" size="middle">
          {data.isFetching && !firstLoad && <Spin size="small" data-testid="dashboard-refreshing" />}
          {answer && (
            <Typography.Text type="secondary" data-testid="dashboard-updated">
              {answer.refreshedAt ? t('dashboard.updated', { time: dayjs(answer.refreshedAt).format('HH:mm') }) : t('dashboard.live')}
            </Typography.Text>
          )}
          {mayExport && (
            <Button icon={<DownloadOutlined />} loading={exportDownload.isPending} disabled={failed || firstLoad} onClick={() => exportDownload.mutate(view)} data-testid="dashboard-export">
              {t('dashboard.export')}
            </Button>
          )}
        </Space>
      </div>
      <FiltersBar def={def} range={range} view={view} onChange={setView} onReset={() => setView({})} />
      {failed && (
        <Alert
          type="error"
          showIcon
          title={failureText(data.error, t('dashboard.failed'))}
          action={
            refused ? (
              // The server refused this view (a reversed or too long range from the URL): asking again
              // cannot succeed, the default range can.
              <Button size="small" onClick={() => setView({ ...view, from: undefined, to: undefined })} data-testid="dashboard-default-range">
                {t('dashboard.showDefault', { days: DASHBOARD_DEFAULT_DAYS })}
              </Button>
            ) : (
              <Button size="small" onClick={() => void data.refetch()} data-testid="dashboard-retry">
                {t('dashboard.retry')}
              </Button>
            )
          }
          data-testid="dashboard-error"
        />
      )}
      {!failed && (
        <div className="dash-grid">
          {figures.map(({ figure, shown, data: d }) => (
            <Figure key={figure.key} figure={figure} data={d} shown={shown} range={range} />
          ))}
        </div>
      )}
    </div>
  )
}
