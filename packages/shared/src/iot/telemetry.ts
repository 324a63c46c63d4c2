import { z } from 'zod'

// The telemetry history's chart (POST /iot/collection/series): one shape for the server's answer
// and the console's page.

/** The longest range one chart covers: a month, so a query stays one device's index range. */
export const TELEMETRY_SERIES_MAX_DAYS = 31
/** Points a chart holds at most: more than a screen is wide says nothing more. */
export const TELEMETRY_SERIES_MAX_POINTS = 500
/** A list or export without a device covers the whole fleet: it may span this much at most (and defaults to the last of it). */
export const TELEMETRY_FLEET_WINDOW_MINUTES = 60

const BUCKET_SECONDS = [60, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400] as const

/** The smallest round bucket that keeps the range within TELEMETRY_SERIES_MAX_POINTS points. */
export function telemetryBucketSeconds(fromMs: number, toMs: number): number {
  const seconds = Math.max(0, toMs - fromMs) / 1000
  return BUCKET_SECONDS.find((b) => seconds / b <= TELEMETRY_SERIES_MAX_POINTS) ?? 86_400
}

export const telemetrySeriesRequest = z.object({
  deviceId: z.number().int().positive(),
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
})
export type TelemetrySeriesRequest = z.infer<typeof telemetrySeriesRequest>

export const telemetrySeriesPoint = z.object({
  /** The bucket's start (UTC ISO). */
  time: z.string(),
  /** Reports in the bucket. */
  count: z.number(),
  battery: z.number().nullable(),
  speed: z.number().nullable(),
  maxSpeed: z.number().nullable(),
  /** Reports that carried a position. */
  positions: z.number(),
  signal: z.number().nullable(),
})
export type TelemetrySeriesPoint = z.infer<typeof telemetrySeriesPoint>

/** Buckets with reports only, oldest first; the chart leaves the others as gaps. */
export const telemetrySeries = z.object({
  bucketSeconds: z.number(),
  from: z.string(),
  to: z.string(),
  points: z.array(telemetrySeriesPoint),
})
export type TelemetrySeries = z.infer<typeof telemetrySeries>
