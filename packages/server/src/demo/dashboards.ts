import type { Db, Dialect } from '../db/database'
import { DAY, type Plan, type PlannedBike, type PlannedMember, type RideRow } from './generate'
import { clamp, random, type Random, round, weighted } from './random'
import { TableWriter } from './write'

// The facts the dashboards read besides members, rides and feedback (issue 19): what the app
// recorded against the tracking codes in the last TRACKING_DAYS days (sessions, cold starts, crashes,
// features), the bikes' IoT modules with the versions their parts run, and the warnings open on them.
//
// Each part draws from a chance stream of its own (or from a hash of the seed and the member), so
// the members, bikes, rides and App content a seed gives stay what they were without it.

const HOUR = 3_600_000
const MINUTE = 60_000
const SECOND = 1000
const iso = (t: number) => new Date(t).toISOString()

/** The app's events cover this many days before the data's end (the dashboards' longest default range and more). */
export const TRACKING_DAYS = 120

/**
 * The codes the seed's tracking tree holds: the demo records only these (an event against an unknown
 * code would count nowhere on the dashboards).
 */
export const TRACKING_CODES = [
  'app.launch', 'app.crash', 'ride.start', 'ride.finish', 'ride.share', 'bike.unlock', 'bike.lock', 'bike.find',
  'screen.home', 'screen.map', 'screen.profile', 'screen.settings',
] as const
type Code = (typeof TRACKING_CODES)[number]

export type Platform = 'ios' | 'android'

export interface AppRelease {
  platform: Platform
  version: string
  time: number
  force: boolean
}

/**
 * The one release that went wrong: Android 3.2.0 crashed in about 4 % of sessions (the ride map ran
 * out of memory on large screens) until 3.2.2 fixed it; every other version crashes in 0.3–0.6 %.
 */
export const BAD_RELEASE = { platform: 'android', version: '3.2.0', crashRate: 0.04 } as const

/** A crash the app reported at its next launch: the crash report it uploaded (mon_app_upload_log). */
export interface CrashReport {
  member: PlannedMember
  platform: Platform
  appVersion: string
  /** When the app fell over. */
  crashed: number
  /** When the next launch sent the report. */
  time: number
}

/** Which phone each member uses and which app version it runs when: pure functions of the seed. */
export interface AppUsage {
  platformOf: (m: PlannedMember) => Platform
  versionAt: (m: PlannedMember, t: number) => string
}

/** A uniform number in [0, 1) from the seed and two keys, without a stream: the same for every caller and order. */
function unit(seed: number, a: number, b: number): number {
  let t = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(a + 0x632be5ab, 0xc2b2ae35) ^ Math.imul(b + 0x27d4eb2f, 0x165667b1)) >>> 0
  t = (t + 0x6d2b79f5) >>> 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export function appUsage(seed: number, releases: readonly AppRelease[]): AppUsage {
  const byPlatform = { ios: releases.filter((r) => r.platform === 'ios'), android: releases.filter((r) => r.platform === 'android') }
  const platformOf = (m: PlannedMember): Platform => (unit(seed, m.id, 0) < (m.market.code === 'CN' || m.market.code === 'TW' ? 0.7 : 0.45) ? 'android' : 'ios')
  // When each member took each release of their platform, computed once: the events ask per session.
  const adopted = new Map<PlannedMember, { list: readonly AppRelease[]; from: Float64Array }>()
  const adoptionOf = (m: PlannedMember) => {
    let a = adopted.get(m)
    if (a) return a
    const list = byPlatform[platformOf(m)]
    const from = new Float64Array(list.length)
    for (const [i, rel] of list.entries()) {
      // A member who installs the app later gets the version of the day; others update within days
      // (the store's automatic updates), a few only weeks later; a forced update within a day or two.
      const u = unit(seed, m.id, 100 + i)
      const lagDays = rel.force ? 0.2 + 2 * u : unit(seed, m.id, 200 + i) < 0.12 ? 10 - Math.log(1 - u) * 20 : -Math.log(1 - u) * 4
      from[i] = m.reg >= rel.time ? m.reg : rel.time + lagDays * DAY
    }
    adopted.set(m, (a = { list, from }))
    return a
  }
  const versionAt = (m: PlannedMember, t: number): string => {
    const { list, from } = adoptionOf(m)
    let version = list[0]!.version
    for (let i = 0; i < list.length; i++) if (t >= from[i]!) version = list[i]!.version
    return version
  }
  return { platformOf, versionAt }
}

