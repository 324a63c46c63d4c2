import { planProduction, type Production } from './orders'
import { clamp, random, type Random, round, weighted } from './random'
import {
  type Category,
  DISABLE_REASONS,
  emailPart,
  type Lang,
  type Market,
  MARKETS,
  type ModelSpec,
  MODELS,
  type Mood,
  REPLACEMENT_REASONS,
  REPLIES,
  roman,
  STAFF,
  TAGS,
  TEMPLATES,
  UNBIND_REASONS,
  written,
} from './vocabulary'

// The demo's data, planned in memory from one seed: members, bikes with their bindings and
// history, feedback. Rides are too many to hold: `rides` yields them day by day, in time order,
// and adds up what the bikes and members need from them (counts, distance, the last ride).

export const DAY = 86_400_000
const HOUR = 3_600_000
const MINUTE = 60_000
/** Two years of data up to the end. */
export const SPAN_DAYS = 730

export interface Sizes {
  members: number
  bikes: number
  rides: number
  feedback: number
}

export const FULL_SIZE: Sizes = { members: 10_000, bikes: 12_000, rides: 1_000_000, feedback: 3_000 }

export function sizesAt(scale: number): Sizes {
  const at = (n: number) => Math.max(1, Math.round(n * scale))
  return { members: at(FULL_SIZE.members), bikes: at(FULL_SIZE.bikes), rides: at(FULL_SIZE.rides), feedback: at(FULL_SIZE.feedback) }
}

export interface PlannedModel {
  id: number
  spec: ModelSpec
  launch: number
  colours: { id: number; name: string; code: string; swatch: string; weight: number }[]
  sizes: { id: number; name: string; code: string; frameMin: number; frameMax: number; riderMin: number; riderMax: number }[]
}

export interface PlannedMember {
  id: number
  market: Market
  countryId: number | null
  lang: Lang
  gender: '0' | '1' | '2'
  firstName: string
  lastName: string
  email: string
  phone: string
  birthday: string | null
  height: number | null
  weight: number | null
  reg: number
  emailConfirmed: boolean
  privacy: 'agreed' | 'disagreed'
  ridingMode: 'manual' | 'auto'
  bluetoothUnlock: boolean
  /** When staff disabled the account (status '1'), with the reason and who did it. */
  disabled?: { at: number; reason: string; by: string }
  /** Rides stop here: the member moved on, or the account was disabled. */
  activeUntil: number
  /** Bikes bound to the member now. */
  bikes: PlannedBike[]
  /** Anything the member did in the app (bound, unbound, fed back): the last login is not before it. */
  lastSeen: number
  lastRide: number
  lastLogin: number
  /** Only the demo's app rider has one (demo/content.ts): the others cannot sign in to the app. */
  passwordHash?: string
}

/** How a bike is ridden: per day, the chance of each kind of trip (before seasons and scaling). */
interface Usage {
  /** Weekdays: out in the morning, back in the afternoon (work, or the school run on a cargo bike). */
  commute: number
  commuteKm: number
  leave: number
  back: number
  errandWeekday: number
  errandWeekend: number
  leisureWeekday: number
  leisureWeekend: number
  leisureKm: number
  /** km/h the rider averages on this bike. */
  speed: number
  cadence: boolean
  riderKg: number
}

export interface PlannedBike {
  id: number
  model: PlannedModel
  colour: PlannedModel['colours'][number]
  size: PlannedModel['sizes'][number]
  produced: number
  orderId: number
  frameNumber: string
  /** The number the bike was produced with, when its frame was replaced. */
  replaced?: { oldNumber: string; at: number; reason: string; by: string }
  member?: PlannedMember
  boundTime?: number
  /** Earlier owners: [member, bound, unbound, detail, by]. */
  earlier: { member: PlannedMember; bound: number; unbound: number; detail: string; by: string }[]
  access: 'private' | 'shared'
  bluetoothSerial: string
  protocolVersion: string
  mac: string
  defaultBike: boolean
  remark: string
  usage?: Usage
  /** Distance ridden before the rides the data holds (earlier owners). */
  earlierKm: number
  rideCount: number
  km: number
  cycles: number
  health: number
}

export interface PlannedRecord {
  bike: PlannedBike
  frameNumber: string
  kind: 'produced' | 'bound' | 'unbound' | 'frameReplaced'
  detail: string
  memberId: number | null
  time: number
  by: string
}

export interface PlannedFeedback {
  id: number
  member: PlannedMember
  stars: number
  content: string
  tagIds: number[]
  time: number
  read?: { by: string; at: number }
  reply?: { text: string; by: string; at: number }
}

