import { type AlarmState, type DeviceEventPayload, iotWarningEntities, type PresencePayload, type TelemetryPayload } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { UpMessage } from '../../../gateway/types'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import type { ActionArgs } from '../../../platform/crud/workflow'
import { badRequest, conflict } from '../../../platform/errors'
import type { Services } from '../../../platform/services'
import { setAlarms } from './alarms'
import { Notifier, badStaffAddress } from './notify'
import { AlarmRules } from './rules'
import { ACKNOWLEDGED, AlarmStore, CLEARED } from './store'

const { iotAlarm, iotMessageConfig } = iotWarningEntities

type Row = Record<string, unknown>


export interface Warnings {
  store: AlarmStore
  rules: AlarmRules
  notifier: Notifier
}

const byServices = new WeakMap<Services, Warnings>()

/** The warnings of one server (tests run the offline sweep and read thresholds here). */
export function warningsOf(services: Services): Warnings {
  const w = byServices.get(services)
  if (!w) throw new Error('the warnings module is not registered')
  return w
}

/**
 * IoT › Warnings: alarms raised by the rules on device data (rules.ts) and by other modules through
 * alarmsOf, live in the console, acknowledged and cleared in bulk; the message configuration says who
 * hears of them.
 */
export function registerWarnings(app: FastifyInstance, services: Services) {
  const db = services.db
  const log = app.log
  const notifier = new Notifier(db, services.mailer, log)
  const store = new AlarmStore(db, () => app.iot.events, notifier, log)
  const rules = new AlarmRules(db, services.configValues, store, log)
  setAlarms(services, store)
  byServices.set(services, { store, rules, notifier })

  app.iot.gateway.on('telemetry', (m) => rules.onTelemetry(m as UpMessage<TelemetryPayload>)?.catch(rules.logFailure('telemetry')))
  app.iot.gateway.on('event', (m) => rules.onEvent(m as UpMessage<DeviceEventPayload>).catch(rules.logFailure('event')))
  // Presence reaches one instance per message: its notification goes out once.
  app.iot.gateway.on('presence', (m) => {
    const { state } = (m as UpMessage<PresencePayload>).payload
    notifier.deviceStateChanged(m.device.deviceId, state === 'online' ? 'deviceOnline' : 'deviceOffline').catch(rules.logFailure('presence notification'))
  })
  // Every instance gets every device event: each clears on a device it saw come back (a clear of
  // nothing is one read of a unique key), and only when its state changed to online here.
  const lastOnline = new Map<number, boolean>()
  const stopListening = app.iot.events.subscribe((event) => {
    if (event.type !== 'device') return
    const online = event.data.state === 'online' || event.data.state === 'activated'
    if (lastOnline.get(event.data.deviceId) === online) return
    lastOnline.set(event.data.deviceId, online)
    if (online) rules.deviceBack(event.data.deviceId).catch(rules.logFailure('device back'))
  })

  app.iot.attach({ close: async () => stopListening() })

  /**
   * Moves each selected alarm whose state has a next one in `moves`; rows already there are skipped
   * and counted. All skipped is a refusal (409), nothing changed. Each UPDATE names the state it
   * read, so an alarm cleared by its device meanwhile is not acknowledged back to active.
   */
  const bulk = (moves: Partial<Record<AlarmState, AlarmState>>, kind: 'acknowledge' | 'clear') => async ({ tx, auth, rows, input }: ActionArgs) => {
    // A stolen device's warning is its stolen mode: only Recovered (modules/iot/stolen.ts) ends it; acknowledging it is fine.
    const clearable = kind === 'clear' ? rows.filter((r) => r.type !== 'stolen') : rows
    if (!clearable.length && rows.some((r) => moves[r.state as AlarmState])) throw conflict('iot.warning.stolenClearsOnRecovery')
    const movable = clearable.filter((r) => moves[r.state as AlarmState])
    if (!movable.length) throw conflict(kind === 'acknowledge' ? 'iot.warning.nothingToAcknowledge' : 'iot.warning.nothingToClear')
    const now = new Date().toISOString()
    const reason = String(input.reason ?? '').trim()
    if (!reason) throw badRequest('iot.warning.reasonRequired', {}, { errors: [{ field: 'reason' }] })
    const changed: Row[] = []
    for (const [from, to] of Object.entries(moves)) {
      const ids = movable.filter((r) => r.state === from).map((r) => Number(r.alarmId))
      if (!ids.length) continue
      const set: Row =
        kind === 'acknowledge'
          ? { state: to, ackTime: now, ackBy: auth.userName, ackReason: reason }
          : { state: to, activeKey: null, endTime: now, clearTime: now, clearBy: auth.userName, clearReason: reason }
      for (let i = 0; i < ids.length; i += 500) {
        const done = await tx
          .updateTable('iotAlarm')
          .set(set)
          .where('alarmId', 'in', ids.slice(i, i + 500))
          .where('state', '=', from)
          .returning(['alarmId', 'deviceId', 'type', 'severity', 'state', 'count', 'lastTime'])
          .execute()
        changed.push(...done)
      }
    }
    for (const row of changed) store.publish(row, false)
    return { changed: changed.length, skipped: rows.length - changed.length }
  }

  registerEntityRoutes(app, services, iotAlarm, {
    actions: { acknowledge: bulk(ACKNOWLEDGED, 'acknowledge'), clear: bulk(CLEARED, 'clear') },
    // Devices offline longer than their rule allows raise their alarm: looked for every minute.
    every: { offline: { every: '1m', run: () => rules.sweepOffline() } },
  })

  const checkAddresses = async ({ values }: { values: Row }) => {
    const bad = typeof values.staffEmails === 'string' ? badStaffAddress(values.staffEmails) : undefined
    if (bad !== undefined) throw badRequest('iot.warning.badStaffEmail', { address: bad.slice(0, 100) }, { errors: [{ field: 'staffEmails' }] })
  }
  registerEntityRoutes(app, services, iotMessageConfig, {
    beforeCreate: checkAddresses,
    beforeUpdate: checkAddresses,
    // This instance reads the change at once; the others within the cache's few seconds.
    afterCommit: async () => notifier.forget(),
  })
}