/** The rides of the tracked days, collected as writeRides streams them: per UTC day, [member, begin, end]. */
export class RideDays {
  readonly days: [memberId: number, begin: number, end: number][][]
  constructor(readonly from: number) {
    this.days = Array.from({ length: TRACKING_DAYS }, () => [])
  }

  /** One day's ride rows as the plan yields them. */
  add(rows: readonly RideRow[]) {
    for (const [memberId, , upload, , duration] of rows) {
      // The rider pressed start a minute or so before the ride's clock began, and finish before the upload.
      const end = upload - 30 * SECOND
      const begin = end - duration * SECOND
      const d = Math.floor((begin - this.from) / DAY)
      if (d >= 0 && d < TRACKING_DAYS) this.days[d]!.push([memberId, begin, end])
    }
  }
}

const SCREENS = weighted<Code>([['screen.home', 3], ['screen.map', 2], ['screen.profile', 1.5], ['screen.settings', 0.7], ['bike.find', 0.4]])

/**
 * Writes the app's events of the last TRACKING_DAYS days in time order and answers the crash reports
 * its next launches uploaded. A member is in the app on some of the days they ride (each ride they
 * start in the app is a session with ride.start and ride.finish) and on a few other days (screens).
 */
export async function writeTracking(
  tx: Db,
  dialect: Dialect,
  plan: Plan,
  o: { seed: number; rides: RideDays; releases: readonly AppRelease[]; usage: AppUsage },
): Promise<{ rows: number; crashes: CrashReport[] }> {
  const r = random((o.seed ^ 0x7ac1e5) >>> 0)
  const { members, end } = plan
  const from = o.rides.from
  const releaseIndex = new Map(o.releases.map((x) => [`${x.platform}:${x.version}`, o.releases.filter((y) => y.platform === x.platform && y.time <= x.time).length - 1]))
  const newest = { ios: o.releases.filter((x) => x.platform === 'ios').length - 1, android: o.releases.filter((x) => x.platform === 'android').length - 1 }
  const crashRate = (platform: Platform, version: string) =>
    platform === BAD_RELEASE.platform && version === BAD_RELEASE.version ? BAD_RELEASE.crashRate : 0.003 + 0.003 * unit(o.seed, version.length, Number(version.replace(/\D/g, '')) + (platform === 'ios' ? 0 : 1000))
  /** Cold start (ms): slower on Android, a little faster with each release, a tail of slow phones. */
  const coldStart = (platform: Platform, version: string) => {
    const behind = newest[platform] - (releaseIndex.get(`${platform}:${version}`) ?? 0)
    const bad = platform === BAD_RELEASE.platform && version === BAD_RELEASE.version ? 1.2 : 1
    const median = (platform === 'ios' ? 1200 : 1600) * (1 + 0.06 * behind) * bad
    const ms = r.chance(0.03) ? median * r.between(3, 5.5) : r.logNormal(median, 1.35)
    return Math.round(clamp(ms, 350, 8000))
  }
  // How much each member lives in the app: the share of ride days they open it, and of other days.
  const affinity = new Float32Array(members.length + 1)
  for (const m of members) affinity[m.id] = 0.1 + 0.4 * unit(o.seed, m.id, 1)

  const w = new TableWriter(tx, dialect, 'dash_tracking_event', ['event_id', 'member_id', 'code', 'session_id', 'platform', 'app_version', 'value', 'event_time', 'receive_time'])
  const crashes: CrashReport[] = []
  const pending = new Map<number, { session: string; platform: Platform; version: string; crashed: number }>()
  const hex = (n: number) => Math.floor(r.next() * 16 ** n).toString(16).padStart(n, '0')
  let id = 0
  type Ev = [memberId: number, code: Code, session: string, platform: Platform, version: string, value: number | null, time: number, received: number]

  for (let d = 0; d < TRACKING_DAYS; d++) {
    const dayStart = from + d * DAY
    const today: Ev[] = []
    const rides = new Map<number, [number, number][]>()
    for (const [memberId, begin, finish] of o.rides.days[d]!) {
      let list = rides.get(memberId)
      if (!list) rides.set(memberId, (list = []))
      list.push([begin, finish])
    }
    const sessionsOf = (m: PlannedMember): { launch: number; rides: [number, number][] }[] => {
      const a = affinity[m.id]!
      const ridden = rides.get(m.id)
      const out: { launch: number; rides: [number, number][] }[] = []
      const until = Math.min(m.disabled?.at ?? end, m.lastLogin, end) - MINUTE
      if (ridden) {
        if (!r.chance(a + 0.05)) return out
        // The first ride of the day started in the app; later ones now and then (the others in the bike's auto mode).
        for (const [i, ride] of ridden.entries()) if (i === 0 || r.chance(0.2)) out.push({ launch: ride[0] - (30 * SECOND + r.exponential(2 * MINUTE)), rides: [ride] })
        if (r.chance(0.1)) out.push({ launch: dayStart + clamp(r.normal(13, 4), 6, 23) * HOUR - m.market.offset * HOUR, rides: [] })
      } else {
        const lower = Math.max(m.reg + MINUTE, dayStart)
        if (lower >= until || dayStart + DAY <= m.reg) return out
        if (!r.chance(a * (m.bikes.length ? 0.05 : 0.02))) return out
        const n = r.chance(0.2) ? 2 : 1
        for (let i = 0; i < n; i++) out.push({ launch: dayStart + clamp(r.normal(13, 4), 6, 23) * HOUR - m.market.offset * HOUR, rides: [] })
      }
      return out.filter((s) => s.launch > m.reg && s.launch >= from && (s.rides.length || s.launch < until)).sort((x, y) => x.launch - y.launch)
    }

    for (const m of members) {
      const sessions = sessionsOf(m)
      if (!sessions.length) continue
      const platform = o.usage.platformOf(m)
      for (const s of sessions) {
        const version = o.usage.versionAt(m, s.launch)
        const session = `${hex(8)}-${hex(4)}-4${hex(3)}-${(8 + r.int(4)).toString(16)}${hex(3)}-${hex(8)}${hex(4)}`
        const add = (code: Code, time: number, value: number | null = null) =>
          today.push([m.id, code, session, platform, version, value, Math.round(time), Math.round(time + r.between(0.2, 4) * SECOND)])
        add('app.launch', s.launch, coldStart(platform, version))
        // The crash of the session before, which this launch reports (same session id and version as it had).
        const crashed = pending.get(m.id)
        if (crashed) {
          pending.delete(m.id)
          const sent = s.launch + r.between(1, 5) * SECOND
          today.push([m.id, 'app.crash', crashed.session, crashed.platform, crashed.version, null, Math.round(sent), Math.round(sent + r.between(0.2, 2) * SECOND)])
          // Most phones also upload the crash report; some have reporting switched off.
          if (r.chance(0.8)) crashes.push({ member: m, platform: crashed.platform, appVersion: crashed.version, crashed: crashed.crashed, time: Math.round(sent + r.between(2, 20) * SECOND) })
        }
        let last = s.launch
        if (s.rides.length) {
          const [begin, finish] = s.rides[0]!
          if (m.bluetoothUnlock && r.chance(0.5)) add('bike.unlock', Math.min(begin - SECOND, s.launch + r.between(5, 25) * SECOND))
          add('ride.start', begin)
          add('ride.finish', finish)
          last = finish
          // Locked from the app, or the ride shared, only while the member was still in it (their last login is after).
          const lock = last + r.between(10, 90) * SECOND
          if (r.chance(0.2) && lock < m.lastLogin) add('bike.lock', (last = lock))
          const share = last + r.between(1, 6) * MINUTE
          if (r.chance(0.04) && share < m.lastLogin) add('ride.share', (last = share))
        } else {
          const n = r.chance(0.35) ? 2 : 1
          for (let i = 0; i < n; i++) {
            const code = SCREENS(r.next())
            add(code === 'bike.find' && !m.bikes.length ? 'screen.map' : code, (last += r.between(3, 60) * SECOND))
          }
        }
        if (r.next() < crashRate(platform, version)) pending.set(m.id, { session, platform, version, crashed: Math.round(last + r.exponential(2 * MINUTE)) })
      }
    }
    today.sort((a, b) => a[6] - b[6] || a[0] - b[0])
    for (const [memberId, code, session, platform, version, value, time, received] of today) {
      await w.add(++id, memberId, code, session, platform, version, value, iso(time), iso(Math.min(received, end - SECOND)))
    }
  }
  await w.flush()
  crashes.sort((a, b) => a.time - b.time)
  return { rows: w.written, crashes }
}

