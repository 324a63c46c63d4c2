import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

const appBike = z.object({
  bikeId: z.number(),
  frameNumber: z.string(),
  modelName: z.string().nullable(),
  /** The SN of the IoT device fitted to the bike, if any. */
  deviceSn: z.string().nullable(),
  /** Reported stolen by the service desk (IoT › Report stolen), until it is marked recovered. */
  stolen: z.boolean(),
  /** When it was reported stolen (ISO time), while it is. */
  stolenSince: z.string().nullable(),
})

const iso = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString())

/** The signed-in member's bikes (issue 42 §4): what the app shows of each, and whether it is reported stolen. */
export function registerAppBikes(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db

  api.get(
    '/me/bikes',
    {
      config: { permission: MEMBER },
      schema: {
        tags: APP_TAGS,
        summary: "The signed-in member's bikes: frame number, model, fitted IoT device, and whether (and since when) it is reported stolen",
        security: MEMBER_SECURITY,
        response: { 200: envelope(z.object({ rows: z.array(appBike) })) },
      },
    },
    async (req) => {
      const { memberId } = signedInMember(req)
      const rows = await db
        .selectFrom('bikeBike as b')
        .leftJoin('bikeModel as m', 'm.modelId', 'b.modelId')
        .leftJoin('iotDevice as d', 'd.deviceId', 'b.iotDeviceId')
        .select(['b.bikeId', 'b.frameNumber', 'm.name as modelName', 'd.deviceId', 'd.sn', 'd.theft'])
        .where('b.memberId', '=', memberId)
        .orderBy('b.bikeId')
        .execute()
      const stolenIds = rows.filter((r) => r.theft === 'stolen').map((r) => Number(r.deviceId))
      // The open theft record says since when (one per stolen device: Report stolen is refused while one is open).
      const since = new Map<number, unknown>()
      if (stolenIds.length) {
        const open = await db.selectFrom('iotTheft').select(['deviceId', 'reportedAt']).where('deviceId', 'in', stolenIds).where('status', '=', 'stolen').execute()
        for (const o of open) since.set(Number(o.deviceId), o.reportedAt)
      }
      return {
        rows: rows.map((r) => {
          const stolen = r.theft === 'stolen'
          return {
            bikeId: Number(r.bikeId),
            frameNumber: r.frameNumber,
            modelName: r.modelName ?? null,
            deviceSn: r.sn ?? null,
            stolen,
            stolenSince: stolen ? iso(since.get(Number(r.deviceId))) : null,
          }
        }),
      }
    },
  )
}
