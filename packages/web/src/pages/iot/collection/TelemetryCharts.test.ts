import { describe, expect, it } from 'vitest'
import { bucketSlots } from './TelemetryCharts'

describe('bucketSlots', () => {
  it('gives every bucket of the range a slot, with the points where the device reported', () => {
    const point = { count: 2, battery: 80, speed: 10, maxSpeed: 20, positions: 1, signal: -70 }
    const slots = bucketSlots({
      bucketSeconds: 300,
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-01T00:20:00.000Z',
      points: [{ time: '2026-03-01T00:05:00.000Z', ...point }],
    })
    expect(slots.map((s) => s.time)).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-01T00:05:00.000Z', '2026-03-01T00:10:00.000Z', '2026-03-01T00:15:00.000Z'])
    expect(slots.map((s) => s.point?.battery ?? null)).toEqual([null, 80, null, null])
  })
})