// ---- IoT modules: the Velo 4G box is fitted at the factory to every model with room for it (not the
// folding bike). A bike in use reports through it; its owner activated most; stock bikes never connected.

/** Firmware of each part as the OTA catalogue's products (demo/ota.ts) run it, oldest first, with how common each is. */
const PART_VERSIONS = {
  iot: { hardware: 'R1.2', versions: [['1.4.2', 6], ['1.5.0', 14], ['1.6.1', 80]] },
  displayColour: { hardware: 'V2.1', versions: [['2.0.3', 8], ['2.1.0', 20], ['2.2.1', 72]] },
  displayMini: { hardware: 'H1', versions: [['1.0.8', 25], ['1.1.2', 75]] },
  bms: { hardware: 'BQ76952-A', versions: [['1.8.0', 10], ['1.9.2', 30], ['2.0.0', 60]] },
  // The mid-drive controller's 2.4.1 is the update the app's logs offer (demo/content.ts).
  ecuMid: { hardware: 'H3', versions: [['2.3.7', 45], ['2.4.1', 55]] },
  ecuHub: { hardware: 'H2', versions: [['1.2.0', 20], ['1.3.4', 80]] },
} as const

type PartKey = keyof typeof PART_VERSIONS
/** A part's version: the newest for most, older ones for a tail; a box silent for long missed the latest rollouts. */
function versionOf(r: Random, part: PartKey, stale: boolean): string {
  const list = PART_VERSIONS[part].versions
  const pick = weighted(list.map(([v, w], i) => [v, stale && i === list.length - 1 ? w / 4 : w] as const))
  return pick(r.next())
}

