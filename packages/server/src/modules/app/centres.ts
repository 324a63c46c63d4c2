import { contentEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Expression, SqlBool } from 'kysely'
import { z } from 'zod'
import { PUBLIC } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { type AppEntity, appRowSchema, readAppRows } from './reads'
import { APP_TAGS } from './tables'
import type { DynamicEb } from '../../db/database'
import { distanceMetres, EARTH_RADIUS_M, toRadians } from '../../platform/geo'

const KM_PER_DEGREE_LATITUDE = (Math.PI * EARTH_RADIUS_M) / 180 / 1000

/** The great-circle distance of two points (haversine), in km. */
export const distanceKm = (lat1: number, lng1: number, lat2: number, lng2: number) => distanceMetres(lat1, lng1, lat2, lng2) / 1000

/**
 * The latitude band and the longitude ranges that hold every point within `radiusKm` of a point: a
 * box the (latitude, longitude) index reads before the distances are measured. Near a pole every
 * longitude is in; across the date line the longitudes are two ranges.
 */
export function boundingBox(lat: number, lng: number, radiusKm: number): { minLat: number; maxLat: number; lngRanges: [number, number][] } {
  const dLat = radiusKm / KM_PER_DEGREE_LATITUDE
  const minLat = Math.max(-90, lat - dLat)
  const maxLat = Math.min(90, lat + dLat)
  // Where the band reaches a pole, a point on the other side of the globe may be within the radius.
  if (minLat <= -90 || maxLat >= 90) return { minLat, maxLat, lngRanges: [[-180, 180]] }
  // Meridians are closest together at the band's edge furthest from the equator.
  const widest = Math.max(Math.abs(minLat), Math.abs(maxLat))
  const dLng = radiusKm / (KM_PER_DEGREE_LATITUDE * Math.cos(toRadians(widest)))
  if (dLng >= 180) return { minLat, maxLat, lngRanges: [[-180, 180]] }
  const west = lng - dLng
  const east = lng + dLng
  if (west < -180) return { minLat, maxLat, lngRanges: [[west + 360, 180], [-180, east]] }
  if (east > 180) return { minLat, maxLat, lngRanges: [[west, 180], [-180, east - 360]] }
  return { minLat, maxLat, lngRanges: [[west, east]] }
}

const nearQuery = z.strictObject({
  lat: z.coerce.number().min(-90).max(90),
  lng: z.coerce.number().min(-180).max(180),
  radiusKm: z.coerce.number().positive().max(500).default(50),
  limit: z.coerce.number().int().min(1).max(100).default(20),
})

/** GET /serviceCentres/near: the published service centres nearest a point, within a radius. */
export function registerCentresNear(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  const centre = contentEntities.serviceCentre as unknown as AppEntity
  const row = appRowSchema(centre).extend({ distanceKm: z.number() })

  api.get(
    `/${centre.app.path}/near`,
    {
      config: { permission: PUBLIC },
      schema: {
        tags: APP_TAGS,
        summary: 'Published service centres within radiusKm (default 50, at most 500) of lat/lng, nearest first, each with its distance in km (at most limit, default 20, at most 100)',
        security: [],
        querystring: nearQuery,
        response: { 200: envelope(z.object({ rows: z.array(row) })) },
      },
    },
    async (req) => {
      const { lat, lng, radiusKm, limit } = req.query
      const box = boundingBox(lat, lng, radiusKm)
      const inBox = (eb: DynamicEb): Expression<SqlBool> =>
        eb.and([
          eb('latitude', '>=', box.minLat),
          eb('latitude', '<=', box.maxLat),
          eb.or(box.lngRanges.map(([from, to]) => eb.and([eb('longitude', '>=', from), eb('longitude', '<=', to)]))),
        ])
      // Every centre of the box, however many: the nearest cannot be chosen from a part of them.
      const candidates = await readAppRows(db, centre, {}, { where: inBox, limit: null })
      const rows = candidates
        .map((r): Record<string, unknown> & { distanceKm: number } => ({ ...r, distanceKm: Math.round(distanceKm(lat, lng, Number(r.latitude), Number(r.longitude)) * 1000) / 1000 }))
        .filter((r) => r.distanceKm <= radiusKm)
        .sort((a, b) => a.distanceKm - b.distanceKm || Number(a[centre.idField]) - Number(b[centre.idField]))
        .slice(0, limit)
      return { rows }
    },
  )
}
