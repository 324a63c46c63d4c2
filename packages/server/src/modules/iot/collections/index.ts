import { iotTelemetryEntities, TELEMETRY_FLEET_WINDOW_MINUTES, TELEMETRY_SERIES_MAX_DAYS, type TelemetryPayload, telemetrySeries as seriesSchema, telemetrySeriesRequest } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { UpMessage } from '../../../gateway/types'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { badRequest } from '../../../platform/errors'
import { envelope } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { registerRetention } from '../../../ops/maintenance/targets'
import { keepTelemetryPartitions } from './partitions'
import { TelemetryRecorder, type TelemetryRecorderOptions } from './recorder'
import { telemetrySeries } from './series'

const { iotTelemetry } = iotTelemetryEntities
const byServices = new WeakMap<Services, TelemetryRecorder>()

/** The app's telemetry recorder (tests flush and sweep it). */
export function telemetryRecorderOf(services: Services): TelemetryRecorder {
  const recorder = byServices.get(services)
  if (!recorder) throw new Error('the IoT collections module is not registered')
  return recorder
}

const present = (v: unknown) => v !== undefined && v !== null && v !== ''
const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 86_400_000

/**
 * A list or export that names no device reads the whole fleet, 29 M rows a day at 10,000 devices: it
 * is kept to a window of TELEMETRY_FLEET_WINDOW_MINUTES (the last one when no range is given), so
 * its page and count stay a short scan of the time index. With a device, the (deviceId, receivedAt)
 * index bounds any range.
 */
function fleetWindow(body: Record<string, unknown>) {
  if (present(body.deviceId)) return
  const windowMs = TELEMETRY_FLEET_WINDOW_MINUTES * 60_000
  const range = body.receivedAt
  if (!Array.isArray(range) || (!present(range[0]) && !present(range[1]))) {
    body.receivedAt = [new Date(Date.now() - windowMs).toISOString(), null]
    return
  }
  const [from, to] = range.map((v) => (typeof v === 'string' ? v : ''))
  const start = Date.parse(from!)
  // A bare date ends with its whole day, as the list reads it.
  const end = Date.parse(to!) + (BARE_DATE.test(to!) ? DAY_MS : 0)
  if (!(end - start <= windowMs)) throw badRequest('iot.telemetry.fleetWindow', { minutes: TELEMETRY_FLEET_WINDOW_MINUTES })
}

/**
 * IoT › collections (issue 17): the telemetry history. The gateway's telemetry reports are stored in
 * batches; the engine serves the list, details and export, always within one device or a short
 * fleet-wide window; `POST /iot/collection/series` answers the chart.
 */
export function registerCollections(app: FastifyInstance, services: Services, options: TelemetryRecorderOptions = {}) {
  const db = services.db
  const recorder = new TelemetryRecorder({ db, dialect: services.dialect, configValues: services.configValues, logger: app.log, commits: app.iot.commits }, options)
  byServices.set(services, recorder)
  // The retention job trims the telemetry history past its days through this.
  registerRetention(services, 'telemetry', () => recorder.sweep())
  if (services.dialect === 'postgres') {
    // On every instance, at its start and then daily: the writer needs today's partition whichever
    // instance claimed the last run, and making one twice is harmless.
    services.jobs.every({
      key: 'iotTelemetry.partitions',
      every: '24h',
      runs: 'everywhere',
      atStart: true,
      run: async () => {
        const made = await keepTelemetryPartitions(db)
        if (made.length) app.log.info({ partitions: made }, 'telemetry partitions made')
      },
    })
  }
  app.iot.gateway.on('telemetry', (m) => recorder.record(m as UpMessage<TelemetryPayload>))
  app.iot.attach(recorder)

  // The engine's list, export and export job take the window rule before their body is checked; the
  // summary (counts per day) is asked per device only.
  const windowed = new Set(['list', 'export', 'export/job'].map((r) => `${iotTelemetry.path}/${r}`))
  const summary = `${iotTelemetry.path}/summary`
  app.addHook('onRoute', (route) => {
    const path = route.routePath || route.path
    if (!windowed.has(path) && path !== summary) return
    const check = async (req: FastifyRequest) => {
      // No body at all is a list of everything: it gets the window too.
      req.body ??= {}
      const body = req.body as Record<string, unknown>
      if (typeof body !== 'object') return
      if (path === summary) {
        if (!present(body.deviceId)) throw badRequest('iot.telemetry.deviceRequired')
      } else fleetWindow(body)
    }
    route.preValidation = [...(Array.isArray(route.preValidation) ? route.preValidation : route.preValidation ? [route.preValidation] : []), check]
  })
  registerEntityRoutes(app, services, iotTelemetry)

  app.withTypeProvider<ZodTypeProvider>().post(
    `${iotTelemetry.path}/series`,
    {
      config: { permission: `${iotTelemetry.permission}:list`, audit: false },
      schema: {
        tags: [iotTelemetry.label.en_US],
        summary: `One device's telemetry per bucket (at most ${TELEMETRY_SERIES_MAX_DAYS} days, about 500 points): average battery, speed and signal, top speed, positions`,
        body: telemetrySeriesRequest,
        response: { 200: envelope(seriesSchema) },
      },
    },
    async (req) => {
      const { deviceId } = req.body
      const from = new Date(req.body.from)
      const to = new Date(req.body.to)
      if (!(from < to)) throw badRequest('iot.telemetry.badRange')
      if (to.getTime() - from.getTime() > TELEMETRY_SERIES_MAX_DAYS * DAY_MS) throw badRequest('iot.telemetry.rangeTooLong', { days: TELEMETRY_SERIES_MAX_DAYS })
      const device = await db.selectFrom('iotDevice').select('deviceId').where('deviceId', '=', deviceId).executeTakeFirst()
      if (!device) throw badRequest('iot.telemetry.deviceNotFound', { deviceId })
      return telemetrySeries(db, services.dialect, deviceId, from, to)
    },
  )
}