export interface PlannedDevice {
  id: number
  bike: PlannedBike
  sn: string
  state: 'inactive' | 'offline' | 'activatedOffline'
  lastSeen: number | null
}

/** The devices of the bikes (bike → device id for bike_bike.iot_device_id), written as iot_device rows. */
export function planDevices(plan: Plan, seed: number): PlannedDevice[] {
  const r = random((seed ^ 0x10de71ce) >>> 0)
  const devices: PlannedDevice[] = []
  for (const bike of plan.bikes) {
    if (bike.model.spec.category === 'folding' || !r.chance(0.96)) continue
    const m = bike.member
    const riding = m && m.activeUntil >= plan.end && !m.disabled
    let state: PlannedDevice['state'] = 'inactive'
    let lastSeen: number | null = null
    if (m) {
      state = r.chance(0.85) ? 'activatedOffline' : 'offline'
      // A box in use sends its heartbeat while the bike stands; the last one came a few hours ago, some
      // a few days ago (a flat battery, a garage without signal); a member who stopped riding, long ago.
      lastSeen = riding ? plan.end - (r.chance(0.85) ? r.exponential(6 * HOUR) : r.between(1, 12) * DAY) : Math.min(plan.end, m.activeUntil + r.between(0, 10) * DAY)
      lastSeen = Math.max(lastSeen, bike.boundTime! + HOUR)
    } else if (bike.earlier.length) {
      state = 'offline'
      lastSeen = bike.earlier.at(-1)!.unbound + r.between(0, 3) * DAY
    }
    devices.push({ id: devices.length + 1, bike, sn: '', state, lastSeen: lastSeen === null ? null : Math.min(Math.round(lastSeen), plan.end - MINUTE) })
  }
  // The demo's SNs (VLD and six digits) never meet the simulator's (VL and six digits, npm run sim).
  for (const d of devices) d.sn = `VLD${String(d.id).padStart(6, '0')}`
  return devices
}

