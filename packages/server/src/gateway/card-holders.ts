import type { Db } from '../db/database'

/**
 * The rule for a SIM card two devices claim, in one place: a card linked to another device that
 * still exists stays with that device until staff move it (the simClash alarm, modules/iot/sim); a
 * link to a deleted device holds nothing. Read here by the device state writer (presence.ts), which
 * then keeps the card off the reporting device's row, and by the SIM usage writer, which holds the
 * claim and raises the alarm.
 */
export async function cardHolders(db: Db, iccids: string[]): Promise<Map<string, { deviceId: number; sn: string }>> {
  if (!iccids.length) return new Map()
  const rows = await db.selectFrom('iotSim as s').innerJoin('iotDevice as d', 'd.deviceId', 's.deviceId').select(['s.iccid', 'd.deviceId', 'd.sn']).where('s.iccid', 'in', [...new Set(iccids)]).execute()
  return new Map(rows.map((r) => [String(r.iccid), { deviceId: Number(r.deviceId), sn: String(r.sn) }]))
}

/** The device holding a card a device reports, when it is another one. */
export const heldByAnother = (holders: Map<string, { deviceId: number; sn: string }>, iccid: string, deviceId: number) => {
  const holder = holders.get(iccid)
  return holder && holder.deviceId !== deviceId ? holder : undefined
}
