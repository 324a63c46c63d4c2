import { configDrift, type ConfigValues, type StatusPayload, templateValues } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { Db } from '../../../db/database'
import { chunked } from './push'

type ReportedConfig = NonNullable<StatusPayload['config']>

function parsedValues(text: string | null | undefined): ConfigValues {
  try {
    const v = JSON.parse(String(text)) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as ConfigValues) : {}
  } catch {
    return {}
  }
}

/**
 * Compares what each device last reported with the template it was last pushed and replaces its
 * drift rows with the differences. A device without a template, or that has not reported, has none.
 */
export async function recomputeDrift(db: Db, deviceIds: readonly number[]) {
  const detectedAt = new Date().toISOString()
  for (const part of chunked([...new Set(deviceIds)], 500)) {
    const latest = await db
      .selectFrom('iotConfigPush')
      .select(['deviceId', sql<number>`max(push_id)`.as('pushId')])
      .where('deviceId', 'in', part)
      .groupBy('deviceId')
      .execute()
    const templateOf = new Map<number, number>()
    if (latest.length) {
      const pushes = await db
        .selectFrom('iotConfigPush')
        .select(['deviceId', 'configId'])
        .where(
          'pushId',
          'in',
          latest.map((l) => Number(l.pushId)),
        )
        .execute()
      for (const p of pushes) templateOf.set(Number(p.deviceId), Number(p.configId))
    }
    const configIds = [...new Set(templateOf.values())]
    const templates = new Map<number, ConfigValues>()
    if (configIds.length) {
      const rows = await db.selectFrom('iotConfig').selectAll().where('configId', 'in', configIds).execute()
      for (const r of rows) templates.set(Number(r.configId), templateValues(r as Record<string, unknown>))
    }
    const reports = await db.selectFrom('iotConfigReport').select(['deviceId', 'values']).where('deviceId', 'in', part).execute()
    const rows: { configId: number; deviceId: number; field: string; expected: string; reported: string; detectedAt: string }[] = []
    for (const r of reports) {
      const deviceId = Number(r.deviceId)
      const configId = templateOf.get(deviceId)
      const expected = configId === undefined ? undefined : templates.get(configId)
      if (!expected) continue
      for (const d of configDrift(expected, parsedValues(r.values))) rows.push({ configId: configId!, deviceId, ...d, expected: d.expected.slice(0, 200), reported: d.reported.slice(0, 200), detectedAt })
    }
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('iotConfigDrift').where('deviceId', 'in', part).execute()
      for (const some of chunked(rows, 500)) await tx.insertInto('iotConfigDrift').values(some).execute()
    })
  }
}

/** The devices that were ever pushed this template (recomputing finds the ones that still run it). */
export async function devicesOfTemplate(db: Db, configId: number): Promise<number[]> {
  const rows = await db.selectFrom('iotConfigPush').select('deviceId').distinct().where('configId', '=', configId).execute()
  return rows.map((r) => Number(r.deviceId))
}

/** Drops the reports and drift of devices deleted since (the devices module knows nothing of them). */
export async function forgetDeletedDevices(db: Db) {
  const gone = (table: 'iotConfigReport' | 'iotConfigDrift') =>
    db
      .deleteFrom(table)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('iotDevice as d').select('d.deviceId').whereRef('d.deviceId', '=', `${table}.deviceId`))))
      .execute()
  await gone('iotConfigDrift')
  await gone('iotConfigReport')
}

/** Keeps each device's reported configuration (one row per device). */
async function keepReports(db: Db, reports: { deviceId: number; config: ReportedConfig; at: string }[]) {
  await db.transaction().execute(async (tx) => {
    for (const some of chunked(reports, 200)) {
      await tx
        .insertInto('iotConfigReport')
        .values(some.map((r) => ({ deviceId: r.deviceId, version: r.config.version, values: JSON.stringify(r.config.values), reportedAt: r.at })))
        .onConflict((oc) =>
          oc.column('deviceId').doUpdateSet((eb) => ({
            version: eb.ref('excluded.version'),
            values: eb.ref('excluded.values'),
            reportedAt: eb.ref('excluded.reportedAt'),
          })),
        )
        .execute()
    }
  })
}

/**
 * Devices report the configuration they run on connect, after a setConfig and after a local
 * change (status.config). Each message reaches one instance: the reports of a moment are written
 * together and the drift of those devices recomputed.
 */
export function trackReports(app: FastifyInstance, db: Db, options: { flushMs?: number; sweepMs?: number } = {}) {
  let pending = new Map<number, { deviceId: number; config: ReportedConfig; at: string }>()
  let timer: NodeJS.Timeout | null = null
  let flushing: Promise<void> = Promise.resolve()
  let closed = false
  const flush = async () => {
    timer = null
    if (!pending.size) return
    const reports = [...pending.values()]
    pending = new Map()
    await keepReports(db, reports)
    await recomputeDrift(
      db,
      reports.map((r) => r.deviceId),
    )
  }
  app.iot.gateway.on('status', (m) => {
    const config = (m.payload as StatusPayload).config
    if (!config || closed) return
    pending.set(m.device.deviceId, { deviceId: m.device.deviceId, config, at: new Date(m.receivedAt).toISOString() })
    timer ??= setTimeout(() => {
      flushing = flushing.then(flush).catch((err) => app.log.error({ err }, 'could not record reported configurations'))
    }, options.flushMs ?? 100)
  })
  // The reports of devices deleted since: every minute.
  app.services.jobs.every({ key: 'iotConfig.reports', every: options.sweepMs ?? '1m', run: () => forgetDeletedDevices(db) })
  app.addHook('preClose', async () => {
    closed = true
    if (timer) clearTimeout(timer)
    await flushing.catch(() => {})
    await flush().catch(() => {})
  })
}
