import { withLuhnDigit } from '@velo/shared'
import type { DeviceBehaviour } from './device'

/** A number in [0, 1) from a string and a salt: the same SN always gets the same bike. */
export function hashUnit(text: string, salt = 0): number {
  // FNV-1a over salt and text, then murmur3's finaliser, so neighbouring SNs land far apart.
  let h = 0x811c9dc5
  const input = `${salt}:${text}`
  for (let i = 0; i < input.length; i++) h = Math.imul(h ^ input.charCodeAt(i), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 4294967296
}

const CITIES: readonly [lat: number, lng: number][] = [
  [52.3702, 4.8952], // Amsterdam
  [51.9244, 4.4777], // Rotterdam
  [52.52, 13.405], // Berlin
  [48.1351, 11.582], // Munich
  [48.8566, 2.3522], // Paris
  [31.2304, 121.4737], // Shanghai
  [22.5431, 114.0579], // Shenzhen
  [51.5072, -0.1276], // London
  [55.6761, 12.5683], // Copenhagen
]
const FIRMWARE = ['1.0.0', '1.1.0', '1.2.0', '1.2.0', '1.2.0']

/**
 * A plausible, stable bike for one SN: where it stands, its battery, firmware, SIM card and how much
 * of its data package it has used (about one in ten close to the limit, to show flow warnings), and
 * whether its owner activated it (a share `activated` of the fleet).
 */
export function demoBehaviour(sn: string, o: { activated: number }): Partial<DeviceBehaviour> {
  const u = (salt: number) => hashUnit(sn, salt)
  const [lat, lng] = CITIES[Math.floor(u(1) * CITIES.length)]!
  const limit = u(2) < 0.5 ? 1024 : 2048
  const nearLimit = u(3) < 0.1
  const digits = sn.replace(/\D/g, '').slice(-12).padStart(12, '0')
  return {
    activated: u(4) < o.activated,
    lat: round(lat + (u(5) - 0.5) * 0.08, 6),
    lng: round(lng + (u(6) - 0.5) * 0.12, 6),
    battery: Math.round(15 + u(7) * 85),
    firmwareVersion: FIRMWARE[Math.floor(u(8) * FIRMWARE.length)]!,
    // 19 digits: 89 (telecom) 31 (country) 07 (issuer), the SN's number, and the Luhn check digit.
    iccid: withLuhnDigit(`893107${digits}`),
    simLimitMb: limit,
    simUsedMb: round(nearLimit ? limit * (0.91 + u(9) * 0.09) : limit * u(9) * 0.8, 1),
  }
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits
