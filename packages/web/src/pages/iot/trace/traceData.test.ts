import { describe, expect, it } from 'vitest'
import { bounds, formatSeconds, lineSegments, presetRange, reachesPastRetention, reportPoints, timeShare } from './traceData'

const trace = { times: [0, 1000, 4000], lat: [52.37, 52.38, 52.4], lng: [4.9, 4.91, 4.95], speed: [12, null, 20] }

describe('the trace data', () => {
  it('gives the presets as ranges ending now', () => {
    const now = Date.parse('2026-06-01T15:30:00Z')
    expect(presetRange('hour', now)).toEqual({ from: '2026-06-01T14:30:00.000Z', to: '2026-06-01T15:30:00.000Z' })
    expect(presetRange('day', now).from).toBe('2026-05-31T15:30:00.000Z')
    expect(presetRange('week', now).from).toBe('2026-05-25T15:30:00.000Z')
    const today = new Date(presetRange('today', now).from)
    expect([today.getHours(), today.getMinutes(), today.getSeconds()]).toEqual([0, 0, 0])
    expect(today.getTime()).toBeLessThanOrEqual(now)
  })

  it('colours by the share of time, not of points', () => {
    expect([0, 1, 2].map((i) => timeShare(trace.times, i))).toEqual([0, 0.25, 1])
    expect(timeShare([5], 0)).toBe(0)
    const line = lineSegments(trace)
    expect(line.features).toHaveLength(2)
    expect(line.features[1]).toEqual({ type: 'Feature', geometry: { type: 'LineString', coordinates: [[4.91, 52.38], [4.95, 52.4]] }, properties: { t: 0.25 } })
    expect(reportPoints(trace).features[1]!.properties).toEqual({ i: 1, t: 0.25, speed: null })
    expect(bounds(trace)).toEqual([4.9, 52.37, 4.95, 52.4])
    expect(bounds({ lat: [], lng: [] })).toBeNull()
  })

  it('reads durations as people do, and knows when a range reaches past retention', () => {
    expect(formatSeconds(45)).toBe('45 s')
    expect(formatSeconds(210)).toBe('4 min')
    expect(formatSeconds(3900)).toBe('1 h 05 min')
    expect(reachesPastRetention({ from: '2026-01-01T00:00:00Z', retainedFrom: '2026-02-01T00:00:00Z' })).toBe(true)
    expect(reachesPastRetention({ from: '2026-03-01T00:00:00Z', retainedFrom: '2026-02-01T00:00:00Z' })).toBe(false)
  })
})
