/** Deterministic, realistic rows for the benchmark: the same seed gives the same table on every run. */

// mulberry32, the demo generator's: the same seed gives the same draws.
import { random, weighted } from '../src/demo/random'

export { random }

const COUNTRIES: readonly [string, readonly string[], number][] = [
  // name, cities, weight (where the riders and staff are)
  ['Netherlands', ['Amsterdam', 'Rotterdam', 'Utrecht', 'Eindhoven'], 14],
  ['Germany', ['Berlin', 'Munich', 'Hamburg', 'Cologne', 'Frankfurt'], 14],
  ['China', ['Shanghai', 'Beijing', 'Shenzhen', 'Hangzhou', 'Chengdu'], 16],
  ['France', ['Paris', 'Lyon', 'Marseille', 'Toulouse'], 8],
  ['Belgium', ['Brussels', 'Antwerp', 'Ghent'], 5],
  ['United Kingdom', ['London', 'Manchester', 'Bristol', 'Edinburgh'], 7],
  ['Denmark', ['Copenhagen', 'Aarhus'], 3],
  ['Sweden', ['Stockholm', 'Gothenburg', 'Malmo'], 3],
  ['Norway', ['Oslo', 'Bergen'], 2],
  ['Switzerland', ['Zurich', 'Geneva', 'Basel'], 3],
  ['Austria', ['Vienna', 'Graz'], 2],
  ['Italy', ['Milan', 'Rome', 'Turin', 'Bologna'], 5],
  ['Spain', ['Madrid', 'Barcelona', 'Valencia'], 4],
  ['Poland', ['Warsaw', 'Krakow'], 2],
  ['United States', ['New York', 'San Francisco', 'Seattle', 'Austin', 'Boston'], 6],
  ['Canada', ['Toronto', 'Vancouver', 'Montreal'], 2],
  ['Japan', ['Tokyo', 'Osaka'], 2],
  ['Taiwan', ['Taipei', 'Taichung'], 2],
]

const FIRST = ['anna', 'bram', 'chen', 'daan', 'emma', 'femke', 'jan', 'julia', 'lars', 'li', 'lucas', 'marie', 'max', 'mei', 'noah', 'pieter', 'sofia', 'tom', 'wei', 'yan', 'zoe', 'hugo', 'ines', 'liam']
const LAST = ['bakker', 'chen', 'dejong', 'fischer', 'huang', 'jansen', 'klein', 'li', 'martin', 'muller', 'peeters', 'schmidt', 'smit', 'visser', 'wang', 'weber', 'wu', 'zhang', 'zhou', 'dubois']

const BROWSERS = [
  ['Chrome 131', 40],
  ['Chrome 130', 12],
  ['Safari 18', 14],
  ['Mobile Safari 18', 8],
  ['Edge 131', 10],
  ['Firefox 133', 8],
  ['WeChat 8', 4],
  ['Samsung Browser 27', 4],
] as const
const SYSTEMS = [
  ['Windows 10', 34],
  ['Windows 11', 16],
  ['Mac OS 15.1', 18],
  ['iOS 18.1', 10],
  ['Android 14', 10],
  ['Linux', 6],
  ['Chrome OS', 6],
] as const
const FAILURES = [
  'Wrong user name or password',
  'Wrong user name or password',
  'Wrong user name or password',
  'The captcha is wrong',
  'The captcha has expired',
  'Too many failed sign-ins: the account is locked for 10 minutes',
  'The account is disabled',
]

export interface LoginLogRow {
  userName: string
  ipaddr: string
  loginLocation: string
  browser: string
  os: string
  status: string
  msg: string
  loginTime: string
}

/**
 * `total` sign-ins (and sign-outs) over the year before `end`, in time order as a log is written:
 * 3,000 staff and dealer accounts across 18 countries, a few heavy users, 10% from the office
 * network, about 5% failures.
 */