export interface Plan {
  seed: number
  end: number
  start: number
  sizes: Sizes
  models: PlannedModel[]
  tags: { id: number; name: string; key: string }[]
  members: PlannedMember[]
  bikes: PlannedBike[]
  /** The orders the bikes were made on, their frame numbers and series. */
  production: Production
  feedback: PlannedFeedback[]
  /** Filled by `rides`: the bikes' vehicle records, in time order. */
  records: () => PlannedRecord[]
  /** Rides, day by day in time order, as rows [memberId, bikeId, uploadTime, distance, duration, avgSpeed, maxSpeed, cadence, calories]. */
  rides: () => Generator<RideRow[]>
  /** After `rides` has run: counts, cycles and battery health on the bikes, last logins on the members. */
  settle: () => void
}

export type RideRow = [memberId: number, bikeId: number, upload: number, distance: number, duration: number, avgSpeed: number, maxSpeed: number, cadence: number | null, calories: number]

/** The models, colours and sizes with their ids: the same for every scale. */
function planModels(end: number): PlannedModel[] {
  let colourId = 0
  let sizeId = 0
  return MODELS.map((spec, i) => ({
    id: i + 1,
    spec,
    launch: end - spec.launchedDaysAgo * DAY,
    colours: spec.colours.map(([name, code, swatch, weight]) => ({ id: ++colourId, name, code, swatch, weight })),
    sizes: spec.sizes.map(([name, code, frameMin, frameMax, riderMin, riderMax]) => ({ id: ++sizeId, name, code, frameMin, frameMax, riderMin, riderMax })),
  }))
}

/** Summer time: the EU's (last Sunday of March to last Sunday of October) or the US's (second Sunday of March to first of November). */
function summerTime(rule: Market['dst'], t: number): boolean {
  if (rule === 'none') return false
  const y = new Date(t).getUTCFullYear()
  const sunday = (month: number, nth: number) => {
    if (nth > 0) {
      const first = new Date(Date.UTC(y, month, 1)).getUTCDay()
      return Date.UTC(y, month, 1 + ((7 - first) % 7) + (nth - 1) * 7)
    }
    const last = new Date(Date.UTC(y, month + 1, 0))
    return last.getTime() - last.getUTCDay() * DAY
  }
  return rule === 'eu' ? t >= sunday(2, -1) && t < sunday(9, -1) : t >= sunday(2, 2) && t < sunday(10, 1)
}

const pickWeighted = <T>(r: Random, items: readonly (readonly [T, number])[]) => weighted(items)(r.next())

