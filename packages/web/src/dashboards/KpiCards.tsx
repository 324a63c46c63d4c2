import { Card, Statistic } from 'antd'
import { Link } from 'react-router'
import type { FigureData } from '@velo/shared'
import { localized } from '../i18n'
import { formatValue } from './format'
import type { ShownColumn } from './chartOption'
import { addDays, utcToday } from './urlQuery'

/** `{today}` and `{today-N}`: today's UTC day and N days before it (a card counting the last 7 days). */
const fillToday = (value: string, today: string) => value.replace(/\{today(?:-(\d{1,3}))?\}/g, (_, back?: string) => addDays(today, -Number(back ?? 0)))

/**
 * A link's query, its lists' commas kept readable (state=activeUnack,activeAck), as the list reads
 * them; `{from}` and `{to}` stand for the range the figures were counted over (a card counting the
 * range's feedback opens the list of that range's feedback), `{today}` and `{today-N}` for the days
 * a card counts back from today (the server's days are UTC days too).
 */
export const linkSearch = (query: Record<string, string> = {}, range?: { from: string; to: string }, today: string = utcToday()) =>
  Object.entries(query)
    .map(([k, v]) => [k, fillToday(v, today)] as const)
    .map(([k, v]) => [k, range ? v.replaceAll('{from}', range.from).replaceAll('{to}', range.to) : v] as const)
    .filter(([, v]) => !/[{}]/.test(v))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%2C/g, ',')}`)
    .join('&')

/** A card per column of the one row; a card with a link opens its list with the filter applied. */
export function KpiCards({ data, shown, range }: { data: FigureData; shown: ShownColumn[]; range?: { from: string; to: string } }) {
  const row = data.rows[0] ?? []
  return (
    <div className="dash-cards">
      {shown.map(({ column, index }) => {
        const text = formatValue(row[index], column.unit)
        const card = (
          <Card size="small" hoverable={!!column.link} className="dash-card" data-testid={`card-${column.key}`}>
            <Statistic title={localized(column.label)} value={text} formatter={() => <span data-testid={`card-value-${column.key}`}>{text}</span>} />
          </Card>
        )
        if (!column.link) return <div key={column.key}>{card}</div>
        const search = linkSearch(column.link.query, range)
        return (
          <Link key={column.key} to={{ pathname: column.link.path, search: search ? `?${search}` : '' }} data-testid={`card-link-${column.key}`}>
            {card}
          </Link>
        )
      })}
    </div>
  )
}
