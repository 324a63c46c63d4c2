import { heartbeatPayload, PROTOCOL_VERSION, telemetryPayload } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { checkedByHand } from '../src/gateway/fast-payloads'

// The gateway checks telemetry and heartbeats by hand before zod (issue 45: the ingest's CPU per
// report). The hand check may only say yes where zod says yes with an equal answer; where it says
// no, zod decides. Both are held to that here over many payloads, valid and not.

/** Each key's candidates: valid values, edge values and wrong ones; `undefined` leaves the key out. */
const CANDIDATES: Record<string, unknown[]> = {
  v: [PROTOCOL_VERSION, PROTOCOL_VERSION, 2, 0, '1', null, undefined],
  ts: [undefined, Date.now(), 1, 0, -5, 1.5, Number.MAX_SAFE_INTEGER, 2 ** 60, '1700000000000', null],
  battery: [undefined, 80, 0, 100, 100.5, -0.1, 55.5, '80', null, true],
  signal: [undefined, -70, 0, -140, -141, 1, -70.4, null],
  odometer: [undefined, 1234.5, 0, -1, 1e308, null, '5'],
  locked: [undefined, true, false, 0, 1, 'true', null],
  tilt: [undefined, 0, 45, 180, 180.1, -1],
  vibration: [undefined, 0, 5, 2.5, 6, -0.5],
  extra: [undefined, undefined, undefined, undefined, 1, 'x', {}],
}
const GPS: Record<string, unknown[]> = {
  lat: [52.37, -90, 90, 90.5, '52', null, undefined],
  lng: [4.89, -180, 180, 181, undefined],
  speed: [undefined, 0, 12.5, 500, 501, -1],
  satellites: [undefined, 0, 9, 64, 65, 9.5, -1],
  extra: [undefined, undefined, undefined, 'x'],
}

/** A deterministic generator (mulberry32): the same payloads on every run. */
function random(seed: number) {
  return () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function pick(next: () => number, candidates: Record<string, unknown[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, values] of Object.entries(candidates)) {
    const value = values[Math.floor(next() * values.length)]
    if (value !== undefined) out[key] = value
  }
  return out
}

/** As the gateway sees a payload: parsed from its JSON text. */
const asSent = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe('telemetry and heartbeats checked by hand', () => {
  it('says yes only where the schema says yes, with the same data', () => {
    const next = random(45)
    let taken = 0
    for (let i = 0; i < 20_000; i++) {
      const payload = pick(next, CANDIDATES)
      const r = next()
      if (r < 0.6) payload.gps = pick(next, GPS)
      else if (r < 0.65) payload.gps = [52, 4]
      else if (r < 0.7) payload.gps = null
      for (const [kind, schema] of [
        ['telemetry', telemetryPayload],
        ['heartbeat', heartbeatPayload],
      ] as const) {
        const value = asSent(kind === 'heartbeat' && r < 0.5 ? { v: payload.v, ts: payload.ts } : payload)
        const checked = checkedByHand(kind, value)
        const zod = schema.safeParse(value)
        if (checked) {
          taken++
          expect(zod.success, JSON.stringify(value)).toBe(true)
          expect(checked).toEqual(zod.data)
        }
      }
    }
    // The usual reports do take the short way.
    expect(taken).toBeGreaterThan(500)
  })

  it('takes the reports devices send', () => {
    const report = { v: PROTOCOL_VERSION, ts: Date.now(), battery: 80, signal: -70, gps: { lat: 52.37, lng: 4.89, speed: 12, satellites: 9 }, odometer: 12.5, locked: false, tilt: 3, vibration: 0 }
    expect(checkedByHand('telemetry', asSent(report))).toEqual(report)
    expect(checkedByHand('telemetry', { v: PROTOCOL_VERSION })).toEqual({ v: PROTOCOL_VERSION })
    expect(checkedByHand('heartbeat', { v: PROTOCOL_VERSION, ts: 1 })).toEqual({ v: PROTOCOL_VERSION, ts: 1 })
  })

  it('leaves the rest to the schema', () => {
    // A key zod would strip, a value it refuses, a missing version, another kind, not an object.
    expect(checkedByHand('telemetry', { v: PROTOCOL_VERSION, note: 'x' })).toBeUndefined()
    expect(checkedByHand('telemetry', JSON.parse(`{"v":${PROTOCOL_VERSION},"__proto__":{"battery":5}}`))).toBeUndefined()
    expect(checkedByHand('telemetry', { v: PROTOCOL_VERSION, battery: Infinity })).toBeUndefined()
    expect(checkedByHand('telemetry', { v: PROTOCOL_VERSION, gps: { lat: 1 } })).toBeUndefined()
    expect(checkedByHand('telemetry', { battery: 80 })).toBeUndefined()
    expect(checkedByHand('status', { v: PROTOCOL_VERSION })).toBeUndefined()
    expect(checkedByHand('telemetry', [PROTOCOL_VERSION])).toBeUndefined()
    expect(checkedByHand('telemetry', null)).toBeUndefined()
  })
})