export function buildPlan(o: { seed: number; scale: number; end: number; countries: ReadonlyMap<string, number> }): Plan {
  const r = random(o.seed)
  const end = o.end
  const start = end - SPAN_DAYS * DAY
  const sizes = sizesAt(o.scale)
  const models = planModels(end)
  const tags = TAGS.map(([key, name], i) => ({ id: i + 1, key, name }))

  // ---- Members: registrations grow over the two years (the last month three times the first) and
  // peak in spring, when bikes are bought; at local daytime and evening.
  const marketPick = weighted(MARKETS.map((m) => [m, m.weight] as const))
  const regHours = weighted<number>([
    [7, 2], [8, 3], [9, 4], [10, 5], [11, 5], [12, 6], [13, 5], [14, 5], [15, 5], [16, 5], [17, 6], [18, 7], [19, 9], [20, 10], [21, 9], [22, 6], [23, 3],
  ])
  const members: PlannedMember[] = []
  for (let i = 0; i < sizes.members; i++) {
    let t: number
    for (;;) {
      const x = (-1 + Math.sqrt(1 + 8 * r.next())) / 2
      t = start + x * SPAN_DAYS * DAY
      const doy = dayOfYear(t)
      if (r.next() * 1.35 < 1 + 0.35 * Math.cos((2 * Math.PI * (doy - 135)) / 365)) break
    }
    const market = marketPick(r.next())
    const offset = market.offset + (summerTime(market.dst, t) ? 1 : 0)
    const localMidnight = Math.floor((t + offset * HOUR) / DAY) * DAY - offset * HOUR
    const reg = Math.min(end - r.between(1, 60) * MINUTE, localMidnight + (regHours(r.next()) + r.next()) * HOUR)
    const [lang, names] = market.people(r)
    const g = r.next()
    const gender = g < 0.55 ? '0' : g < 0.95 ? '1' : '2'
    const first = r.pick(gender === '0' ? names.male : gender === '1' ? names.female : r.chance(0.5) ? names.male : names.female)
    const last = r.pick(names.last)
    const age = pickWeighted(r, [
      [() => r.between(18, 25), 5],
      [() => r.between(25, 40), 25],
      [() => r.between(40, 60), 40],
      [() => r.between(60, 78), 30],
    ] as const)()
    const birthday = r.chance(0.92) ? new Date(reg - age * 365.25 * DAY).toISOString().slice(0, 10) : null
    const asian = market.code === 'CN' || market.code === 'TW'
    const [hm, hf] = market.height
    let height: number | null = null
    let weight: number | null = null
    if (gender !== '2' && r.chance(0.85)) {
      height = Math.round(clamp(gender === '0' ? r.normal(hm, 7) : r.normal(hf, 6.5), 145, 208))
      const bmi = clamp(gender === '0' ? r.normal(asian ? 23.5 : 26, 3.2) : r.normal(asian ? 21.5 : 24.5, 3.6), 17, 40)
      weight = round((bmi * height * height) / 10_000, 1)
    } else if (r.chance(0.3)) {
      height = Math.round(clamp(r.normal((hm + hf) / 2, 9), 145, 205))
    }
    members.push({
      id: 0,
      market,
      countryId: o.countries.get(market.code) ?? null,
      lang,
      gender,
      firstName: written(first),
      lastName: written(last),
      email: emailLocal(r, roman(first), roman(last), birthday),
      phone: r.chance(0.9) ? market.phone(r) : '',
      birthday,
      height,
      weight,
      reg,
      emailConfirmed: r.chance(0.93),
      privacy: r.chance(0.95) ? 'agreed' : 'disagreed',
      ridingMode: r.chance(0.35) ? 'auto' : 'manual',
      bluetoothUnlock: r.chance(0.45),
      activeUntil: end,
      bikes: [],
      lastSeen: reg,
      lastRide: 0,
      lastLogin: reg,
    })
  }
  // Ids in registration order, as the app would have given them.
  members.sort((a, b) => a.reg - b.reg)
  const emails = new Set<string>()
  const domains = ['example.com', 'example.net', 'example.org']
  for (const [i, m] of members.entries()) {
    m.id = i + 1
    let local = m.email
    for (let n = 2; emails.has(local); n++) local = `${m.email}${n}`
    emails.add(local)
    m.email = `${local}@${domains[i % 3]}`
    if (r.chance(0.004) && m.reg < end - 8 * DAY) {
      const at = m.reg + r.between(7 * DAY, end - m.reg - DAY)
      m.disabled = { at, reason: r.pick(DISABLE_REASONS), by: r.pick(STAFF.en) }
      m.activeUntil = at
    }
  }

  // ---- Bindings: most members bind a bike within hours of registering (they signed up with the
  // bike in front of them); some have two or three. The model fits the market, the size the rider.
  const bikesOf = weighted<number>([[0, 21], [1, 63], [2, 12.5], [3, 3.5]])
  const bindings: { member: PlannedMember; time: number; nth: number }[] = []
  for (const m of members) {
    const count = bikesOf(r.next())
    const until = m.disabled?.at ?? end
    let time = m.reg + pickWeighted(r, [
      [() => r.exponential(3 * HOUR) + 2 * MINUTE, 70],
      [() => r.between(1, 30) * DAY, 20],
      [() => r.between(30, 200) * DAY, 10],
    ] as const)()
    for (let n = 0; n < count && time < until - HOUR; n++) {
      bindings.push({ member: m, time, nth: n })
      // A second or third bike later on (a cargo bike for the family, a folding one for the train).
      time += r.between(0.1, 1) * (until - HOUR - time)
    }
  }
  // Members who stop riding at some point (moved, sold the bike, went back to the car).
  const lastBind = new Map<PlannedMember, number>()
  for (const b of bindings) lastBind.set(b.member, Math.max(lastBind.get(b.member) ?? 0, b.time))
  for (const m of members) {
    const since = lastBind.get(m)
    if (since === undefined || m.disabled || !r.chance(0.07)) continue
    const from = since + 20 * DAY
    if (from < end) m.activeUntil = r.between(from, end)
  }

  const bikes: PlannedBike[] = []
  const newBike = (model: PlannedModel, heightCm: number | null): PlannedBike => {
    const fits = model.spec.sizes.length > 1 && heightCm !== null ? model.sizes.filter((s) => heightCm >= s.riderMin && heightCm <= s.riderMax) : []
    const size = fits.length ? r.pick(fits) : model.sizes[Math.floor((model.sizes.length - 1) / 2)]!
    const colour = pickWeighted(r, model.colours.map((c) => [c, c.weight] as const))
    const bike: PlannedBike = {
      id: 0,
      model,
      colour,
      size,
      produced: 0,
      orderId: 0,
      frameNumber: '',
      earlier: [],
      access: r.chance(model.spec.category === 'cargo' ? 0.35 : 0.12) ? 'shared' : 'private',
      bluetoothSerial: `VB${Array.from({ length: 10 }, () => '0123456789ABCDEF'[r.int(16)]).join('')}`,
      protocolVersion: '',
      mac: '',
      defaultBike: false,
      remark: '',
      earlierKm: 0,
      rideCount: 0,
      km: 0,
      cycles: 0,
      health: 100,
    }
    bikes.push(bike)
    return bike
  }
  const modelFor = (market: Market | undefined, at: number, owned: readonly Category[]) =>
    pickWeighted(
      r,
      models
        .filter((m) => m.launch <= at - 10 * DAY)
        .map((m) => [m, m.spec.weight * (market?.likes?.[m.spec.category] ?? 1) * (owned.includes(m.spec.category) ? 0.25 : 1)] as const),
    )

  for (const b of bindings) {
    const m = b.member
    const model = modelFor(m.market, b.time, m.bikes.map((x) => x.model.spec.category))
    const bike = newBike(model, m.height)
    bike.member = m
    bike.boundTime = b.time
    bike.usage = usageOf(r, model, m, b.nth)
    m.bikes.push(bike)
    m.lastSeen = Math.max(m.lastSeen, b.time)
  }
  const bound = bikes.length

  // Second-hand: a few bound bikes had an owner before (unbound, then bound again), and a few
  // were unbound and stay so. Their earlier owner registered before and rode them a while.
  const owners = members.filter((m) => !m.disabled)
  const earlierOwner = (before: number): PlannedMember | undefined => {
    for (let tries = 0; tries < 20; tries++) {
      const m = r.pick(owners)
      if (m.reg < before - 90 * DAY) return m
    }
    return undefined
  }
  const giveEarlierOwner = (bike: PlannedBike, unboundBy: number) => {
    const owner = earlierOwner(unboundBy)
    if (!owner) return false
    const boundAt = owner.reg + r.between(0.01, 0.5) * (unboundBy - 60 * DAY - owner.reg)
    const unboundAt = r.between(boundAt + 45 * DAY, unboundBy)
    if (boundAt < bike.model.launch + 10 * DAY || boundAt >= unboundAt) return false
    const [detail, staff] = r.pick(UNBIND_REASONS)
    bike.earlier.push({ member: owner, bound: boundAt, unbound: unboundAt, detail, by: staff ? r.pick(STAFF[owner.lang]) : 'app' })
    bike.earlierKm = ((unboundAt - boundAt) / DAY) * r.logNormal(6, 1.8)
    owner.lastSeen = Math.max(owner.lastSeen, unboundAt)
    return true
  }
  for (let i = 0; i < bound; i++) {
    const bike = bikes[i]!
    if (bike.boundTime! > start + 200 * DAY && r.chance(0.02)) giveEarlierOwner(bike, bike.boundTime! - r.between(2, 40) * DAY)
  }
  const formerlyBound = Math.min(Math.max(0, sizes.bikes - bound), Math.round(sizes.bikes * 0.025))
  for (let i = 0; i < formerlyBound; i++) {
    const owner = earlierOwner(end)
    if (!owner) continue
    const model = modelFor(owner.market, owner.reg, [])
    const bike = newBike(model, owner.height)
    if (!giveEarlierOwner(bike, end - r.between(1, 300) * DAY)) bikes.pop()
  }
  // Stock: produced and never bound (at dealers, in shops, test-ride fleets), mostly recent.
  while (bikes.length < sizes.bikes) {
    const made = end - Math.min(r.exponential(110 * DAY), 700 * DAY)
    const model = modelFor(undefined, made, [])
    const bike = newBike(model, null)
    bike.produced = Math.max(made, model.launch + r.between(1, 20) * DAY)
    if (r.chance(0.3)) bike.remark = r.pick(['Dealer stock', 'Showroom bike', 'Test-ride fleet'])
  }

  // Production comes before the first binding: weeks in a warehouse and at the dealer.
  for (const bike of bikes) {
    const first = bike.earlier[0]?.bound ?? bike.boundTime
    if (first === undefined) continue
    const lead = clamp(r.logNormal(40, 1.8), 5, 300) * DAY
    bike.produced = Math.max(first - lead, bike.model.launch + r.between(0.2, 0.9) * Math.max(DAY, first - bike.model.launch - DAY))
    if (bike.produced >= first) bike.produced = first - r.between(1, 5) * DAY
  }
  // Ids in production order.
  bikes.sort((a, b) => a.produced - b.produced)
  for (const [i, bike] of bikes.entries()) {
    bike.id = i + 1
    const age = end - bike.produced
    bike.protocolVersion = age > 400 * DAY ? '1.2.0' : age > 120 * DAY ? '1.3.0' : '1.4.1'
    // A bijection of the id, so no two bikes share a MAC.
    const mix = Math.imul(bike.id, 0x9e3779b1) >>> 0
    bike.mac = ['D8', '3B', ...[24, 16, 8, 0].map((s) => ((mix >>> s) & 255).toString(16).toUpperCase().padStart(2, '0'))].join(':')
  }
  // A few frames replaced (warranty, damage): the bike takes a new number, its history keeps the old.
  for (const bike of bikes) {
    const since = bike.boundTime ?? bike.earlier[0]?.bound
    if (since === undefined || since > end - 90 * DAY || !r.chance(0.006)) continue
    bike.replaced = { oldNumber: '', at: r.between(since + 30 * DAY, end - DAY), reason: r.pick(REPLACEMENT_REASONS), by: r.pick(STAFF.en) }
  }
  // Production orders by model and month, and the frame numbers they generated (demo/orders.ts).
  const production = planProduction(r, bikes, models, end)
  const orderNo = new Map(production.orders.map((o) => [o.id, o.orderNo]))
  // The default bike of a member: the one bound last.
  for (const m of members) if (m.bikes.length) m.bikes.reduce((a, b) => (b.boundTime! > a.boundTime! ? b : a)).defaultBike = true

  // ---- Feedback: mostly from riders, stars skewed to 4 and 5, in the member's language.
  const starsOf = weighted<number>([[5, 45], [4, 26], [3, 11], [2, 7], [1, 11]])
  const tagId = new Map<string, number>(tags.map((t) => [t.key, t.id]))
  const withBikes = members.filter((m) => m.bikes.some((b) => b.boundTime! < (m.disabled?.at ?? end) - 3 * DAY))
  const feedback: PlannedFeedback[] = []
  for (let tries = 0; feedback.length < sizes.feedback && tries < sizes.feedback * 20; tries++) {
    const fromRider = withBikes.length > 0 && r.chance(0.88)
    const member = fromRider ? r.pick(withBikes) : r.pick(members)
    const until = Math.min(member.disabled?.at ?? end, member.activeUntil + 10 * DAY, end)
    const bike = member.bikes[0]
    const from = bike ? bike.boundTime! + 2 * DAY : member.reg + HOUR
    // Too new to have anything to say yet: another member.
    if (from >= until - HOUR) continue
    const time = r.between(from, until - HOUR)
    const stars = starsOf(r.next())
    const mood: Mood = stars >= 4 ? 'good' : stars === 3 ? 'mixed' : 'bad'
    const fitting = TEMPLATES.filter((t) => t.mood === mood && (bike || (!t.text.en.includes('{model}') && !t.tags.includes('motor') && !t.tags.includes('battery'))))
    const template = r.pick(fitting.length ? fitting : TEMPLATES.filter((t) => t.mood === mood))
    const km = template.km ? String(Math.round(r.between(...template.km))) : ''
    const content = template.text[member.lang].replaceAll('{model}', bike?.model.spec.name ?? 'Velo').replaceAll('{km}', km)
    const keys = new Set<string>(template.tags)
    if (r.chance(0.15)) keys.add(r.pick(TAGS)[0])
    const item: PlannedFeedback = { id: 0, member, stars, content, tagIds: [...keys].map((k) => tagId.get(k)!).sort((a, b) => a - b), time }
    const staff = STAFF[member.lang]
    const by = r.pick(staff)
    // The service desk works office hours (Amsterdam's, or Shanghai's for Chinese).
    const desk = member.lang === 'zh' ? 8 : 1
    const readAt = officeHours(r, time + clamp(r.logNormal(3 * HOUR, 3), 5 * MINUTE, 10 * DAY), desk)
    const replyAt = officeHours(r, readAt + clamp(r.logNormal(1.5 * HOUR, 3), 2 * MINUTE, 5 * DAY), desk)
    const answers = r.chance(mood === 'bad' ? 0.8 : mood === 'mixed' ? 0.68 : 0.52)
    const reads = answers || r.chance(0.45)
    if (reads && readAt < end) item.read = { by, at: readAt }
    if (answers && replyAt < end) item.reply = { text: r.pick(REPLIES[mood][member.lang]), by, at: replyAt }
    member.lastSeen = Math.max(member.lastSeen, time)
    feedback.push(item)
  }
  feedback.sort((a, b) => a.time - b.time)
  for (const [i, f] of feedback.entries()) f.id = i + 1

  // ---- Rides.
  const marketIndex = new Map(MARKETS.map((m, i) => [m, i]))
  const days = SPAN_DAYS
  const weekday = new Uint8Array(days)
  const summer = { eu: new Uint8Array(days), us: new Uint8Array(days), none: new Uint8Array(days) }
  const season = MARKETS.map(() => new Float32Array(days))
  const weather = MARKETS.map(() => new Float32Array(days))
  const commuteHoliday = MARKETS.map(() => new Float32Array(days))
  for (let d = 0; d < days; d++) {
    const t = start + d * DAY
    const date = new Date(t)
    weekday[d] = date.getUTCDay()
    summer.eu[d] = summerTime('eu', t + 12 * HOUR) ? 1 : 0
    summer.us[d] = summerTime('us', t + 12 * HOUR) ? 1 : 0
    const doy = dayOfYear(t)
    const month = date.getUTCMonth()
    const dom = date.getUTCDate()
    const christmas = (month === 11 && dom >= 24) || (month === 0 && dom === 1)
    const summerBreak = (month === 6 && dom >= 15) || (month === 7 && dom <= 20)
    const goldenWeek = month === 9 && dom <= 7
    for (const [i, m] of MARKETS.entries()) {
      // Fewer rides in winter, more in summer; how much depends little on the country.
      season[i]![d] = 1 + 0.45 * m.seasons * Math.cos((2 * Math.PI * (doy - 200)) / 365)
      // Rain or snow on some days (more often in autumn and winter) keeps people off the bike.
      const wet = r.chance(0.25 + 0.12 * Math.cos((2 * Math.PI * (doy - 15)) / 365))
      weather[i]![d] = wet ? r.between(0.45, 0.8) : r.between(0.95, 1.1)
      const asian = m.code === 'CN' || m.code === 'TW'
      commuteHoliday[i]![d] = christmas && !asian ? 0.25 : goldenWeek && asian ? 0.2 : summerBreak && !asian ? 0.65 : 1
    }
  }
  const offsetOn = (m: Market, d: number) => m.offset + (summer[m.dst][d] ? 1 : 0)
  const dayOf = (m: Market, t: number) => Math.floor((t + m.offset * HOUR - start) / DAY)

  interface Rider {
    bike: PlannedBike
    member: PlannedMember
    u: Usage
    mi: number
    from: number
    until: number
    firstDay: number
    lastDay: number
  }
  const ridersByDay: Rider[] = bikes
    .filter((b) => b.member && b.usage)
    .map((b) => {
      const m = b.member!
      const until = Math.min(end, m.activeUntil)
      return { bike: b, member: m, u: b.usage!, mi: marketIndex.get(m.market)!, from: b.boundTime!, until, firstDay: Math.max(0, dayOf(m.market, b.boundTime!)), lastDay: Math.min(days - 1, dayOf(m.market, until)) }
    })
    .filter((x) => x.firstDay <= x.lastDay)
    .sort((a, b) => a.firstDay - b.firstDay || a.bike.id - b.bike.id)

  const CAP = 0.97
  // Expected trips of one rider on one day, before the global scale k: [chance, rides per trip].
  const trips = (x: Rider, d: number, out: Float64Array) => {
    const s = season[x.mi]![d]! * weather[x.mi]![d]!
    const wd = weekday[d]!
    const weekend = wd === 0 || wd === 6
    out[0] = weekend ? 0 : x.u.commute * s * commuteHoliday[x.mi]![d]!
    out[1] = (weekend ? x.u.errandWeekend : x.u.errandWeekday) * s
    out[2] = weekend ? x.u.leisureWeekend * s : x.u.leisureWeekday * s * season[x.mi]![d]!
  }
  const PER_TRIP = [1.92, 1, 1]
  const buf = new Float64Array(3)
  const expected = (k: number) => {
    let sum = 0
    for (const x of ridersByDay) {
      for (let d = x.firstDay; d <= x.lastDay; d++) {
        trips(x, d, buf)
        for (let j = 0; j < 3; j++) sum += Math.min(CAP, k * buf[j]!) * PER_TRIP[j]!
      }
    }
    return sum
  }
  // Scale the chances so the rides come to the size asked for (about: they are drawn).
  let k = 1
  for (let i = 0; i < 4; i++) {
    const e = expected(k)
    if (e <= 0) break
    k *= sizes.rides / e
  }

  const records: PlannedRecord[] = []
  let ridesDone = false

  function* rides(): Generator<RideRow[]> {
    const active: Rider[] = []
    let next = 0
    const chances = new Float64Array(3)
    for (let d = 0; d < days; d++) {
      while (next < ridersByDay.length && ridersByDay[next]!.firstDay <= d) active.push(ridersByDay[next++]!)
      const today: RideRow[] = []
      for (let a = 0; a < active.length; a++) {
        const x = active[a]!
        if (x.lastDay < d) {
          active.splice(a--, 1)
          continue
        }
        trips(x, d, chances)
        const dayStart = start + d * DAY - offsetOn(x.member.market, d) * HOUR
        const ride = (hour: number, km: number, kind: 'commute' | 'errand' | 'leisure') => {
          const u = x.u
          const distance = round(Math.max(0.4, km), 2)
          const avg = round(clamp(u.speed + (kind === 'commute' ? 0.8 : kind === 'errand' ? -1.5 : -0.4) + (distance < 2 ? -1.5 : 0) + r.normal(0, 1.1), 15, 25), 1)
          const duration = Math.round((distance / avg) * 3600)
          const max = round(clamp(avg + 3 + r.exponential(3.2) + (distance > 20 ? 3 : 0), avg + 2, 45), 1)
          const cadence = u.cadence ? Math.round(clamp(r.normal(62 + (avg - 20) * 1.2, 5), 40, 95)) : null
          const calories = Math.round(u.riderKg * (duration / 3600) * (3.6 + 0.12 * (avg - 15)) * r.between(0.92, 1.08))
          const begin = dayStart + hour * HOUR
          const upload = Math.round(begin + duration * 1000 + r.between(20, 180) * 1000)
          if (begin <= x.from || upload >= x.until) return
          today.push([x.member.id, x.bike.id, upload, distance, duration, avg, max, cadence, calories])
        }
        if (chances[0]! > 0 && r.next() < Math.min(CAP, k * chances[0]!)) {
          const km = x.u.commuteKm * r.normal(1, 0.06) * (r.chance(0.1) ? 1.3 : 1)
          ride(x.u.leave + r.normal(0, 0.2), km, 'commute')
          if (r.chance(0.92)) ride(x.u.back + r.normal(0, 0.35), x.u.commuteKm * r.normal(1, 0.06), 'commute')
        }
        if (chances[1]! > 0 && r.next() < Math.min(CAP, k * chances[1]!)) {
          ride(clamp(r.normal(13.5, 3), 8.5, 20.5), clamp(r.logNormal(3.5, 1.7), 0.5, 15), 'errand')
        }
        if (chances[2]! > 0 && r.next() < Math.min(CAP, k * chances[2]!)) {
          const wd = weekday[d]!
          const hour = wd === 0 || wd === 6 ? clamp(r.normal(11.5, 2.2), 8, 17) : clamp(r.normal(18.8, 0.8), 17.5, 20.5)
          ride(hour, clamp(r.logNormal(x.u.leisureKm, 1.5), 5, 120), 'leisure')
        }
      }
      today.sort((a, b) => a[2] - b[2])
      for (const row of today) {
        const bike = bikes[row[1] - 1]!
        bike.rideCount++
        bike.km += row[3]
        const member = members[row[0] - 1]!
        if (row[2] > member.lastRide) member.lastRide = row[2]
      }
      if (today.length) yield today
    }
    ridesDone = true
  }

  function settle() {
    if (!ridesDone) throw new Error('settle() runs after the rides')
    for (const bike of bikes) {
      const ageYears = (end - bike.produced) / (365 * DAY)
      const km = bike.km + bike.earlierKm
      bike.cycles = Math.round(km / (bike.model.spec.rangeKm * 0.85)) + r.int(3)
      bike.health = round(clamp(100 - 0.022 * bike.cycles - 1.8 * ageYears - Math.abs(r.normal(0, 1.2)), 62, 100), 1)
    }
    for (const m of members) {
      const until = m.disabled ? m.disabled.at : end
      let last = Math.max(m.lastSeen, m.lastRide) + r.between(1, 30) * MINUTE
      if (m.bikes.length && m.activeUntil >= end) {
        // Riders open the app to unlock and check their rides: most have been in it lately.
        last = Math.max(last, end - r.exponential(4 * DAY))
      } else if (!m.bikes.length && !m.disabled && r.chance(0.6)) {
        last = Math.max(last, m.reg + r.exponential(25 * DAY))
      }
      m.lastLogin = Math.max(m.reg + MINUTE, Math.min(last, until - MINUTE, end - MINUTE))
    }
  }

  function planRecords(): PlannedRecord[] {
    if (records.length) return records
    for (const bike of bikes) {
      const numberAt = (t: number) => (bike.replaced && t < bike.replaced.at ? bike.replaced.oldNumber : bike.frameNumber)
      const add = (kind: PlannedRecord['kind'], time: number, detail: string, memberId: number | null, by: string) =>
        records.push({ bike, frameNumber: numberAt(time), kind, detail, memberId, time, by })
      add('produced', bike.produced, `${bike.model.spec.name}, ${bike.colour.name}, size ${bike.size.name}; production order ${orderNo.get(bike.orderId)}`, null, 'factory')
      for (const e of bike.earlier) {
        add('bound', e.bound, 'Bound in the app', e.member.id, 'app')
        add('unbound', e.unbound, e.detail, e.member.id, e.by)
      }
      if (bike.member) add('bound', bike.boundTime!, 'Bound in the app', bike.member.id, 'app')
      if (bike.replaced) add('frameReplaced', bike.replaced.at, `Frame ${bike.replaced.oldNumber} replaced by ${bike.frameNumber}: ${bike.replaced.reason}`, bike.member?.id ?? null, bike.replaced.by)
    }
    const order = { produced: 0, bound: 1, unbound: 2, frameReplaced: 3 }
    records.sort((a, b) => a.time - b.time || a.bike.id - b.bike.id || order[a.kind] - order[b.kind])
    return records
  }

  return { seed: o.seed, end, start, sizes, models, tags, members, bikes, production, feedback, records: planRecords, rides, settle }
}

