import type { Db } from '../../../db/database'

export interface DeviceTemplate {
  configId: number
  name: string
  fallAngle: number | null
  lowBatteryPercent: number | null
  vibrationSensitivity: number | null
}

/**
 * The template a device was last pushed: the configuration it should run, whatever became of the
 * push (a refused or queued one still names what the device is meant to run). Null: never pushed.
 */
export async function deviceTemplate(db: Db, deviceId: number): Promise<DeviceTemplate | null> {
  return (await deviceTemplates(db, [deviceId])).get(deviceId) ?? null
}

/**
 * deviceTemplate for many devices in one statement: the alarm rules read the thresholds of every
 * device that reports, and one query a device each was the largest share of the ingest's work with a
 * fleet of 20,000 (docs/ops/capacity.md › Per-device reads at fleet scale). Devices never pushed a template are absent.
 */
export async function deviceTemplates(db: Db, deviceIds: readonly number[]): Promise<Map<number, DeviceTemplate>> {
  if (deviceIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('iotConfigPush as p')
    .innerJoin('iotConfig as c', 'c.configId', 'p.configId')
    .select(['p.deviceId', 'c.configId', 'c.name', 'c.fallAngle', 'c.lowBatteryPercent', 'c.vibrationSensitivity'])
    .where('p.pushId', 'in', (eb) =>
      eb
        .selectFrom('iotConfigPush as latest')
        .innerJoin('iotConfig as lc', 'lc.configId', 'latest.configId')
        .select((e) => e.fn.max('latest.pushId').as('pushId'))
        .where('latest.deviceId', 'in', [...deviceIds])
        .groupBy('latest.deviceId'),
    )
    .execute()
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return new Map(rows.map((row) => [Number(row.deviceId), { configId: Number(row.configId), name: row.name, fallAngle: n(row.fallAngle), lowBatteryPercent: n(row.lowBatteryPercent), vibrationSensitivity: n(row.vibrationSensitivity) }]))
}
