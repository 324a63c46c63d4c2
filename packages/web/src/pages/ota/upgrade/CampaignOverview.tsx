import { useMemo } from 'react'
import { Alert, Button, Empty, Space, Table, Tag, Tooltip, Typography, theme } from 'antd'
import type { ColumnsType } from 'antd/es/table'
import { entityByKey, type OtaCampaignOverview, type OtaPart } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { EChart } from '../../../crud/details/EChart'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import { localized } from '../../../i18n'
import { CHART_BANDS, shownStates, stateOption, timelineOption, type ChartBand } from './overview'
import './upgrade.css'
import { useEntities } from '../../../entities/areas'

type Wave = OtaCampaignOverview['waves'][number]
type FailedDevice = OtaCampaignOverview['failed'][number]

const WAVE_STATUS_COLOUR: Record<Wave['status'], string> = { waiting: 'default', running: 'processing', passed: 'success', stopped: 'error' }

/** A tag in the state's colour, with its label in the page's language. */
export function DeviceStateTag({ state }: { state: string }) {
  const option = stateOption(state)
  return <Tag color={option?.color}>{option ? localized(option.label) : state}</Tag>
}

/** Why the campaign is paused, prominent: the rollout's sentence when it stopped itself, or what the person who paused it wrote. */
function PauseReason({ reason }: { reason: string | null }) {
  const { t } = useTranslation()
  return <Alert type="error" showIcon title={t('ota.upgrade.pausedTitle')} description={reason || undefined} data-testid="ota-pause-reason" />
}

/** How a finished campaign ended, in one sentence: succeeded, failed, rolled back, skipped, cancelled. */
function FinishedSummary({ counts }: { counts: OtaCampaignOverview['counts'] }) {
  const { t } = useTranslation()
  const n = (state: keyof typeof counts) => counts[state] ?? 0
  const summary = {
    succeeded: n('succeeded'),
    failed: n('failed') + n('timedOut') + n('rejected'),
    rolledBack: n('rolledBack'),
    skipped: n('skipped'),
    cancelled: n('cancelled'),
  }
  return <Alert type="success" showIcon title={t('ota.upgrade.finishedTitle')} description={t('ota.upgrade.finishedSummary', summary)} data-testid="ota-finished-summary" />
}

/** One wave as a bar of its devices: succeeded, failed, in progress and queued, in the states' colours. */
function WaveBar({ wave }: { wave: Wave }) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  const segments = [
    { key: 'succeeded', n: wave.succeeded, colour: token.colorSuccess },
    { key: 'failed', n: wave.failed, colour: token.colorError },
    { key: 'active', n: wave.active, colour: token.colorPrimary },
    { key: 'queued', n: wave.queued, colour: token.colorFillSecondary },
  ]
  const name = wave.wave === 0 ? t('ota.upgrade.canary') : t('ota.upgrade.wave', { n: wave.wave })
  const summary = t('ota.upgrade.waveCounts', { ...wave })
  return (
    <div className="ota-wave" data-testid={`ota-wave-${wave.wave}`} data-status={wave.status}>
      <div className="ota-wave-head">
        <Typography.Text strong>{name}</Typography.Text>
        <Tag color={WAVE_STATUS_COLOUR[wave.status]}>{t(`ota.upgrade.waveStatus.${wave.status}`)}</Tag>
        <Typography.Text type="secondary">{summary}</Typography.Text>
      </div>
      <Tooltip title={summary}>
        <div className="ota-wave-bar" role="img" aria-label={`${name}: ${summary}`} style={{ background: token.colorFillQuaternary }}>
          {wave.total > 0 &&
            segments
              .filter((s) => s.n > 0)
              .map((s) => <div key={s.key} className="ota-wave-segment" data-segment={s.key} style={{ width: `${(s.n / wave.total) * 100}%`, background: s.colour }} />)}
        </div>
      </Tooltip>
    </div>
  )
}

export interface CampaignOverviewProps {
  part: OtaPart
  overview: OtaCampaignOverview
  /** Opens a failed device (its drawer); without it the SN is plain text. */
  onOpenDevice?: (deviceId: number) => void
  /** Shows every device of the campaign (the devices tab). */
  onShowDevices?: () => void
}

/**
 * A campaign's live view: the pause reason when paused, the devices per state, each wave's progress
 * (the canary first), the states over time and the devices that failed with their codes.
 */
