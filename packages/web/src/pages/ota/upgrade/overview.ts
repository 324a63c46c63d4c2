import { OTA_ACTIVE_STATES, OTA_DEVICE_STATE_OPTIONS, OTA_FAILURE_STATES, type OtaCampaignOverview, type OtaDeviceState } from '@velo/shared'
import dayjs from 'dayjs'
import type { SmallChartOption } from '../../../crud/details/EChart'

/**
 * The states a campaign's chart draws, each a band of devices: thirteen device states are too many
 * lines to read, so the states a device passes through on the way are one band ("in progress"),
 * and the ones the error threshold counts are another.
 */
export const CHART_BANDS = [
  { key: 'queued', states: ['queued', 'held'] },
  { key: 'active', states: OTA_ACTIVE_STATES },
  { key: 'succeeded', states: ['succeeded'] },
  { key: 'failed', states: OTA_FAILURE_STATES },
  { key: 'rejected', states: ['rejected'] },
  { key: 'skipped', states: ['skipped'] },
  { key: 'cancelled', states: ['cancelled'] },
] as const satisfies readonly { key: string; states: readonly OtaDeviceState[] }[]
export type ChartBand = (typeof CHART_BANDS)[number]['key']

export const stateOption = (state: string) => OTA_DEVICE_STATE_OPTIONS.find((o) => o.value === state)

/** The devices of one band in a count per state. */
export const bandCount = (counts: Partial<Record<OtaDeviceState, number>>, states: readonly OtaDeviceState[]) => states.reduce((sum, s) => sum + (counts[s] ?? 0), 0)

/** The states with devices, in the states' own order (queued first, cancelled last). */
export const shownStates = (counts: Partial<Record<OtaDeviceState, number>>) => OTA_DEVICE_STATE_OPTIONS.filter((o) => (counts[o.value] ?? 0) > 0)

/**
 * The states over time as stacked bars, one band per colour: the bands add up to the campaign's
 * devices in every bucket, so the chart reads as "how the fleet moved". Bars, not areas: a campaign
 * shorter than a bucket has one point, which an area cannot draw.
 */
/**
 * The buckets' time labels, each one different: minutes while that tells them apart, seconds when
 * buckets are shorter (the last one ends when the campaign did), the date when they span days.
 */
export function timeLabels(timeline: OtaCampaignOverview['timeline']): string[] {
  const sameDay = timeline.length > 0 && dayjs(timeline[0]!.at).isSame(dayjs(timeline.at(-1)!.at), 'day')
  const formats = sameDay ? ['HH:mm', 'HH:mm:ss'] : ['MM-DD HH:mm', 'MM-DD HH:mm:ss']
  for (const format of formats) {
    const labels = timeline.map((p) => dayjs(p.at).format(format))
    if (new Set(labels).size === labels.length) return labels
  }
  return timeline.map((p) => dayjs(p.at).format('YYYY-MM-DD HH:mm:ss.SSS'))
}

export function timelineOption(timeline: OtaCampaignOverview['timeline'], bands: Record<ChartBand, { name: string; colour: string }>): SmallChartOption {
  return {
    grid: { left: 8, right: 8, top: 8, bottom: 4, containLabel: true },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'category', data: timeLabels(timeline) },
    yAxis: { type: 'value', minInterval: 1 },
    series: CHART_BANDS.map((band) => ({
      type: 'bar',
      name: bands[band.key].name,
      stack: 'devices',
      barMaxWidth: 48,
      barCategoryGap: '20%',
      color: bands[band.key].colour,
      data: timeline.map((p) => bandCount(p.counts, band.states)),
    })),
  }
}