/** Cities of each market where its riders' boxes were last seen (a market not named here: its first). */
export const CITIES: Record<string, readonly (readonly [lat: number, lng: number])[]> = {
  NL: [[52.37, 4.9], [51.92, 4.48], [52.09, 5.12], [52.08, 4.31], [51.44, 5.47], [53.22, 6.57]],
  DE: [[52.52, 13.4], [53.55, 9.99], [48.14, 11.58], [50.94, 6.96], [50.11, 8.68], [51.34, 12.37], [48.78, 9.18]],
  BE: [[50.85, 4.35], [51.22, 4.4], [51.05, 3.72], [50.63, 5.57]],
  FR: [[48.86, 2.35], [45.76, 4.84], [43.6, 1.44], [47.22, -1.55], [48.57, 7.75]],
  GB: [[51.51, -0.13], [52.2, 0.12], [51.75, -1.26], [53.48, -2.24], [55.95, -3.19]],
  DK: [[55.68, 12.57], [56.16, 10.2], [55.4, 10.39]],
  AT: [[48.21, 16.37], [47.07, 15.44], [47.27, 11.39]],
  CH: [[47.38, 8.54], [46.2, 6.14], [46.95, 7.45]],
  LU: [[49.61, 6.13]],
  SE: [[59.33, 18.07], [57.71, 11.97], [55.6, 13.0]],
  NO: [[59.91, 10.75], [60.39, 5.32]],
  IE: [[53.35, -6.26], [51.9, -8.47]],
  IT: [[45.46, 9.19], [44.49, 11.34], [45.44, 12.32]],
  ES: [[41.39, 2.17], [40.42, -3.7], [39.47, -0.38]],
  US: [[40.71, -74.01], [37.77, -122.42], [47.61, -122.33], [42.36, -71.06], [30.27, -97.74]],
  CN: [[31.23, 121.47], [39.9, 116.4], [22.54, 114.06], [30.27, 120.16]],
  TW: [[25.03, 121.57], [22.63, 120.3], [24.15, 120.67]],
}

/** Writes iot_device: no secret (the demo cannot know what a box holds), never online (the gateway says who is). */
export async function writeDevices(
  tx: Db,
  dialect: Dialect,
  plan: Plan,
  devices: readonly PlannedDevice[],
  // Where a device with ride positions (demo/tracks.ts) was last: there it stands, seen then at the latest.
  o: { seed: number; modelId: number; mark: string; last?: ReadonlyMap<number, { lat: number; lng: number; time: number }> },
): Promise<number> {
  const r = random((o.seed ^ 0x5e7b0c5) >>> 0)
  const w = new TableWriter(tx, dialect, 'iot_device', [
    'device_id', 'sn', 'uuid', 'model_id', 'secret_hash', 'state', 'online', 'activated', 'last_seen_at', 'activated_at', 'firmware_version', 'hardware_version', 'config_version', 'thing_model',
    'flow_state', 'bind_state', 'sim_number', 'sim_used_mb', 'sim_limit_mb', 'remaining_flow', 'transport_mode', 'battery', 'signal', 'latitude', 'longitude',
    'display_version', 'display_hardware', 'bms_version', 'bms_hardware', 'ecu_version', 'ecu_hardware', 'create_by', 'create_time', 'update_by', 'update_time', 'remark',
  ])
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[r.int(16)]).join('')
  // Positions from a stream of their own, so the other columns stay what earlier demos wrote.
  const rp = random((o.seed ^ 0x6e05e7) >>> 0)
  /** Where a rider's box was last seen: a city of their market, within a few kilometres of its centre. */
  const positionOf = (market: string): [number, number] => {
    const [lat, lng] = rp.pick(CITIES[market] ?? CITIES.NL!)
    return [round(lat + rp.between(-0.04, 0.04), 5), round(lng + rp.between(-0.06, 0.06), 5)]
  }
  for (const d of devices) {
    const b = d.bike
    const seen = d.lastSeen !== null
    const stale = !seen || d.lastSeen! < plan.end - 60 * DAY
    const category = b.model.spec.category
    const display: PartKey = category === 'mountain' || category === 'folding' ? 'displayMini' : 'displayColour'
    const ecu: PartKey = category === 'city' ? 'ecuHub' : 'ecuMid'
    const activated = d.state === 'activatedOffline'
    const limit = 500
    const used = seen ? round(clamp(r.logNormal(120, 2), 1, limit), 1) : 0
    // A few boxes are close to their SIM package: the flow state the gateway keeps says so.
    const remaining = round(limit - used, 1)
    const at = (t: number) => iso(Math.round(t))
    let position = seen && b.member ? positionOf(b.member.market.code) : [null, null]
    const tracked = o.last?.get(d.id)
    if (tracked) position = [tracked.lat, tracked.lng]
    const lastSeen = tracked && d.lastSeen !== null ? Math.max(d.lastSeen, tracked.time) : d.lastSeen
    await w.add(
      d.id, d.sn, `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[r.int(4)]}${hex(3)}-${hex(12)}`, o.modelId, null, d.state, false, activated,
      seen ? at(lastSeen!) : null, activated ? at(b.boundTime! + r.between(1, 30) * MINUTE) : null,
      versionOf(r, 'iot', stale), PART_VERSIONS.iot.hardware, '', '', remaining < limit * 0.1 ? 'warning' : 'normal', b.member ? 'bound' : 'unbound',
      `8931${r.digits(15)}`, seen ? used : null, limit, remaining, seen ? 'off' : 'on', seen ? Math.round(r.between(8, 100)) : null, seen ? Math.round(r.between(-108, -62)) : null, position[0], position[1],
      versionOf(r, display, stale), PART_VERSIONS[display].hardware, versionOf(r, 'bms', stale), PART_VERSIONS.bms.hardware, versionOf(r, ecu, stale), PART_VERSIONS[ecu].hardware,
      o.mark, iso(b.produced), '', null, '',
    )
  }
  await w.flush()
  return w.written
}

