import { iotGeofenceEntities, parseGeometry, type TelemetryPayload } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { Db } from '../../../db/database'
import type { UpMessage } from '../../../gateway/types'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { repeat } from '../../../platform/jobs/schedule'
import { envelope } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { alarmsOf } from '../warnings/alarms'
import { alarmAction, type Crossing, type DeviceKey, type FenceRow, GeofenceEvaluator, type Trigger } from './evaluator'

// IoT › Geofences (issue 42 §3): the entity's routes, and the check of every position the gateway
// receives against the enabled fences (evaluator.ts), raising and clearing the 'geofence' warning
// through the warnings module (alarm code = the fence's id: each fence is its own warning).

const { iotGeofence } = iotGeofenceEntities
/** How often an instance asks whether another one changed the fences (a count and two times: one cheap read). */
const RELOAD_CHECK_MS = 3000
/** A device's rider (its country) changes seldom: read again after this long, in the background. */
const COUNTRY_TTL_MS = 5 * 60_000
/** Devices seen for the first time whose stored positions one query reads. */
const SEED_BATCH = 500

type Loose = Record<string, unknown>

/** The enabled fences with their "applies to" lists. */
export async function loadFences(db: Db): Promise<FenceRow[]> {
  const rows = await db.selectFrom('iotGeofence').select(['geofenceId', 'name', 'geometry', 'trigger', 'allDevices']).where('status', '=', '0').execute()
  if (!rows.length) return []
  const ids = rows.map((r) => Number(r.geofenceId))
  const [models, countries, devices] = await Promise.all([
    db.selectFrom('iotGeofenceModel').select(['geofenceId', 'modelId as to']).where('geofenceId', 'in', ids).execute(),
    db.selectFrom('iotGeofenceCountry').select(['geofenceId', 'countryId as to']).where('geofenceId', 'in', ids).execute(),
    db.selectFrom('iotGeofenceDevice').select(['geofenceId', 'deviceId as to']).where('geofenceId', 'in', ids).execute(),
  ])
  const byFence = (links: { geofenceId: number | string; to: number | string }[]) => {
    const map = new Map<number, number[]>()
    for (const l of links) {
      const id = Number(l.geofenceId)
      const list = map.get(id) ?? []
      list.push(Number(l.to))
      map.set(id, list)
    }
    return map
  }
  const [m, c, d] = [byFence(models), byFence(countries), byFence(devices)]
  return rows.map((r) => {
    const id = Number(r.geofenceId)
    return {
      geofenceId: id,
      name: r.name,
      geometry: r.geometry,
      trigger: r.trigger as Trigger,
      allDevices: Boolean(r.allDevices),
      modelIds: m.get(id) ?? [],
      countryIds: c.get(id) ?? [],
      deviceIds: d.get(id) ?? [],
    }
  })
}

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16)

/**
 * "left Depot Amsterdam at 03:12 UTC". The position goes to the alarm's location fields, not here:
 * the detail is read by whoever may list warnings, and goes into notifications, where a rider's
 * whereabouts would escape their masks, retention and erasure.
 */
export const crossingDetail = (c: Crossing, at: number) => `${c.entered ? 'entered' : 'left'} ${c.name} at ${hhmm(at)} UTC`

export class Geofences {
  readonly evaluator = new GeofenceEvaluator()
  private signature = ''
  private reloading: Promise<void> | null = null
  private reloadAgain = false
  /** First sight of a device: its stored position is read once, the positions meanwhile wait behind it. */
  private readonly seeding = new Map<number, Promise<void>>()
  private readonly countries = new Map<number, { countryId: number | null; until: number }>()
  /** Each device's alarm writes, one after another: a quick exit and re-entry clear in that order. */
  private readonly writes = new Map<number, Promise<void>>()

  constructor(
    private readonly db: Db,
    private readonly services: Services,
    private readonly log: FastifyInstance['log'],
  ) {}