/** The time itself within 8:00–18:00 on a weekday at the UTC offset, else a moment of the next working morning. */
function officeHours(r: Random, t: number, offset: number): number {
  const local = t + offset * HOUR
  let day = Math.floor(local / DAY)
  const hour = (local - day * DAY) / HOUR
  const weekday = (d: number) => new Date(d * DAY).getUTCDay()
  if (hour >= 8 && hour < 18 && weekday(day) !== 0 && weekday(day) !== 6) return t
  if (hour >= 18) day++
  while (weekday(day) === 0 || weekday(day) === 6) day++
  return day * DAY + (8 + r.exponential(0.8)) * HOUR - offset * HOUR
}

function dayOfYear(t: number): number {
  const d = new Date(t)
  return Math.floor((t - Date.UTC(d.getUTCFullYear(), 0, 1)) / DAY)
}

/** An email's local part as people choose them: name.surname, initials, a birth year, a number. */
function emailLocal(r: Random, first: string, last: string, birthday: string | null): string {
  const f = emailPart(first)
  const l = emailPart(last)
  const yy = birthday ? birthday.slice(2, 4) : String(10 + r.int(90))
  return r.pick([`${f}.${l}`, `${f}.${l}`, `${f}${l}`, `${f[0]}.${l}`, `${f}.${l}${yy}`, `${l}.${f}`, `${f}_${l}`, `${f}${l}${r.int(100)}`, `${f[0]}${l}`])
}

