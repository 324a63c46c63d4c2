import type { FastifyInstance } from 'fastify'
import type { Services } from '../../platform/services'
import type { UpMessage } from '../../gateway/types'
import { readTogether } from '../../lib/read-together'

/** What a device on the line is asked to see for a GNSS fix. */
export const MIN_SATELLITES = 4

// A device's place on the line does not change once read: registered through the tool or not, and
// tested or not. An hour is only so that a long-running instance notices what it cannot be told.
const REMEMBER_MS = 3600_000
const REMEMBERED_MAX = 100_000

/**
 * Keeps the latest GNSS fix of each device still on the line (registered through the tool and not
 * yet passed) in its tool row, for the end-of-line test to read on whichever instance it runs.
 * Devices in the field are the many: each instance asks once an hour per device whether it is on
 * the line, and the row's update stops once the device passes.
 */
export function recordLineFixes(app: FastifyInstance, services: Services) {
  const db = services.db
  const onLine = new Map<number, { yes: boolean; until: number }>()
  // Every device reporting a fix in the same tick is asked about at once: after a start, a fleet's
  // first reports asked one query a device.
  const onLineNow = readTogether(async (ids: readonly number[]) => {
    const rows = await db.selectFrom('toolDevice').select(['deviceId', 'testResult']).where('deviceId', 'in', [...ids]).execute()
    return new Map(rows.filter((r) => r.testResult !== 'passed').map((r) => [Number(r.deviceId), true]))
  }, false)

  const isOnLine = async (deviceId: number) => {
    const known = onLine.get(deviceId)
    if (known && known.until > Date.now()) return known.yes
    const yes = await onLineNow(deviceId)
    if (onLine.size >= REMEMBERED_MAX) onLine.clear()
    onLine.set(deviceId, { yes, until: Date.now() + REMEMBER_MS })
    return yes
  }

  const record = async (m: UpMessage) => {
    const gps = (m.payload as { gps?: { lat: number; lng: number; satellites?: number } }).gps
    if (!gps || gps.satellites === undefined) return
    const { deviceId } = m.device
    if (!(await isOnLine(deviceId))) return
    const { numUpdatedRows } = await db
      .updateTable('toolDevice')
      .set({ gnssSatellites: gps.satellites, gnssLatitude: gps.lat, gnssLongitude: gps.lng, gnssAt: new Date().toISOString() })
      .where('deviceId', '=', deviceId)
      .where('testResult', '<>', 'passed')
      .executeTakeFirst()
    if (Number(numUpdatedRows) === 0) onLine.set(deviceId, { yes: false, until: Date.now() + REMEMBER_MS })
  }

  app.iot.gateway.on('telemetry', (m) => record(m).catch((err: unknown) => app.log.error({ err, sn: m.device.sn }, 'could not record the GNSS fix of a device on the line')))
  return {
    /** This instance registered the device: it is on the line from now on. */
    registered(deviceId: number) {
      onLine.set(deviceId, { yes: true, until: Date.now() + REMEMBER_MS })
    },
    /** The device passed here: its fixes are no longer wanted. */
    passed(deviceId: number) {
      onLine.set(deviceId, { yes: false, until: Date.now() + REMEMBER_MS })
    },
  }
}
