import { describe, expect, it } from 'vitest'
import { applyUpdate, countByStatus, filtersFromUrl, filtersToQuery, listed, type MapDevices, toFeatureCollection } from './mapData'

const STATES = ['inactive', 'online', 'offline', 'activated', 'activatedOffline']
const fleet = (): MapDevices => ({ ids: [1, 2, 3], sns: ['VL1', 'VL2', 'VL3'], lat: [52.1, 52.2, 52.3], lng: [4.1, 4.2, 4.3], status: [0, 1, 2], unlocated: 2 })

describe('the filters in the URL', () => {
  it("reads the IoT list's names and drops what they cannot hold", () => {
    const f = filtersFromUrl(new URLSearchParams('modelId=3&countryId=x&state=online,flying,offline&firmwareVersion=%201.2.0%20'), STATES)
    expect(f).toEqual({ modelId: 3, countryId: undefined, state: ['online', 'offline'], firmwareVersion: '1.2.0' })
    expect(filtersToQuery(f)).toEqual({ modelId: '3', state: 'online,offline', firmwareVersion: '1.2.0' })
    expect(filtersToQuery(filtersFromUrl(new URLSearchParams(''), STATES))).toEqual({})
  })
})

describe('live updates', () => {
  it('moves and recolours a device in place, adds one that had no position, drops those gone', () => {
    const moved = applyUpdate(fleet(), { ids: [2, 9], sns: ['VL2', 'VL9'], lat: [48.8, 50], lng: [2.3, 5], status: [2, 1], unlocated: 0 })
    expect(moved.ids).toEqual([1, 2, 3, 9])
    expect(moved.lat).toEqual([52.1, 48.8, 52.3, 50])
    expect(moved.status).toEqual([0, 2, 2, 1])
    expect(moved.unlocated).toBe(1)
    const gone = applyUpdate(moved, null, [1, 3])
    expect(gone.ids).toEqual([2, 9])
    expect(gone.sns).toEqual(['VL2', 'VL9'])
    expect(countByStatus(gone)).toEqual({ total: 2, offline: 0, online: 1, alarm: 1, stolen: 0 })
  })
})

describe('what the map and the list get', () => {
  it('points as GeoJSON with the status code, and a list with warnings first', () => {
    const points = toFeatureCollection(fleet())
    expect(points.features[0]).toEqual({ type: 'Feature', id: 1, geometry: { type: 'Point', coordinates: [4.1, 52.1] }, properties: { id: 1, s: 0 } })
    expect(listed(fleet(), '', 10).map((r) => r.status)).toEqual(['alarm', 'online', 'offline'])
    expect(listed(fleet(), 'vl2', 10).map((r) => r.sn)).toEqual(['VL2'])
    expect(listed(fleet(), '', 1)).toHaveLength(1)
  })

  it('a stolen device (status 3) is counted apart and listed before the warnings', () => {
    const withStolen: MapDevices = { ...fleet(), ids: [1, 2, 3, 4], sns: ['VL1', 'VL2', 'VL3', 'VL4'], lat: [1, 2, 3, 4], lng: [1, 2, 3, 4], status: [0, 1, 2, 3] }
    expect(listed(withStolen, '', 10).map((r) => [r.sn, r.status])).toEqual([['VL4', 'stolen'], ['VL3', 'alarm'], ['VL2', 'online'], ['VL1', 'offline']])
    expect(countByStatus(withStolen)).toEqual({ total: 4, offline: 1, online: 1, alarm: 1, stolen: 1 })
  })
})