  /** Reads the fences again (a change here, or another instance's seen by the signature). */
  reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true
      return this.reloading
    }
    this.reloading = (async () => {
      do {
        this.reloadAgain = false
        this.signature = await this.readSignature()
        this.evaluator.load(await loadFences(this.db))
      } while (this.reloadAgain)
    })().finally(() => (this.reloading = null))
    return this.reloading
  }

  private async readSignature(): Promise<string> {
    const r = await this.db
      .selectFrom('iotGeofence')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('geofenceId').as('id'), eb.fn.max('updateTime').as('updated'), eb.fn.max('createTime').as('created')])
      .executeTakeFirst()
    return JSON.stringify([Number(r?.n ?? 0), r?.id ?? null, r?.updated ? String(r.updated) : null, r?.created ? String(r.created) : null])
  }

  /** Reloads when another instance changed the fences. */
  async checkForChanges(): Promise<void> {
    if (this.reloading) return
    if ((await this.readSignature()) !== this.signature) await this.reload()
  }

  onTelemetry(m: UpMessage<TelemetryPayload>): Promise<void> {
    const gps = m.payload.gps
    if (!gps || this.evaluator.fences.fences.length === 0) return Promise.resolve()
    const deviceId = m.device.deviceId
    const seeding = this.seeding.get(deviceId)
    if (seeding) return seeding.then(() => this.judge(m, gps.lat, gps.lng))
    if (!this.evaluator.known(deviceId)) {
      const seeded = this.seed(m).finally(() => this.seeding.delete(deviceId))
      this.seeding.set(deviceId, seeded)
      return seeded.then(() => this.judge(m, gps.lat, gps.lng))
    }
    return this.judge(m, gps.lat, gps.lng)
  }

  /** The device's last stored position (the one before this message, unless it was written first): no crossing is said for it. */
  private async seed(m: UpMessage<TelemetryPayload>) {
    const deviceId = m.device.deviceId
    const position = await this.storedPosition(deviceId)
    if (position) this.evaluator.seed(this.keyOf(m), position.lat, position.lng)
  }

  /**
   * The stored position of a device seen for the first time, read with the others of the same moment
   * in one query: after a start the whole fleet is new at once, 12,000 reads one by one would queue
   * behind each other (and, on SQLite, beside the presence writer).
   */
  private storedPosition(deviceId: number): Promise<{ lat: number; lng: number } | null> {
    return new Promise((resolve, reject) => {
      this.positionWaiters.push({ deviceId, resolve, reject })
      if (this.positionWaiters.length === 1) setImmediate(() => void this.readPositions())
    })
  }

  private readonly positionWaiters: { deviceId: number; resolve: (p: { lat: number; lng: number } | null) => void; reject: (err: unknown) => void }[] = []

  private async readPositions() {
    const waiters = this.positionWaiters.splice(0, SEED_BATCH)
    if (this.positionWaiters.length) setImmediate(() => void this.readPositions())
    try {
      const rows = await this.db
        .selectFrom('iotDevice')
        .select(['deviceId', 'latitude', 'longitude'])
        .where('deviceId', 'in', [...new Set(waiters.map((w) => w.deviceId))])
        .execute()
      const found = new Map(rows.map((r) => [Number(r.deviceId), r]))
      if (this.evaluator.fences.usesCountries) await this.readCountries(waiters.map((w) => w.deviceId))
      for (const w of waiters) {
        const r = found.get(w.deviceId)
        w.resolve(r && r.latitude !== null && r.longitude !== null && r.latitude !== undefined && r.longitude !== undefined ? { lat: Number(r.latitude), lng: Number(r.longitude) } : null)
      }
    } catch (err) {
      for (const w of waiters) w.reject(err)
    }
  }

  private async readCountries(deviceIds: readonly number[]) {
    const rows = await this.db
      .selectFrom('bikeBike')
      .innerJoin('memMember', 'memMember.memberId', 'bikeBike.memberId')
      .select(['bikeBike.iotDeviceId', 'memMember.countryId'])
      .where('bikeBike.iotDeviceId', 'in', [...deviceIds])
      .execute()
    const byDevice = new Map(rows.map((r) => [Number(r.iotDeviceId), r.countryId === null || r.countryId === undefined ? null : Number(r.countryId)]))
    for (const id of deviceIds) this.countries.set(id, { countryId: byDevice.get(id) ?? null, until: Date.now() + COUNTRY_TTL_MS })
  }

  private keyOf(m: UpMessage): DeviceKey {
    const deviceId = m.device.deviceId
    let countryId: number | null = null
    if (this.evaluator.fences.usesCountries) {
      const known = this.countries.get(deviceId)
      countryId = known?.countryId ?? null
      if (!known || known.until < Date.now()) {
        // Judged with what is known now; the next position has the fresh one.
        this.countries.set(deviceId, { countryId, until: Date.now() + COUNTRY_TTL_MS })
        this.readCountries([deviceId]).catch((err: unknown) => this.log.warn({ err, deviceId }, 'geofence: country of the device not read'))
      }
    }
    return { deviceId, modelId: m.device.modelId, countryId }
  }

  private judge(m: UpMessage, lat: number, lng: number): Promise<void> {
    const crossings = this.evaluator.move(this.keyOf(m), lat, lng)
    if (!crossings.length) return Promise.resolve()
    const deviceId = m.device.deviceId
    const alarms = alarmsOf(this.services)
    const write = async () => {
      for (const c of crossings) {
        const code = String(c.fenceId)
        if (alarmAction(c) === 'raise') await alarms.raise({ deviceId, type: 'geofence', code, detail: crossingDetail(c, m.receivedAt), position: { lat, lng } })
        else await alarms.clear(deviceId, 'geofence', code)
      }
    }
    const next = (this.writes.get(deviceId) ?? Promise.resolve()).then(write)
    const kept = next.catch((err: unknown) => this.log.error({ err, deviceId }, 'geofence warning not written'))
    this.writes.set(deviceId, kept)
    void kept.then(() => {
      if (this.writes.get(deviceId) === kept) this.writes.delete(deviceId)
    })
    return next
  }

  /** Resolves once every alarm write begun so far is done (tests, the bench). */
  async settled(): Promise<void> {
    await Promise.all([...this.seeding.values(), ...this.writes.values()])
  }
}

