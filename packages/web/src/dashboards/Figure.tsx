import { useMemo, useState } from 'react'
import { Card, Empty, Segmented, Skeleton, Typography } from 'antd'
import type { FigureData, FigureDef } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../i18n'
import { chartHeight, chartOption, type ShownColumn } from './chartOption'
import { DashChart, useChartColors } from './DashChart'
import { FigureTable } from './FigureTable'
import { KpiCards } from './KpiCards'

type View = 'chart' | 'table'

export interface FigureProps {
  figure: FigureDef
  /** Undefined until the first answer (a skeleton shows). */
  data: FigureData | undefined
  shown: ShownColumn[]
  /** The range the figures were counted over (card links may carry it). */
  range?: { from: string; to: string }
}

/** A chart figure: drawn, or its rows as the summary table. */
function ChartFigure({ figure, data, shown }: { figure: FigureDef; data: FigureData; shown: ShownColumn[] }) {
  const { t } = useTranslation()
  const colors = useChartColors()
  const [view, setView] = useState<View>('chart')
  const option = useMemo(() => chartOption(figure, data, shown, colors), [figure, data, shown, colors])
  return (
    <>
      <Segmented<View>
        size="small"
        className="dash-toggle"
        value={view}
        onChange={setView}
        options={[
          { value: 'chart', label: t('dashboard.chart') },
          { value: 'table', label: t('dashboard.table') },
        ]}
        data-testid={`toggle-${figure.key}`}
      />
      {view === 'chart' && option ? (
        <DashChart option={option} height={chartHeight(figure, data, shown)} testId={`chart-${figure.key}`} />
      ) : (
        <FigureTable figureKey={figure.key} data={data} shown={shown} />
      )}
    </>
  )
}

/**
 * One figure of a dashboard: its title and what it counts, then cards, a chart (with a table view
 * of the same rows) or a table; a skeleton before the first answer, "No data" for no rows.
 */
export function Figure({ figure, data, shown, range }: FigureProps) {
  const { t } = useTranslation()
  let body
  if (!data) body = <Skeleton active paragraph={{ rows: figure.kind === 'kpis' ? 1 : 5 }} />
  else if (data.rows.length === 0) body = <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('dashboard.empty')} data-testid={`empty-${figure.key}`} />
  else if (figure.kind === 'kpis') body = <KpiCards data={data} shown={shown} range={range} />
  else if (figure.kind === 'table') body = <FigureTable figureKey={figure.key} data={data} shown={shown} />
  else body = <ChartFigure figure={figure} data={data} shown={shown} />

  // The cards of the home page and each dashboard's summary stand on their own, without a frame.
  if (figure.kind === 'kpis') {
    return (
      <section className="dash-figure dash-span-2" data-testid={`figure-${figure.key}`}>
        {body}
      </section>
    )
  }
  return (
    <Card
      size="small"
      className={`dash-figure${figure.span === 2 ? ' dash-span-2' : ''}`}
      title={localized(figure.title)}
      data-testid={`figure-${figure.key}`}
    >
      {figure.help && (
        <Typography.Paragraph type="secondary" className="dash-help">
          {localized(figure.help)}
        </Typography.Paragraph>
      )}
      {body}
    </Card>
  )
}
