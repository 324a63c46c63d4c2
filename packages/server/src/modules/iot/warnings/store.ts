import type { AlarmEventData, AlarmSeverity, AlarmState, AlarmType } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { IotEvents } from '../../../gateway/types'
import type { Alarms, RaiseAlarm } from './alarms'
import type { Notifier } from './notify'
import type { Db } from '../../../db/database'
import { readTogether } from '../../../lib/read-together'

type Row = Record<string, unknown>

/** Severity when neither the caller nor a message configuration names one. */
export const DEFAULT_SEVERITY: Record<AlarmType, AlarmSeverity> = {
  lowBattery: 'minor',
  fall: 'critical',
  theft: 'major',
  offline: 'minor',
  simDataLow: 'warning',
  fault: 'major',
  simClash: 'major',
  geofence: 'major',
  stolen: 'critical',
}

/** Set while an alarm is active, null once cleared: the one active alarm of a device, type and code. */
export const activeKeyOf = (deviceId: number, type: AlarmType, code?: string) => `${deviceId}:${type}:${code ?? ''}`

/** Where a state goes when the alarm is acknowledged or cleared (absent: it is already there). */
export const ACKNOWLEDGED: Partial<Record<AlarmState, AlarmState>> = { activeUnack: 'activeAck', clearedUnack: 'clearedAck' }
export const CLEARED: Partial<Record<AlarmState, AlarmState>> = { activeUnack: 'clearedUnack', activeAck: 'clearedAck' }

const EVENT_COLUMNS = ['alarmId', 'deviceId', 'type', 'severity', 'state', 'count', 'lastTime'] as const

export function alarmEvent(row: Row, raised: boolean): AlarmEventData {
  return {
    alarmId: Number(row.alarmId),
    deviceId: Number(row.deviceId),
    type: row.type as AlarmType,
    severity: row.severity as AlarmSeverity,
    state: row.state as AlarmState,
    count: Number(row.count),
    lastTime: row.lastTime instanceof Date ? row.lastTime.toISOString() : String(row.lastTime),
    raised,
  }
}

/**
 * The alarms of a fleet served by several instances at once. A repeat is an UPDATE of the row whose
 * activeKey matches; a new alarm an INSERT … ON CONFLICT DO NOTHING on that unique key, so of two
 * instances raising the same alarm at once one inserts and the other counts a repeat.
 */
export class AlarmStore implements Alarms {
  /**
   * The active alarms of keys asked for in the same tick, read together. Nearly every clear finds
   * none (the rules write an outcome once after a start, and a device back online clears its offline
   * alarm): a fleet of 20,000 reconnecting asked for 20,000–60,000 of them one query each.
   */
  private readonly active: (activeKey: string) => Promise<{ alarmId: number; state: string } | null>

  constructor(
    private readonly db: Db,
    private readonly events: () => IotEvents,
    private readonly notifier: Notifier,
    private readonly log: FastifyBaseLogger,
  ) {
    this.active = readTogether(async (keys: readonly string[]) => {
      const rows = await this.db.selectFrom('iotAlarm').select(['alarmId', 'state', 'activeKey']).where('activeKey', 'in', [...keys]).execute()
      return new Map(rows.map((r) => [String(r.activeKey), { alarmId: Number(r.alarmId), state: r.state }]))
    }, null)
  }

  async raise(alarm: RaiseAlarm): Promise<void> {
    await this.raiseOrCount(alarm, true)
  }

  /** Raises the alarm unless it is active already, without counting (the offline sweep of every instance). */
  async raiseOnce(alarm: RaiseAlarm): Promise<boolean> {
    return this.raiseOrCount(alarm, false)
  }

  private async raiseOrCount(alarm: RaiseAlarm, countRepeat: boolean): Promise<boolean> {
    const key = activeKeyOf(alarm.deviceId, alarm.type, alarm.code)
    const detail = (alarm.detail ?? '').slice(0, 500)
    const position = alarm.position ? { latitude: alarm.position.lat, longitude: alarm.position.lng } : {}
    // Twice at most: a repeat that found no row and an insert that lost to another instance's.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = new Date().toISOString()
      if (countRepeat) {
        const repeated = await this.db
          .updateTable('iotAlarm')
          .set((eb) => ({ count: eb('count', '+', 1), lastTime: now, ...(detail ? { detail } : {}), ...position }))
          .where('activeKey', '=', key)
          .returning(EVENT_COLUMNS)
          .executeTakeFirst()
        if (repeated) {
          this.publish(repeated, false)
          return false
        }
      }
      const device = await this.db.selectFrom('iotDevice').select(['modelId']).where('deviceId', '=', alarm.deviceId).executeTakeFirst()
      // A device deleted meanwhile has nothing to warn about.
      if (!device) return false
      const severity = alarm.severity ?? (await this.notifier.severityOf(alarm.type)) ?? DEFAULT_SEVERITY[alarm.type]
      const inserted = await this.db
        .insertInto('iotAlarm')
        .values({
          deviceId: alarm.deviceId,
          modelId: device.modelId,
          type: alarm.type,
          code: alarm.code ?? '',
          severity,
          state: 'activeUnack',
          detail,
          ...position,
          count: 1,
          startTime: now,
          lastTime: now,
          ackBy: '',
          ackReason: '',
          clearBy: '',
          clearReason: '',
          activeKey: key,
        })
        .onConflict((oc) => oc.column('activeKey').doNothing())
        .returning(EVENT_COLUMNS)
        .executeTakeFirst()
      if (inserted) {
        this.publish(inserted, true)
        // Notifications are a side effect: a mail server down never loses the alarm.
        this.notifier.alarmRaised(alarm.deviceId, alarm.type, severity, detail, now).catch((err: unknown) => this.log.warn({ err }, 'alarm notification failed'))
        return true
      }
      if (!countRepeat) return false
    }
    return false
  }

  async clear(deviceId: number, type: AlarmType, code?: string): Promise<void> {
    const key = activeKeyOf(deviceId, type, code)
    for (let attempt = 0; attempt < 3; attempt++) {
      const row = await this.active(key)
      if (!row) return
      const to = CLEARED[row.state as AlarmState]
      if (!to) return
      const now = new Date().toISOString()
      // Only from the state just read: an acknowledgement meanwhile is read again, not overwritten.
      const cleared = await this.db
        .updateTable('iotAlarm')
        .set({ state: to, activeKey: null, endTime: now, clearTime: now, clearBy: '', clearReason: '' })
        .where('alarmId', '=', row.alarmId)
        .where('state', '=', row.state)
        .returning(EVENT_COLUMNS)
        .executeTakeFirst()
      if (cleared) {
        this.publish(cleared, false)
        return
      }
    }
  }

  publish(row: Row, raised: boolean) {
    this.events()
      .publish({ type: 'alarm', data: alarmEvent(row, raised) })
      .catch((err: unknown) => this.log.warn({ err }, 'alarm event not published'))
  }
}