// ---- Warnings on the demo devices: what is open now (of every severity), and cleared ones before.

const ALARMS = [
  // [type, severity (the message configuration's default), code, detail, share]
  ['fall', 'critical', '', 'Tilt 82° for 40 s while parked', 1],
  ['theft', 'major', '', 'Movement 3.2 g while locked', 1.4],
  ['fault', 'major', 'E-BMS-07', 'E-BMS-07: cell voltage imbalance above 120 mV', 0.6],
  ['fault', 'major', 'E-MOT-21', 'E-MOT-21: motor temperature sensor out of range', 0.5],
  ['lowBattery', 'minor', '', 'Battery 8 %', 1.6],
  ['simDataLow', 'warning', '', 'Less than 10 % of the SIM package left', 0.8],
] as const

const SEVERITIES = ['critical', 'major', 'minor', 'warning'] as const
/** The default of iot.warning.offlineHours (modules/iot/warnings/rules.ts). */
const OFFLINE_HOURS = 24

/** Writes iot_alarm rows: open ones (unacknowledged or acknowledged) and the cleared history of the last months. */
export async function writeAlarms(
  tx: Db,
  dialect: Dialect,
  plan: Plan,
  devices: readonly PlannedDevice[],
  o: { seed: number; scale: number; modelId: number; /** When the demo runs (ms): the offline check's clock. */ now: number },
): Promise<number> {
  const r = random((o.seed ^ 0xa1a2a3) >>> 0)
  const seen = devices.filter((d) => d.lastSeen !== null && d.bike.member)
  const w = new TableWriter(tx, dialect, 'iot_alarm', [
    'alarm_id', 'device_id', 'model_id', 'type', 'code', 'severity', 'state', 'detail', 'count', 'start_time', 'last_time', 'end_time', 'ack_time', 'ack_by', 'ack_reason',
    'clear_time', 'clear_by', 'clear_reason', 'active_key',
  ])
  if (!seen.length) return 0
  const pick = weighted(ALARMS.map((a) => [a, a[4]] as const))
  const staff = ['j.devries', 'm.schneider', 'l.wang']
  const open = new Set<string>()
  let id = 0
  // About 140 open at full size (a few dozen of each severity) and three times as many cleared before.
  const count = Math.max(12, Math.round(560 * Math.sqrt(o.scale)))
  const rows: unknown[][] = []
  for (let i = 0; i < count; i++) {
    const d = r.pick(seen)
    const active = i % 4 === 0
    // The first four open ones, one of each severity: every card of the home page has something, at any scale.
    const [type, severity, code, detail] = active && open.size < SEVERITIES.length ? ALARMS.find((a) => a[1] === SEVERITIES[open.size])! : pick(r.next())
    const last = active ? d.lastSeen! - r.exponential(2 * HOUR) : plan.end - r.between(3, 150) * DAY
    const start = last - (type === 'lowBattery' || type === 'simDataLow' ? r.between(2, 48) * HOUR : r.exponential(20 * MINUTE))
    if (start < d.bike.boundTime!) continue
    const key = `${d.id}:${type}:${code}`
    if (active && open.has(key)) continue
    const ackBy = r.pick(staff)
    if (active) {
      open.add(key)
      const acked = r.chance(0.35)
      const ackTime = Math.min(plan.end - MINUTE, last + r.between(10, 240) * MINUTE)
      rows.push([d, type, code, severity, acked ? 'activeAck' : 'activeUnack', detail, 1 + Math.floor(r.exponential(1.5)), start, last, null, acked ? ackTime : null, acked ? ackBy : '', acked ? 'Owner contacted' : '', null, '', '', key])
    } else {
      const byStaff = type === 'theft' || type === 'fall' || r.chance(0.3)
      const cleared = last + r.between(5, 600) * MINUTE
      const acked = r.chance(0.7)
      rows.push([d, type, code, severity, acked ? 'clearedAck' : 'clearedUnack', detail, 1 + Math.floor(r.exponential(1)), start, last, cleared, acked ? last + r.between(5, 120) * MINUTE : null, acked ? ackBy : '', acked ? 'Checked with the owner' : '', cleared, byStaff ? ackBy : '', byStaff ? 'Resolved with the owner' : '', null])
    }
  }
  // Boxes silent longer than the offline threshold (iot.warning.offlineHours, 24 h by default) have
  // the server's "offline too long" warning already, as the sweep would have raised it: without it
  // the first sweep after `npm run demo` would raise thousands at once, each notifying its owner.
  // Silent that long by the time the demo runs, not by the data's end (midnight): a demo written at
  // 22:00 has boxes seen yesterday at 01:00 that the server's first sweep, minutes later, would
  // raise (2,067 at once). These are the only rows dated after the end, and never after the run.
  const checkedAt = Math.max(plan.end, o.now)
  for (const d of devices) {
    if (d.lastSeen === null || d.lastSeen + OFFLINE_HOURS * HOUR > checkedAt) continue
    const key = `${d.id}:offline:`
    if (open.has(key)) continue
    open.add(key)
    const start = d.lastSeen + OFFLINE_HOURS * HOUR
    rows.push([d, 'offline', '', 'minor', 'activeUnack', `Last seen ${iso(d.lastSeen)} (over ${OFFLINE_HOURS} h)`, 1, start, start, null, null, '', '', null, '', '', key])
  }
  rows.sort((a, b) => (a[7] as number) - (b[7] as number))
  for (const [d, type, code, severity, state, detail, n, start, last, ended, ackTime, ackBy, ackReason, clearTime, clearBy, clearReason, key] of rows) {
    const t = (v: unknown) => (v === null ? null : iso(Math.round(v as number)))
    await w.add(++id, (d as PlannedDevice).id, o.modelId, type, code, severity, state, detail, n, t(start), t(last), t(ended), t(ackTime), ackBy, ackReason, t(clearTime), clearBy, clearReason, key)
  }
  await w.flush()
  return w.written
}