export function* loginLogRows(total: number, end: Date, batch: number): Generator<LoginLogRow[]> {
  const r = random(20261121)
  const users = Array.from({ length: 3000 }, (_, i) => {
    const name = `${FIRST[i % FIRST.length]}.${LAST[Math.floor(i / FIRST.length) % LAST.length]}${i >= FIRST.length * LAST.length ? i : ''}`
    const [country, cities] = weighted(COUNTRIES.map(([c, cities, w]) => [[c, cities] as const, w] as const))(r.next())
    return { name, country, city: r.pick(cities), browser: weighted(BROWSERS)(r.next()), os: weighted(SYSTEMS)(r.next()), ip: publicIp(r) }
  })
  const span = 365 * 24 * 3600_000
  const start = end.getTime() - span
  let rows: LoginLogRow[] = []
  for (let i = 0; i < total; i++) {
    // A skewed pick: a few accounts sign in far more often than most.
    const user = users[Math.floor(users.length * r.next() ** 2.5)]!
    const office = r.next() < 0.1
    const failed = r.next() < 0.05
    const t = start + ((i + r.next()) * span) / total
    rows.push({
      userName: failed && r.next() < 0.2 ? `${user.name.slice(0, -1)}` : user.name,
      ipaddr: office ? `10.${r.int(4)}.${r.int(256)}.${1 + r.int(254)}` : r.next() < 0.8 ? user.ip : publicIp(r),
      loginLocation: office ? 'Intranet' : `${user.country} ${user.city}`,
      browser: r.next() < 0.9 ? user.browser : weighted(BROWSERS)(r.next()),
      os: user.os,
      status: failed ? '1' : '0',
      msg: failed ? r.pick(FAILURES) : r.next() < 0.7 ? 'Signed in' : 'Signed out',
      loginTime: new Date(t).toISOString(),
    })
    if (rows.length === batch) {
      yield rows
      rows = []
    }
  }
  if (rows.length) yield rows
}

function publicIp(r: ReturnType<typeof random>) {
  const first = [31, 37, 46, 62, 77, 80, 81, 82, 84, 85, 86, 87, 88, 89, 91, 92, 94, 95, 101, 112, 113, 114, 116, 117, 119, 120, 121, 123, 125, 145, 176, 178, 185, 188, 193, 194, 195, 203, 212, 213, 217]
  return `${r.pick(first)}.${r.int(256)}.${r.int(256)}.${1 + r.int(254)}`
}

/** A plausible value for one import column, by field kind; `i` keeps unique columns unique. */
export function importValue(
  field: { name: string; kind: string; max?: number; unique?: boolean; dictLabels?: string[]; options?: readonly { label: { en_US: string } }[] },
  i: number,
  r: ReturnType<typeof random>,
): string | number | null {
  const words = ['order', 'bike', 'frame', 'battery', 'firmware', 'member', 'device', 'upgrade', 'status', 'dealer', 'service', 'content']
  const texts = ['Saved', 'Delete this row?', 'The battery is low', 'Firmware upgrade started', 'Frame number', 'Dealer stock', 'Service appointment']
  const cut = (s: string) => (field.max ? s.slice(0, field.max) : s)
  switch (field.kind) {
    case 'dict':
      return field.dictLabels?.length ? r.pick(field.dictLabels) : null
    case 'enum':
      return field.options?.length ? r.pick(field.options).label.en_US : null
    case 'number':
    case 'money':
      return r.int(1000)
    case 'boolean':
      return r.next() < 0.5 ? 'Yes' : 'No'
    case 'email':
      return `bench${i}@example.com`
    case 'phone':
      return `+31 6 ${String(10_000_000 + i).slice(-8)}`
    case 'date':
      return '2026-11-21'
    case 'datetime':
      return new Date(Date.UTC(2026, 10, 21)).toISOString()
    case 'longText':
    case 'richText':
      return cut(`${r.pick(texts)} (${i})`)
    default:
      if (field.unique) return cut(`bench.${r.pick(words)}.${r.pick(words)}.${i}`)
      return cut(`${r.pick(words)} ${r.pick(words)} ${i % 977}`)
  }
}
