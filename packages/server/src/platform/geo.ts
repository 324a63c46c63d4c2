// Distances on the globe, for every module that measures them (service centres near a rider, a
// trace's length and stops, a geofence's circle): one formula and one radius.

/** The mean Earth radius (IUGG), metres. */
export const EARTH_RADIUS_M = 6_371_008.8

export const toRadians = (degrees: number) => (degrees * Math.PI) / 180

/** The great-circle distance of two points (haversine), in metres: exact to a few metres in a city, cheap. */
export function distanceMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = toRadians(lat2 - lat1)
  const dLng = toRadians(lng2 - lng1)
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(lat1)) * Math.cos(toRadians(lat2)) * Math.sin(dLng / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)))
}