type UsageKind = 'commute' | 'errand' | 'leisure' | 'school'
const USAGE_KINDS: Record<Category, readonly (readonly [UsageKind, number])[]> = {
  city: [['commute', 60], ['errand', 25], ['leisure', 15]],
  trekking: [['commute', 40], ['leisure', 50], ['errand', 10]],
  cargo: [['school', 60], ['commute', 25], ['leisure', 15]],
  folding: [['commute', 80], ['errand', 20]],
  mountain: [['leisure', 80], ['commute', 20]],
}

/** How this rider uses this bike: the model's category decides the kind, the rider the details. */
function usageOf(r: Random, model: PlannedModel, m: PlannedMember, nth: number): Usage {
  const category = model.spec.category
  const kind = pickWeighted(r, USAGE_KINDS[category])
  // A second or third bike is ridden less.
  const less = nth === 0 ? 1 : 0.5
  const u: Usage = {
    commute: 0,
    commuteKm: clamp(r.logNormal(7, 1.6), 2, 30),
    leave: r.between(6.8, 8.8),
    back: r.between(16.5, 18.8),
    errandWeekday: r.between(0.04, 0.12) * less,
    errandWeekend: r.between(0.08, 0.25) * less,
    leisureWeekday: r.between(0.01, 0.05) * less,
    leisureWeekend: r.between(0.08, 0.3) * less,
    leisureKm: category === 'mountain' ? r.logNormal(24, 1.4) : category === 'trekking' ? r.logNormal(32, 1.4) : r.logNormal(16, 1.5),
    speed: model.spec.speed + r.normal(0, 1.2) + (m.gender === '0' ? 0.5 : m.gender === '1' ? -0.5 : 0),
    cadence: r.chance(model.spec.cadence),
    riderKg: m.weight ?? (m.gender === '1' ? 66 : m.gender === '0' ? 82 : 74),
  }
  if (kind === 'commute') u.commute = r.between(0.45, 0.9) * less
  if (kind === 'school') {
    // The school run: out at eight, back for the pick-up at three, a few kilometres each way.
    u.commute = r.between(0.5, 0.9) * less
    u.commuteKm = clamp(r.logNormal(3, 1.5), 1, 8)
    u.leave = r.between(7.7, 8.2)
    u.back = r.between(14.8, 15.4)
  }
  if (kind === 'errand') {
    u.errandWeekday = r.between(0.3, 0.7) * less
    u.errandWeekend = r.between(0.2, 0.5) * less
  }
  if (kind === 'leisure') {
    u.leisureWeekday = r.between(0.05, 0.15) * less
    u.leisureWeekend = r.between(0.35, 0.8) * less
  }
  return u
}
