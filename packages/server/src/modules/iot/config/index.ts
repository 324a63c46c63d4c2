import { iotConfigEntities, type Language } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { conflict } from '../../../platform/errors'
import type { Services } from '../../../platform/services'
import { devicesOfTemplate, recomputeDrift, trackReports } from './drift'
import { configVersionOf, type PushProgress, pushPreview, pushTemplate, resolveTargets, trackPushes } from './push'
import type { Db } from '../../../db/database'

type Row = Record<string, unknown>

const { iotConfig, iotConfigDrift } = iotConfigEntities

export interface IotConfigOptions {
  /** How often open push rows are caught up with their commands (30 s; tests go shorter). */
  sweepMs?: number
}

/**
 * IoT › configuration (SPEC §3): templates with a version that follows their values, the push (a
 * job sending setConfig through the command layer, one push row per device followed to the
 * device's answer), the configuration each device reports and its drift from its template.
 */
export function registerIotConfig(app: FastifyInstance, services: Services, options: IotConfigOptions = {}) {
  const { db } = services

  const stampVersion = async ({ tx, row }: { tx: Db; row: Row }) => {
    const version = configVersionOf(row)
    if (row.version === version) return
    await tx
      .updateTable('iotConfig')
      .set({ version })
      .where('configId', '=', Number(row.configId))
      .execute()
    row.version = version
  }

  const push = async (template: Row, deviceIds: number[], auth: { userName: string }, lang: Language, run: PushProgress) => {
    const result = await pushTemplate(app, db, template, deviceIds, auth.userName, lang, run)
    // The devices' template changed: their drift is now against this one.
    await recomputeDrift(db, deviceIds)
    return result
  }

  registerEntityRoutes(app, services, iotConfig, {
    afterCreate: stampVersion,
    afterUpdate: async ({ tx, after }) => stampVersion({ tx, row: after }),
    // A template devices were pushed is what they are meant to run: it stays while they refer to it.
    beforeDelete: async ({ tx, rows }) => {
      const ids = rows.map((r) => Number(r.configId))
      const used = await tx
        .selectFrom('iotConfigPush')
        .select(['configId', sql<number>`count(distinct device_id)`.as('n')])
        .where('configId', 'in', ids)
        .groupBy('configId')
        .executeTakeFirst()
      if (used) {
        const row = rows.find((r) => Number(r.configId) === Number(used.configId))
        throw conflict('iot.config.inUse', { name: String(row?.name ?? used.configId), count: Number(used.n) })
      }
    },
    afterCommit: async (change) => {
      // An import adds rows without the create hooks: their version is set here.
      if (change.op === 'create') {
        if (change.row.version !== configVersionOf(change.row)) await stampVersion({ tx: db, row: { ...change.row } })
        return
      }
      if (change.op !== 'update' || configVersionOf(change.before) === configVersionOf(change.after)) return
      await recomputeDrift(db, await devicesOfTemplate(db, Number(change.after.configId)))
    },
    previews: {
      push: async ({ tx, rows, input, lang }) => pushPreview(tx as never, rows[0]!, input, lang),
    },
    actions: {
      push: async ({ tx, auth, rows, input, progress, signal, lang }) => {
        const template = await db.selectFrom('iotConfig').selectAll().where('configId', '=', Number(rows[0]!.configId)).executeTakeFirstOrThrow()
        const deviceIds = await resolveTargets(tx as never, input, lang)
        return push(template as Row, deviceIds, auth, lang, { progress, signal })
      },
    },
  })

  registerEntityRoutes(app, services, iotConfigDrift, {
    actions: {
      // Each ticked device gets its own template again (a drift row names both).
      pushAgain: async ({ auth, rows, progress, signal, lang }) => {
        const byTemplate = new Map<number, Set<number>>()
        for (const r of rows) {
          const configId = Number(r.configId)
          if (!byTemplate.has(configId)) byTemplate.set(configId, new Set())
          byTemplate.get(configId)!.add(Number(r.deviceId))
        }
        const total = [...byTemplate.values()].reduce((n, s) => n + s.size, 0)
        let done = 0
        let sent = 0
        let queued = 0
        for (const [configId, devices] of byTemplate) {
          const template = await db.selectFrom('iotConfig').selectAll().where('configId', '=', configId).executeTakeFirstOrThrow()
          const before = done
          const r = await push(template as Row, [...devices], auth, lang, { progress: (d) => progress(before + d, total), signal })
          done += r.devices
          sent += r.sent
          queued += r.queued
        }
        return { devices: done, sent, queued }
      },
    },
  })

  trackPushes(app, db, { sweepMs: options.sweepMs })
  trackReports(app, db)
}
