import { describe, expect, it } from 'vitest'
import { parseGeometry } from '@velo/shared'
import { circleRing, drawnCircle, drawnPolygon, ringOf } from './geometryShapes'

// A geometry field's value on the drawing map and back (the map itself needs WebGL: e2e/iot-geofence.spec.ts).

describe('geometry shapes', () => {
  it('draws a circle as a closed ring at its radius', () => {
    const ring = circleRing([4.9, 52.37], 1000, 32)
    expect(ring).toHaveLength(33)
    expect(ring[0]).toEqual(ring[32])
    // North of the centre by 1 km: 1000 / 111,195 degrees of latitude.
    expect(ring[0]![1] - 52.37).toBeCloseTo(1000 / 111_195, 6)
  })

  it('a drawn circle becomes a centre and a radius in metres the field takes', () => {
    const g = drawnCircle(circleRing([4.9, 52.37], 750), 0.75)
    expect(g).toEqual({ type: 'Point', coordinates: [4.9, 52.37], radius: 750 })
    expect(parseGeometry(JSON.stringify(g)).ok).toBe(true)
    expect(ringOf(g)).toHaveLength(65)
  })

  it('a drawn circle wider than the limit is held to it', () => {
    expect(drawnCircle(circleRing([4.9, 52.37], 80_000), 80)).toMatchObject({ radius: 50_000 })
  })

  it('a drawn polygon keeps its ring, rounded', () => {
    const g = drawnPolygon([[4.123456789, 52.1], [4.2, 52.1], [4.2, 52.2], [4.123456789, 52.1]])
    expect(g).toEqual({ type: 'Polygon', coordinates: [[[4.123457, 52.1], [4.2, 52.1], [4.2, 52.2], [4.123457, 52.1]]] })
    expect(parseGeometry(JSON.stringify(g)).ok).toBe(true)
  })
})
