import { PROTOCOL_VERSION } from '@velo/shared'

/*
 * The two payloads devices send thousands of times a second, telemetry and heartbeats, checked by
 * hand against their zod schemas (@velo/shared, iot/protocol-payloads.ts): at a fleet's rate zod's
 * walk and the copy it answers were a measurable share of the ingest's CPU and garbage. It only ever
 * says yes for what the schema takes unchanged; anything else (a key the schema does not know and
 * would strip, a value out of bounds, a type it would refuse) is left to the schema, whose answer
 * and messages stay the ones that count. test/iot-ingest-payloads.test.ts holds both to the same answers.
 */

type Plain = Record<string, unknown>

const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v)
/** z.number() with min and max: finite, within both. */
const within = (v: unknown, min: number, max: number) => typeof v === 'number' && v >= min && v <= max
/** z.number().int() with min and max (zod's int is a safe integer). */
const intWithin = (v: unknown, min: number, max: number) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max

/** The envelope's keys (v, ts); false for any other key. */
function envelopeKey(key: string, value: unknown): boolean {
  if (key === 'v') return value === PROTOCOL_VERSION
  if (key === 'ts') return Number.isSafeInteger(value) && (value as number) > 0
  return false
}

function gpsValid(gps: unknown): boolean {
  if (!isPlain(gps)) return false
  let lat = false
  let lng = false
  for (const key in gps) {
    const value = gps[key]
    switch (key) {
      case 'lat':
        if (!within(value, -90, 90)) return false
        lat = true
        break
      case 'lng':
        if (!within(value, -180, 180)) return false
        lng = true
        break
      case 'speed':
        if (!within(value, 0, 500)) return false
        break
      case 'satellites':
        if (!intWithin(value, 0, 64)) return false
        break
      default:
        return false
    }
  }
  return lat && lng
}

function telemetryValid(p: Plain): boolean {
  let v = false
  for (const key in p) {
    const value = p[key]
    switch (key) {
      case 'battery':
        if (!within(value, 0, 100)) return false
        break
      case 'signal':
        if (!within(value, -140, 0)) return false
        break
      case 'gps':
        if (!gpsValid(value)) return false
        break
      case 'odometer':
        if (!within(value, 0, Number.MAX_VALUE)) return false
        break
      case 'locked':
        if (typeof value !== 'boolean') return false
        break
      case 'tilt':
        if (!within(value, 0, 180)) return false
        break
      case 'vibration':
        if (!within(value, 0, 5)) return false
        break
      default:
        if (!envelopeKey(key, value)) return false
        if (key === 'v') v = true
    }
  }
  return v
}

function heartbeatValid(p: Plain): boolean {
  let v = false
  for (const key in p) {
    if (!envelopeKey(key, p[key])) return false
    if (key === 'v') v = true
  }
  return v
}

/**
 * The payload itself when it is a telemetry report or heartbeat its schema takes as it is (the
 * schema's answer would be an equal copy); undefined when the schema has to decide.
 */
export function checkedByHand(kind: string, value: unknown): Plain | undefined {
  if (!isPlain(value)) return undefined
  if (kind === 'telemetry') return telemetryValid(value) ? value : undefined
  if (kind === 'heartbeat') return heartbeatValid(value) ? value : undefined
  return undefined
}