// ---- Service orders (home card "overdue"): riders' repair and return requests of the last months,
// in every state, with the due times the engine gives a pending review (2 working days) and a repair
// (10); those still open past them are overdue. No transition history: the engine shows none for them.

const ORDER_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'
const ISSUES: readonly [type: 'repair' | 'return', text: string][] = [
  ['repair', 'The motor cuts out after a few kilometres and the display shows E-MOT-21.'],
  ['repair', 'The battery drops from 60 % to empty within a few minutes.'],
  ['repair', 'Grinding noise from the bottom bracket when pedalling under load.'],
  ['repair', 'The display stays dark although the battery is charged.'],
  ['repair', 'Rear brake squeals and does not stop the bike well any more.'],
  ['repair', 'The bike does not connect to the app since the last update.'],
  ['repair', 'Assist level changes by itself while riding.'],
  ['return', 'The frame size is too large for me; I would like to return the bike.'],
  ['return', 'The bike arrived with a scratched frame and a bent mudguard.'],
]

export interface PlannedServiceOrder {
  bike: PlannedBike
  /** The bike's frame number when the order was opened (before a frame replacement, the old one). */
  frameNumber: string
  member: PlannedMember
  orderNo: string
  created: number
  status: 'draft' | 'pending' | 'bikeCollecting' | 'arrangingCollection' | 'processing' | 'finished' | 'withdrawn' | 'closed'
  due: number | null
  serviceType: 'repair' | 'return'
  issue: string
  evaluation: [stars: number, text: string] | null
}

/** Adds working days (Monday to Friday, UTC) as the engine's deadlines count them. */
function addWorkingDays(t: number, days: number): number {
  let d = t
  for (let left = days; left > 0; ) {
    d += DAY
    const wd = new Date(d).getUTCDay()
    if (wd !== 0 && wd !== 6) left--
  }
  return d
}

