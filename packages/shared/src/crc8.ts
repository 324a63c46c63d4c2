// A table-driven CRC-8 written here rather than taken from npm: the packages there are small,
// unmaintained one-offs (several with one variant hard-wired and no catalogue check), and a CRC-8 is
// twenty lines that the catalogue's check values prove. Every CRC-8 is called "CRC-8" by someone, so
// a value is never stored or shown without its variant's name (DOMAIN.md, CRC-8 variants).

/** The parameters of a CRC-8 as the CRC catalogue (reveng) gives them. */
export interface Crc8Variant {
  name: string
  poly: number
  init: number
  /** Input and output reflected (every CRC-8 of the catalogue reflects both or neither). */
  reflect: boolean
  xorout: number
  /** The CRC of the ASCII bytes "123456789". */
  check: number
}

const variant = (name: string, poly: number, init: number, reflect: boolean, xorout: number, check: number): Crc8Variant => ({ name, poly, init, reflect, xorout, check })

/** The variants DOMAIN.md lists; firmware of the TI battery-monitor chips (BQ769x2) uses SMBUS. */
export const CRC8_VARIANTS = {
  'CRC-8/SMBUS': variant('CRC-8/SMBUS', 0x07, 0x00, false, 0x00, 0xf4),
  'CRC-8/I-432-1': variant('CRC-8/I-432-1', 0x07, 0x00, false, 0x55, 0xa1),
  'CRC-8/MAXIM-DOW': variant('CRC-8/MAXIM-DOW', 0x31, 0x00, true, 0x00, 0xa1),
  'CRC-8/AUTOSAR': variant('CRC-8/AUTOSAR', 0x2f, 0xff, false, 0xff, 0xdf),
  'CRC-8/SAE-J1850': variant('CRC-8/SAE-J1850', 0x1d, 0xff, false, 0xff, 0x4b),
  'CRC-8/ROHC': variant('CRC-8/ROHC', 0x07, 0xff, true, 0x00, 0xd0),
} as const satisfies Record<string, Crc8Variant>

export type Crc8Name = keyof typeof CRC8_VARIANTS

/** The variant uploads are summed with. */
export const FILE_CRC8: Crc8Name = 'CRC-8/SMBUS'

const reflect8 = (v: number) => {
  let r = 0
  for (let i = 0; i < 8; i++) if (v & (1 << i)) r |= 0x80 >> i
  return r
}

/**
 * Four tables per variant: t1[x] is the register after the byte x from a zero register (the classic
 * table), and tk[x] the same followed by k - 1 zero bytes. A CRC is linear over XOR, so four bytes
 * at once are t4[crc ^ b0] ^ t3[b1] ^ t2[b2] ^ t1[b3] ("slicing by 4"): four independent lookups
 * instead of a chain of four, which more than doubles the rate in V8 (a 200 MB upload sums at the
 * speed of MD5 instead of behind it).
 */
type Tables = readonly [t1: Uint8Array, t2: Uint8Array, t3: Uint8Array, t4: Uint8Array]

const tables = new Map<string, Tables>()

function tablesOf(v: Crc8Variant): Tables {
  const known = tables.get(v.name)
  if (known) return known
  const t1 = new Uint8Array(256)
  const poly = v.reflect ? reflect8(v.poly) : v.poly
  for (let n = 0; n < 256; n++) {
    let crc = n
    for (let bit = 0; bit < 8; bit++) {
      if (v.reflect) crc = crc & 1 ? (crc >>> 1) ^ poly : crc >>> 1
      else crc = crc & 0x80 ? ((crc << 1) ^ poly) & 0xff : (crc << 1) & 0xff
    }
    t1[n] = crc
  }
  const next = (t: Uint8Array) => t.map((x) => t1[x]!)
  const t2 = next(t1)
  const t3 = next(t2)
  const made: Tables = [t1, t2, t3, next(t3)]
  tables.set(v.name, made)
  return made
}

/** A running CRC-8, fed chunk by chunk as a file streams. */
export class Crc8 {
  private readonly tables: Tables
  private crc: number
  constructor(readonly variant: Crc8Variant = CRC8_VARIANTS[FILE_CRC8]) {
    this.tables = tablesOf(variant)
    this.crc = variant.reflect ? reflect8(variant.init) : variant.init
  }

  update(bytes: Uint8Array): this {
    // For a CRC of width 8 the register is the table index in both directions, so the reflected
    // variants need no other loop: only their tables and initial value differ.
    const [t1, t2, t3, t4] = this.tables
    let crc = this.crc
    let i = 0
    const whole = bytes.length - (bytes.length % 4)
    for (; i < whole; i += 4) crc = t4[crc ^ bytes[i]!]! ^ t3[bytes[i + 1]!]! ^ t2[bytes[i + 2]!]! ^ t1[bytes[i + 3]!]!
    for (; i < bytes.length; i++) crc = t1[crc ^ bytes[i]!]!
    this.crc = crc
    return this
  }

  /** The CRC as a number 0–255. */
  digest(): number {
    return this.crc ^ this.variant.xorout
  }

  /** The CRC as two upper-case hex digits ('F4'), as datasheets and firmware tools print it. */
  hex(): string {
    return crc8Hex(this.digest())
  }
}

/** A CRC-8 as two upper-case hex digits ('F4'), as datasheets and firmware tools print it. */
export const crc8Hex = (crc: number): string => crc.toString(16).toUpperCase().padStart(2, '0')

/** The CRC-8 of whole bytes in one call. */
export const crc8 = (bytes: Uint8Array, v: Crc8Variant = CRC8_VARIANTS[FILE_CRC8]) => new Crc8(v).update(bytes).digest()
