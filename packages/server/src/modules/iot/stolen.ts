import { createHash } from 'node:crypto'
import { canonicalValues, CONFIG_VALUES, type ConfigValueKey, type ConfigValues } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/database'
import type { ActionArgs } from '../../platform/crud/workflow'
import { conflict } from '../../platform/errors'
import type { Services } from '../../platform/services'
import { recomputeDrift } from './config/drift'
import { pushConfiguration } from './config/push'
import { alarmsOf } from './warnings/alarms'

// Stolen mode (issue 42 §4): the IoT device's Report stolen and Recovered actions. The device's
// `theft` field is the state the list filters on and the actions are offered by; the active
// 'stolen' alarm is the warning (only Recovered clears it); an iotTheft row keeps who, why, when and
// the configuration to put back. Both pushes go through the configuration push (config/push.ts).

type Row = Record<string, unknown>

/** What a stolen device reports at most this far apart (a device already reporting more often keeps its own). */
export const TRACKING: Partial<Record<ConfigValueKey, number>> = { gpsReportSeconds: 5, traceReportSeconds: 5, traceReportMeters: 10 }

const DEFAULTS = new Map<string, number>(CONFIG_VALUES.map((v) => [v.key, v.default]))

function parsed(text: unknown): ConfigValues {
  try {
    const v = JSON.parse(String(text)) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as ConfigValues) : {}
  } catch {
    return {}
  }
}

/** A version for values of no template, as a template's is made (config/push.ts configVersionOf). */
const versionOfValues = (values: ConfigValues) => createHash('sha256').update(`|${canonicalValues(values)}`).digest('hex').slice(0, 12)

interface Configuration {
  configId: number | null
  version: string
  values: ConfigValues
}

/**
 * What the device runs now, to put back on recovery: the push it has not answered yet (it runs that
 * once it connects), else what it last reported, else what it last acknowledged. The tracking keys
 * are always in it (their defaults when nothing says them), so the recovery resets them.
 */
async function configurationBefore(tx: Db, deviceId: number): Promise<Configuration> {
  const lastPush = await tx
    .selectFrom('iotConfigPush as p')
    .leftJoin('iotCommand as c', 'c.commandId', 'p.commandId')
    .select(['p.configId', 'p.version', 'p.status', 'p.applied', 'c.params'])
    .where('p.deviceId', '=', deviceId)
    .orderBy('p.pushId', 'desc')
    .executeTakeFirst()
  const report = await tx.selectFrom('iotConfigReport').select(['version', 'values']).where('deviceId', '=', deviceId).executeTakeFirst()
  let version = ''
  let values: ConfigValues = {}
  if (lastPush && (lastPush.status === 'queued' || lastPush.status === 'sent')) {
    values = (parsed(lastPush.params).values ?? {}) as ConfigValues
    version = String(lastPush.version ?? '')
  } else if (report && Object.keys(parsed(report.values)).length) {
    values = parsed(report.values)
    version = String(report.version ?? '')
  } else if (lastPush?.applied) {
    values = parsed(lastPush.applied)
    version = String(lastPush.version ?? '')
  }
  const full: ConfigValues = { ...values }
  for (const key of Object.keys(TRACKING)) if (full[key] === undefined) full[key] = DEFAULTS.get(key)!
  return { configId: lastPush?.configId === null || lastPush?.configId === undefined ? null : Number(lastPush.configId), version: version || versionOfValues(full), values: full }
}

/** The configuration before with the tracking values: reports at least as often as TRACKING says. */
export function trackingValues(before: ConfigValues): ConfigValues {
  const out: ConfigValues = { ...before }
  for (const [key, most] of Object.entries(TRACKING)) {
    const now = Number(before[key])
    out[key] = Number.isFinite(now) && now > 0 ? Math.min(now, most) : most
  }
  return out
}

const RUN_AT_ONCE = { progress: () => {}, signal: new AbortController().signal }

/** The Report stolen and Recovered handlers of the IoT device (its definition declares both). */
export function stolenActions(app: FastifyInstance, services: Services) {
  const { db } = services

  /** Moves the device's theft state only from the one the engine read: of two people at once, one wins. */
  const move = async (tx: Db, row: Row, from: string, to: string) => {
    const moved = await tx.updateTable('iotDevice').set({ theft: to }).where('deviceId', '=', Number(row.deviceId)).where('theft', '=', from).executeTakeFirst()
    if (!Number(moved.numUpdatedRows)) throw conflict('iot.stolen.changedMeanwhile', { sn: String(row.sn) })
  }

  /** Pushed once the state is committed: the command layer writes outside the action's transaction (it sends at once, or queues for an offline device). */
  const push = async (deviceId: number, configuration: Configuration, by: string, lang: ActionArgs['lang'], answer: Row) => {
    const r = await pushConfiguration(app, db, { configId: configuration.configId, params: { version: configuration.version, values: configuration.values } }, [deviceId], by, lang, RUN_AT_ONCE)
    // The drift follows the push: none while the tracking configuration (no template) runs.
    await recomputeDrift(db, [deviceId])
    Object.assign(answer, { sent: r.sent, queued: r.queued, version: r.version, values: configuration.values })
  }

  return {
    reportStolen: async ({ tx, auth, rows, input, lang, afterCommit }: ActionArgs) => {
      const row = rows[0]!
      const deviceId = Number(row.deviceId)
      await move(tx, row, 'normal', 'stolen')
      const before = await configurationBefore(tx, deviceId)
      const reason = String(input.reason ?? '').trim()
      const theft = await tx
        .insertInto('iotTheft')
        .values({
          deviceId,
          status: 'stolen',
          reason,
          reportedBy: auth.userName,
          reportedAt: new Date().toISOString(),
          previousConfigId: before.configId,
          previousVersion: before.version,
          previousValues: JSON.stringify(before.values),
          recoveryReason: '',
          recoveredBy: '',
          recoveredAt: null,
        })
        .returning('theftId')
        .executeTakeFirstOrThrow()
      const values = trackingValues(before.values)
      const answer: Row = { theftId: Number(theft.theftId) }
      afterCommit(async () => {
        // The warning first: it stands whatever becomes of the push, and tells the rider.
        await alarmsOf(services).raise({ deviceId, type: 'stolen', detail: reason })
        await push(deviceId, { configId: null, version: versionOfValues(values), values }, auth.userName, lang, answer)
      })
      return answer
    },

    recovered: async ({ tx, auth, rows, input, lang, afterCommit }: ActionArgs) => {
      const row = rows[0]!
      const deviceId = Number(row.deviceId)
      await move(tx, row, 'stolen', 'normal')
      const open = await tx.selectFrom('iotTheft').selectAll().where('deviceId', '=', deviceId).where('status', '=', 'stolen').orderBy('theftId', 'desc').executeTakeFirst()
      const answer: Row = { theftId: open ? Number(open.theftId) : null }
      if (open) {
        await tx
          .updateTable('iotTheft')
          .set({ status: 'recovered', recoveryReason: String(input.reason ?? '').trim(), recoveredBy: auth.userName, recoveredAt: new Date().toISOString() })
          .where('theftId', '=', open.theftId)
          .execute()
      }
      afterCommit(async () => {
        await alarmsOf(services).clear(deviceId, 'stolen')
        // A device marked stolen before its record was kept has nothing to put back.
        if (!open) return
        const values = parsed(open.previousValues)
        const configId = open.previousConfigId === null ? null : Number(open.previousConfigId)
        await push(deviceId, { configId, version: String(open.previousVersion || versionOfValues(values)), values }, auth.userName, lang, answer)
      })
      return answer
    },
  }
}
