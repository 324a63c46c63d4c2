import { type Geometry, parseGeometry } from '@velo/shared'
import { type Bbox, compileShape } from './math'

// Which geofences a device's position is in, and what changed since its last one (issue 42 §3).
// Everything here is synchronous and in memory: the telemetry handler asks it for every position of
// the fleet, and only a crossing (rare) costs a database write.

export type Trigger = 'enter' | 'exit' | 'both'

/** A geofence as stored, its geometry still text. */
export interface FenceRow {
  geofenceId: number
  name: string
  geometry: string
  trigger: Trigger
  allDevices: boolean
  modelIds: readonly number[]
  countryIds: readonly number[]
  deviceIds: readonly number[]
}

interface Fence {
  id: number
  name: string
  trigger: Trigger
  bbox: Bbox
  contains(lat: number, lng: number): boolean
  all: boolean
  models: ReadonlySet<number>
  countries: ReadonlySet<number>
  devices: ReadonlySet<number>
}

/** Who a device is, for the fences' "applies to". */
export interface DeviceKey {
  deviceId: number
  modelId: number
  /** Its rider's country; null: no rider (or no fence asks). */
  countryId: number | null
}

/** One crossing: what the alarm is told. */
export interface Crossing {
  fenceId: number
  name: string
  trigger: Trigger
  /** true: came in; false: went out. */
  entered: boolean
}

/** 0.25° cells (~28 km north–south): a city's fences share a handful of cells, a continent's 1,000 fences spread over thousands. */
const CELL_DEG = 0.25
/** A fence wider than this many cells is checked for every position rather than registered in each cell. */
const MAX_CELLS = 4096

const cellKey = (row: number, col: number) => row * 2048 + col
const cellRow = (lat: number) => Math.floor((lat + 90) / CELL_DEG)
const cellCol = (lng: number) => Math.floor((lng + 180) / CELL_DEG)

/** The fences compiled once, with a grid over their boxes: a position reads one cell's few fences. */
export class FenceSet {
  readonly fences: readonly Fence[]
  private readonly grid = new Map<number, Fence[]>()
  private readonly everywhere: Fence[] = []
  /** Whether any fence is attached to countries: otherwise no device's country is ever looked up. */
  readonly usesCountries: boolean

  constructor(rows: readonly FenceRow[]) {
    const fences: Fence[] = []
    for (const r of rows) {
      const parsed = parseGeometry(r.geometry)
      // Written through the value schema, so always a geometry; a row edited by hand into nonsense is skipped.
      if (!parsed.ok) continue
      const shape = compileShape(parsed.geometry as Geometry)
      fences.push({
        id: r.geofenceId,
        name: r.name,
        trigger: r.trigger,
        bbox: shape.bbox,
        contains: shape.contains,
        all: r.allDevices,
        models: new Set(r.modelIds),
        countries: new Set(r.countryIds),
        devices: new Set(r.deviceIds),
      })
    }
    this.fences = fences
    this.usesCountries = fences.some((f) => !f.all && f.countries.size > 0)
    for (const f of fences) {
      const r0 = cellRow(f.bbox.minLat)
      const r1 = cellRow(f.bbox.maxLat)
      const c0 = cellCol(f.bbox.minLng)
      const c1 = cellCol(f.bbox.maxLng)
      if ((r1 - r0 + 1) * (c1 - c0 + 1) > MAX_CELLS) {
        this.everywhere.push(f)
        continue
      }
      for (let r = r0; r <= r1; r++) {
        for (let c = c0; c <= c1; c++) {
          const k = cellKey(r, c)
          const list = this.grid.get(k)
          if (list) list.push(f)
          else this.grid.set(k, [f])
        }
      }
    }
  }

  private static applies(f: Fence, d: DeviceKey) {
    return f.all || f.devices.has(d.deviceId) || f.models.has(d.modelId) || (d.countryId !== null && f.countries.has(d.countryId))
  }

  /** The ids of the fences of this device that hold the point, ascending. */
  inside(d: DeviceKey, lat: number, lng: number): number[] {
    const out: number[] = []
    const check = (list: readonly Fence[] | undefined) => {
      if (!list) return
      for (const f of list) if (FenceSet.applies(f, d) && f.contains(lat, lng)) out.push(f.id)
    }
    check(this.grid.get(cellKey(cellRow(lat), cellCol(lng))))
    check(this.everywhere)
    return out.length > 1 ? out.sort((a, b) => a - b) : out
  }

  byId(id: number): Fence | undefined {
    return this.fences.find((f) => f.id === id)
  }
}

interface DeviceState {
  lat: number
  lng: number
  inside: number[]
  /** The FenceSet `inside` was judged with: after a reload it is judged again at the last position. */
  set: FenceSet
}

/**
 * Per device, the fences it was last inside. A position is compared with them: a fence gained is an
 * entry, one lost an exit. When the fences changed since, the device's last position is judged again
 * against the new ones first, so a fence drawn around a parked bike does not say it just came in.
 */
export class GeofenceEvaluator {
  private set = new FenceSet([])
  private readonly states = new Map<number, DeviceState>()

  get fences(): FenceSet {
    return this.set
  }

  load(rows: readonly FenceRow[]) {
    this.set = new FenceSet(rows)
  }

  known(deviceId: number): boolean {
    return this.states.has(deviceId)
  }

  /** The device's position before this instance heard from it (its stored last position): no crossing is said for it. */
  seed(d: DeviceKey, lat: number, lng: number) {
    this.states.set(d.deviceId, { lat, lng, inside: this.set.inside(d, lat, lng), set: this.set })
  }

  forget(deviceId?: number) {
    if (deviceId === undefined) this.states.clear()
    else this.states.delete(deviceId)
  }

  /** The crossings of a device's new position (none on first sight: it is seeded with it). */
  move(d: DeviceKey, lat: number, lng: number): Crossing[] {
    const state = this.states.get(d.deviceId)
    const now = this.set.inside(d, lat, lng)
    if (!state) {
      this.states.set(d.deviceId, { lat, lng, inside: now, set: this.set })
      return []
    }
    const before = state.set === this.set ? state.inside : this.set.inside(d, state.lat, state.lng)
    state.lat = lat
    state.lng = lng
    state.inside = now
    state.set = this.set
    if (before.length === 0 && now.length === 0) return []
    const crossings: Crossing[] = []
    for (const id of now) if (!before.includes(id)) crossings.push(this.crossing(id, true))
    for (const id of before) if (!now.includes(id)) crossings.push(this.crossing(id, false))
    return crossings
  }

  private crossing(id: number, entered: boolean): Crossing {
    const f = this.set.byId(id)!
    return { fenceId: id, name: f.name, trigger: f.trigger, entered }
  }
}

/** What a crossing does to the fence's alarm: raise it when the trigger says so, clear it on the way back. */
export function alarmAction(c: Crossing): 'raise' | 'clear' {
  if (c.trigger === 'both') return 'raise'
  return (c.trigger === 'enter') === c.entered ? 'raise' : 'clear'
}