export function planServiceOrders(plan: Plan, seed: number): PlannedServiceOrder[] {
  const r = random((seed ^ 0x5e7c1ce) >>> 0)
  const riders = plan.bikes.filter((b) => b.member && !b.member.disabled && b.boundTime! < plan.end - 20 * DAY)
  if (!riders.length) return []
  const count = Math.max(12, Math.round(200 * plan.sizes.members / 10_000))
  const numbers = new Set<string>()
  const orders: PlannedServiceOrder[] = []
  // The first ones, at any scale: a review and a repair overdue, and one of each in time.
  const first: [PlannedServiceOrder['status'], number][] = [['pending', 9], ['processing', 30], ['pending', 0.5], ['processing', 6]]
  for (let i = 0; i < count; i++) {
    const bike = r.pick(riders)
    const member = bike.member!
    // More of them lately (the fleet grew), none before the bike was bound a while.
    const forced = first[orders.length]
    const created = Math.round(Math.max(bike.boundTime! + 14 * DAY, forced ? plan.end - forced[1] * DAY : plan.end - Math.sqrt(r.next()) * 120 * DAY))
    if (created >= plan.end - HOUR || created > member.lastLogin) continue
    const age = (plan.end - created) / DAY
    const status = forced ? forced[0] : weighted<PlannedServiceOrder['status']>(
      age < 3
        ? [['pending', 60], ['draft', 12], ['bikeCollecting', 15], ['arrangingCollection', 8], ['withdrawn', 5]]
        : age < 40
          ? [['finished', 30], ['processing', 25], ['pending', 8], ['bikeCollecting', 10], ['arrangingCollection', 6], ['closed', 8], ['withdrawn', 8], ['draft', 5]]
          : [['finished', 78], ['closed', 10], ['withdrawn', 8], ['processing', 4]],
    )(r.next())
    // Submitted a few minutes after it was written; reviewed within days; repaired from a few days after.
    const submitted = created + r.between(1, 20) * MINUTE
    const inProcessing = Math.min(plan.end - HOUR, submitted + r.between(1, Math.min(12, age * 0.8)) * DAY)
    const due = status === 'pending' ? addWorkingDays(submitted, 2) : status === 'processing' ? addWorkingDays(inProcessing, 10) : null
    const day = iso(created).slice(0, 10).replace(/-/g, '')
    let orderNo = ''
    do orderNo = `RS${day}-${Array.from({ length: 6 }, () => ORDER_ALPHABET[r.int(ORDER_ALPHABET.length)]).join('')}`
    while (numbers.has(orderNo))
    numbers.add(orderNo)
    const [serviceType, issue] = r.chance(0.12) ? r.pick(ISSUES.filter((x) => x[0] === 'return')) : r.pick(ISSUES.filter((x) => x[0] === 'repair'))
    const stars = weighted<number>([[5, 45], [4, 30], [3, 12], [2, 6], [1, 7]])(r.next())
    const evaluation: PlannedServiceOrder['evaluation'] =
      status === 'finished' && r.chance(0.45) ? [stars, stars >= 4 ? 'Quick and friendly, the bike runs like new.' : stars === 3 ? 'Fixed, but it took longer than promised.' : 'Two weeks without my bike and the problem is back.'] : null
    const frameNumber = bike.replaced && created < bike.replaced.at ? bike.replaced.oldNumber : bike.frameNumber
    orders.push({ bike, frameNumber, member, orderNo, created, status, due, serviceType, issue, evaluation })
  }
  return orders.sort((a, b) => a.created - b.created)
}

/** Writes service_repair_order rows: the bike by its id, with its product (SKU and model name) as the server fills it. */
export async function writeServiceOrders(tx: Db, dialect: Dialect, orders: readonly PlannedServiceOrder[], mark: string): Promise<number> {
  const w = new TableWriter(tx, dialect, 'service_repair_order', [
    'repair_order_id', 'order_no', 'status', 'service_type', 'contact_email', 'bike_id', 'first_name', 'last_name', 'country_id', 'return_address', 'issue_description',
    'photo', 'video', 'shipping_label', 'sku', 'product_name', 'due_time', 'evaluation_stars', 'evaluation_text', 'create_by', 'create_time', 'update_by', 'update_time', 'remark',
  ])
  for (const [i, o] of orders.entries()) {
    await w.add(
      i + 1, o.orderNo, o.status, o.serviceType, o.member.email, o.bike.id, o.member.firstName, o.member.lastName, o.member.countryId, '', o.issue,
      null, null, null, `${o.bike.model.spec.code}-${o.bike.colour.code}-${o.bike.size.code}`, o.bike.model.spec.name, o.due === null ? null : iso(o.due), o.evaluation?.[0] ?? null, o.evaluation?.[1] ?? '', mark, iso(o.created), '', null, '',
    )
  }
  await w.flush()
  return w.written
}
