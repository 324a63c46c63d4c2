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
  const row = await db
    .selectFrom('iotConfigPush as p')
    .innerJoin('iotConfig as c', 'c.configId', 'p.configId')
    .select(['c.configId', 'c.name', 'c.fallAngle', 'c.lowBatteryPercent', 'c.vibrationSensitivity'])
    .where('p.deviceId', '=', deviceId)
    .orderBy('p.pushId', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (!row) return null
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return { configId: Number(row.configId), name: row.name, fallAngle: n(row.fallAngle), lowBatteryPercent: n(row.lowBatteryPercent), vibrationSensitivity: n(row.vibrationSensitivity) }
}
