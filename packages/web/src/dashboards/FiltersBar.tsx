import { Button, DatePicker, Select, Space, Typography } from 'antd'
import { ReloadOutlined } from '@ant-design/icons'
import { DASHBOARD_DEFAULT_DAYS, DASHBOARD_FILTER_ENTITY, DASHBOARD_MAX_DAYS, entityByKey, type DashboardDef, type DashboardFilter } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { useEntityChoices } from '../crud/kinds/options'
import { dayOutOfReach, lastDays, utcToday, type ViewQuery } from './urlQuery'
import { useEntities } from '../entities/areas'

const DAY_FORMAT = 'YYYY-MM-DD'
/** The range presets, in days up to today. */
const PRESET_DAYS = [7, 30, 90, 180, 365] as const
/** Product names: the same in every language. */
const PLATFORM_OPTIONS = [
  { value: 'ios', label: 'iOS' },
  { value: 'android', label: 'Android' },
]

export interface FiltersBarProps {
  def: DashboardDef
  /** The range on screen: the URL's, or the default the server applies. */
  range: { from: string; to: string }
  view: ViewQuery
  onChange: (view: ViewQuery) => void
  onReset: () => void
}

/** Countries and models come from the same pickers' options the entity forms use (GET {path}/options). */
function ChoiceFilter({ filter, value, onChange }: { filter: Exclude<DashboardFilter, 'platform'>; value: number | undefined; onChange: (v: number | undefined) => void }) {
  const { t } = useTranslation()
  useEntities(DASHBOARD_FILTER_ENTITY[filter]!)
  const choices = useEntityChoices(entityByKey(DASHBOARD_FILTER_ENTITY[filter]!))
  return (
    <Select<number>
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      style={{ minWidth: 180 }}
      placeholder={t(`dashboard.filter.${filter}`)}
      aria-label={t(`dashboard.filter.${filter}`)}
      loading={choices.loading}
      options={choices.options.map((o) => ({ value: Number(o.value), label: o.label }))}
      value={value}
      onChange={(v) => onChange(v ?? undefined)}
      data-testid={`dashboard-filter-${filter}`}
    />
  )
}

/**
 * The date range (UTC days, with presets) and the filters the dashboard takes. Every change goes to
 * the URL (the page reads its view from there), so back and forward step through the views.
 */
export function FiltersBar({ def, range, view, onChange, onReset }: FiltersBarProps) {
  const { t } = useTranslation()
  const today = utcToday()
  const set = (patch: ViewQuery) => {
    const next = { ...view, ...patch }
    for (const key of Object.keys(patch) as (keyof ViewQuery)[]) if (patch[key] === undefined) delete next[key]
    onChange(next)
  }
  return (
    <Space wrap className="dash-filters" data-testid="dashboard-filters">
      <DatePicker.RangePicker
        allowClear={false}
        value={[dayjs(range.from, DAY_FORMAT), dayjs(range.to, DAY_FORMAT)]}
        format={DAY_FORMAT}
        presets={PRESET_DAYS.map((days) => {
          const r = lastDays(days, today)
          return { label: t('dashboard.lastDays', { count: days }), value: [dayjs(r.from, DAY_FORMAT), dayjs(r.to, DAY_FORMAT)] }
        })}
        onChange={(dates) => {
          const [from, to] = dates ?? []
          if (from && to) set({ from: from.format(DAY_FORMAT), to: to.format(DAY_FORMAT) })
        }}
        // Once one end is picked, only days that keep the range within what the server answers.
        disabledDate={(current, info) => dayOutOfReach(current.format(DAY_FORMAT), info?.from?.format(DAY_FORMAT), today)}
        renderExtraFooter={() => <span data-testid="dashboard-range-limit">{t('dashboard.rangeLimit', { max: DASHBOARD_MAX_DAYS })}</span>}
        aria-label={t('dashboard.range')}
        data-testid="dashboard-range"
      />
      <Typography.Text type="secondary" data-testid="dashboard-range-note">
        {view.from || view.to ? t('dashboard.rangeChosen', { days: DASHBOARD_DEFAULT_DAYS, max: DASHBOARD_MAX_DAYS }) : t('dashboard.rangeDefault', { days: DASHBOARD_DEFAULT_DAYS, max: DASHBOARD_MAX_DAYS })}
      </Typography.Text>
      {def.filters.map((filter) =>
        filter === 'platform' ? (
          <Select<'ios' | 'android'>
            key={filter}
            allowClear
            style={{ minWidth: 140 }}
            placeholder={t('dashboard.filter.platform')}
            aria-label={t('dashboard.filter.platform')}
            options={PLATFORM_OPTIONS}
            value={view.platform}
            onChange={(v) => set({ platform: v ?? undefined })}
            data-testid="dashboard-filter-platform"
          />
        ) : (
          <ChoiceFilter key={filter} filter={filter} value={view[filter]} onChange={(v) => set({ [filter]: v })} />
        ),
      )}
      <Button icon={<ReloadOutlined />} onClick={onReset} data-testid="dashboard-reset">
        {t('dashboard.reset')}
      </Button>
    </Space>
  )
}