const byServices = new WeakMap<Services, Geofences>()

/** The geofences of one server (tests and the bench reach the evaluator here). */
export function geofencesOf(services: Services): Geofences {
  const g = byServices.get(services)
  if (!g) throw new Error('the geofence module is not registered')
  return g
}

/** The shape a geometry says (a circle or a polygon): the field is the server's to set. */
function setShape(values: Loose) {
  if (typeof values.geometry !== 'string') return
  const parsed = parseGeometry(values.geometry)
  if (parsed.ok) values.shape = parsed.shape
}

export function registerGeofences(app: FastifyInstance, services: Services) {
  const geofences = new Geofences(services.db, services, app.log)
  byServices.set(services, geofences)
  const reload = () => geofences.reload().catch((err: unknown) => app.log.error({ err }, 'geofences not loaded'))

  registerEntityRoutes(app, services, iotGeofence, {
    beforeCreate: async ({ values }) => setShape(values),
    beforeUpdate: async ({ values }) => setShape(values),
    // This instance at once; the others within RELOAD_CHECK_MS.
    afterCommit: async () => {
      await reload()
    },
  })

  const api = app.withTypeProvider<ZodTypeProvider>()
  api.get(
    '/iot/geofence/setup',
    {
      config: { permission: `${iotGeofence.permission}:list` },
      schema: {
        tags: [iotGeofence.label.en_US],
        summary: "The geofence form's base map: MAP_STYLE_URL, or absent for the world map shipped with the console",
        response: { 200: envelope(z.object({ styleUrl: z.string().optional() })) },
      },
    },
    async () => (services.config.mapStyleUrl ? { styleUrl: services.config.mapStyleUrl } : {}),
  )

  app.iot.gateway.on('telemetry', (m) => {
    geofences.onTelemetry(m as UpMessage<TelemetryPayload>).catch((err: unknown) => app.log.error({ err, sn: m.device.sn }, 'geofence check failed'))
  })
  void reload()
  const stop = repeat(RELOAD_CHECK_MS, () => {
    geofences.checkForChanges().catch((err: unknown) => app.log.warn({ err }, 'geofence change check failed'))
  })
  app.addHook('onClose', async () => stop())
}
