// The fleet map's data, apart from any map library: the server's columns (GET /iot/map/devices),
// the live changes laid over them, the filters as the URL keeps them, and the points as GeoJSON.

import type { MapDevices } from '@velo/shared'

export type { MapDevices }

export type MapStatus = 'offline' | 'online' | 'alarm' | 'stolen'
/** By the server's status code (MAP_STATUS): 0 offline, 1 online, 2 a warning, 3 reported stolen. */
export const STATUS_NAMES: readonly MapStatus[] = ['offline', 'online', 'alarm', 'stolen']
/** The points' colours: grey offline, green online, red a warning, purple reported stolen (the IoT list's tags say the same). */
export const STATUS_COLOURS: Readonly<Record<MapStatus, string>> = { offline: '#8c8c8c', online: '#52c41a', alarm: '#f5222d', stolen: '#722ed1' }

export const EMPTY: MapDevices = { ids: [], sns: [], lat: [], lng: [], status: [], unlocated: 0 }

/** The IoT list's filters, by the list's own URL names (modelId, state, firmwareVersion) and the owner's country. */
export interface MapFilters {
  modelId?: number
  countryId?: number
  state: string[]
  firmwareVersion?: string
}

const positiveInt = (text: string | null) => {
  const n = Number(text)
  return text && Number.isInteger(n) && n > 0 ? n : undefined
}

/** The filters a URL names; anything it cannot hold is left out (a stale link opens the map, not an error). */
export function filtersFromUrl(search: URLSearchParams, states: readonly string[]): MapFilters {
  const state = (search.get('state') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => states.includes(s))
  const firmwareVersion = search.get('firmwareVersion')?.trim()
  return {
    modelId: positiveInt(search.get('modelId')),
    countryId: positiveInt(search.get('countryId')),
    state,
    ...(firmwareVersion ? { firmwareVersion } : {}),
  }
}

/** The filters as query parameters: for the URL, and the same for the server's calls. */
export function filtersToQuery(f: MapFilters): Record<string, string> {
  const out: Record<string, string> = {}
  if (f.modelId !== undefined) out.modelId = String(f.modelId)
  if (f.countryId !== undefined) out.countryId = String(f.countryId)
  if (f.state.length) out.state = f.state.join(',')
  if (f.firmwareVersion) out.firmwareVersion = f.firmwareVersion
  return out
}

/**
 * The devices with a live update laid over: changed devices move or recolour, new ones are added,
 * `gone` ones (left the filters or the caller's scope) are taken off. Answers a new object.
 */
export function applyUpdate(current: MapDevices, changed: MapDevices | null, gone: readonly number[] = []): MapDevices {
  const drop = new Set(gone)
  const update = new Map<number, number>()
  if (changed) changed.ids.forEach((id, i) => update.set(id, i))
  const next: MapDevices = { ids: [], sns: [], lat: [], lng: [], status: [], unlocated: current.unlocated }
  const push = (from: MapDevices, i: number) => {
    next.ids.push(from.ids[i]!)
    next.sns.push(from.sns[i]!)
    next.lat.push(from.lat[i]!)
    next.lng.push(from.lng[i]!)
    next.status.push(from.status[i]!)
  }
  current.ids.forEach((id, i) => {
    if (drop.has(id)) return
    const j = update.get(id)
    if (j === undefined) push(current, i)
    else {
      push(changed!, j)
      update.delete(id)
    }
  })
  // Devices that had no position before, or came into the filters.
  for (const j of update.values()) {
    push(changed!, j)
    if (next.unlocated > 0) next.unlocated--
  }
  return next
}

export interface StatusCounts {
  total: number
  offline: number
  online: number
  alarm: number
  stolen: number
}

export function countByStatus(d: MapDevices): StatusCounts {
  const counts: StatusCounts = { total: d.ids.length, offline: 0, online: 0, alarm: 0, stolen: 0 }
  for (const s of d.status) counts[STATUS_NAMES[s] ?? 'offline']++
  return counts
}

/** A GeoJSON point of one device: its id and status code (`s`) as properties. */
export interface DevicePoint {
  type: 'Feature'
  id: number
  geometry: { type: 'Point'; coordinates: [number, number] }
  properties: { id: number; s: number }
}

/** The points for a GeoJSON source. */
export function toFeatureCollection(d: MapDevices): { type: 'FeatureCollection'; features: DevicePoint[] } {
  return {
    type: 'FeatureCollection',
    features: d.ids.map((id, i) => ({
      type: 'Feature',
      id,
      geometry: { type: 'Point', coordinates: [d.lng[i]!, d.lat[i]!] },
      properties: { id, s: d.status[i]! },
    })),
  }
}

/** The devices to list beside the map: stolen ones first, then warnings, then online, then by SN; at most `limit`. */
export function listed(d: MapDevices, needle: string, limit: number): { id: number; sn: string; lat: number; lng: number; status: MapStatus }[] {
  const wanted = needle.trim().toUpperCase()
  const out: { id: number; sn: string; lat: number; lng: number; status: MapStatus }[] = []
  d.ids.forEach((id, i) => {
    const sn = d.sns[i]!
    if (wanted && !sn.includes(wanted)) return
    out.push({ id, sn, lat: d.lat[i]!, lng: d.lng[i]!, status: STATUS_NAMES[d.status[i]!] ?? 'offline' })
  })
  const rank = { stolen: 0, alarm: 1, online: 2, offline: 3 }
  out.sort((a, b) => rank[a.status] - rank[b.status] || a.sn.localeCompare(b.sn))
  return out.slice(0, limit)
}

/** Whether this browser can draw the map: MapLibre needs WebGL 2 (headless browsers often have none). */
export function webglAvailable(): boolean {
  try {
    const gl = document.createElement('canvas').getContext('webgl2')
    // Only asked: the context is given back at once rather than held until the canvas is collected.
    gl?.getExtension('WEBGL_lose_context')?.loseContext()
    return !!gl
  } catch {
    return false
  }
}