export function CampaignOverview({ part, overview, onOpenDevice, onShowDevices }: CampaignOverviewProps) {
  const { t } = useTranslation()
  const { token } = theme.useToken()
  useEntities(`${part}UpgradeDevice`)
  const deviceEntity = entityByKey(`${part}UpgradeDevice`)
  const labelOf = (name: string) => {
    const field = deviceEntity.fieldMap.get(name)
    return field ? localized(field.label) : name
  }

  const chart = useMemo(() => {
    const colour: Record<ChartBand, string> = {
      queued: token.colorTextQuaternary,
      active: token.colorPrimary,
      succeeded: token.colorSuccess,
      failed: token.colorError,
      rejected: token.colorWarning,
      skipped: token.colorTextTertiary,
      cancelled: token.colorBorder,
    }
    const bands = Object.fromEntries(CHART_BANDS.map((b) => [b.key, { name: t(`ota.upgrade.band.${b.key}`), colour: colour[b.key] }])) as Record<ChartBand, { name: string; colour: string }>
    return timelineOption(overview.timeline, bands)
  }, [overview.timeline, token, t])

  const failedColumns: ColumnsType<FailedDevice> = [
    {
      key: 'sn',
      title: labelOf('deviceId'),
      render: (_, d) =>
        onOpenDevice ? (
          <Typography.Link onClick={() => onOpenDevice(d.deviceId)} data-testid="ota-failed-device">
            {d.sn}
          </Typography.Link>
        ) : (
          d.sn
        ),
    },
    { key: 'state', title: labelOf('state'), render: (_, d) => <DeviceStateTag state={d.state} /> },
    { key: 'code', title: labelOf('code'), render: (_, d) => (d.code ? <Typography.Text code>{d.code}</Typography.Text> : null) },
    { key: 'message', title: labelOf('message'), render: (_, d) => d.message, ellipsis: true },
    { key: 'attempt', title: labelOf('attempt'), dataIndex: 'attempt', align: 'right' },
    { key: 'at', title: labelOf('finishedAt'), render: (_, d) => (d.at ? dayjs(d.at).format(DATETIME_FORMAT) : null) },
  ]

  return (
    <div className="ota-overview" data-testid="ota-overview" data-status={overview.status}>
      {overview.status === 'paused' && <PauseReason reason={overview.pauseReason} />}
      {overview.status === 'finished' && <FinishedSummary counts={overview.counts} />}

      <Space size={[8, 8]} wrap data-testid="ota-counts">
        <Typography.Text strong data-testid="ota-total">
          {t('ota.upgrade.total', { total: overview.totalDevices })}
        </Typography.Text>
        {shownStates(overview.counts).map((o) => (
          <Tag key={o.value} color={o.color} data-testid={`ota-count-${o.value}`}>
            {localized(o.label)} {overview.counts[o.value]}
          </Tag>
        ))}
      </Space>

      {overview.totalDevices === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('ota.upgrade.noDevices')} data-testid="ota-no-devices" />
      ) : (
        <>
          <section>
            <Typography.Title level={5}>{t('ota.upgrade.waves')}</Typography.Title>
            <div className="ota-waves">
              {overview.waves.map((w) => (
                <WaveBar key={w.wave} wave={w} />
              ))}
            </div>
          </section>

          <section>
            <Typography.Title level={5}>{t('ota.upgrade.timeline')}</Typography.Title>
            {overview.timeline.length ? (
              <EChart option={chart} height={200} testId="ota-timeline" />
            ) : (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('ota.upgrade.noTimeline')} />
            )}
          </section>

          <section>
            <div className="ota-section-head">
              <Typography.Title level={5}>{t('ota.upgrade.failedDevices')}</Typography.Title>
              {onShowDevices && (
                <Button type="link" size="small" onClick={onShowDevices} data-testid="ota-show-devices">
                  {t('ota.upgrade.showDevices')}
                </Button>
              )}
            </div>
            <Table<FailedDevice>
              size="small"
              rowKey="upgradeId"
              columns={failedColumns}
              dataSource={overview.failed}
              pagination={overview.failed.length > 10 ? { size: 'small', pageSize: 10, showSizeChanger: false } : false}
              scroll={{ x: 'max-content' }}
              locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('ota.upgrade.noFailures')} /> }}
              data-testid="ota-failed"
            />
          </section>
        </>
      )}
    </div>
  )
}
