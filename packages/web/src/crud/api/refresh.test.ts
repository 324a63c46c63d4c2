import { QueryClient } from '@tanstack/react-query'
import { orderEntities, serviceEntities, systemEntities } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { crudKeys } from './crudApi'
import { entitiesChangedWith, refreshAfterChange } from './refresh'

const { deviceOrder, frameNumber } = orderEntities
const { repairOrder } = serviceEntities
const { country } = systemEntities

const keysOf = (e: Parameters<typeof entitiesChangedWith>[0]) => entitiesChangedWith(e).map((x) => x.key)

describe('what a change to rows leaves stale', () => {
  it("reaches the row its rows belong to and the rows it names: a number's order (its counts) and bike (its number)", () => {
    const keys = keysOf(frameNumber)
    expect(keys[0]).toBe('frameNumber')
    expect(keys).toEqual(expect.arrayContaining(['deviceOrder', 'bike']))
  })

  it('reaches the rows its details list: an order generates its numbers', () => {
    expect(keysOf(deviceOrder)).toEqual(expect.arrayContaining(['deviceOrder', 'frameNumber', 'bikeModel']))
  })

  it('leaves alone the rows that name it: a country changed does not reload every service order', () => {
    expect(keysOf(country)).not.toContain('repairOrder')
    expect(new Set(keysOf(repairOrder)).size).toBe(keysOf(repairOrder).length)
  })

  it("refreshes an open order's details and its list after an action on one of its numbers, and nothing unrelated", async () => {
    const client = new QueryClient()
    client.setQueryData(crudKeys.row(deviceOrder, 7), { orderId: 7, countVoided: 1 })
    client.setQueryData(crudKeys.list(deviceOrder, { pageNum: 1 }), { rows: [], total: 0 })
    client.setQueryData(crudKeys.list(frameNumber, { orderId: 7 }), { rows: [], total: 0 })
    client.setQueryData(crudKeys.row(repairOrder, 3), { repairOrderId: 3 })
    await refreshAfterChange(client, frameNumber)
    const stale = (key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated
    expect(stale(crudKeys.row(deviceOrder, 7))).toBe(true)
    expect(stale(crudKeys.list(deviceOrder, { pageNum: 1 }))).toBe(true)
    expect(stale(crudKeys.list(frameNumber, { orderId: 7 }))).toBe(true)
    expect(stale(crudKeys.row(repairOrder, 3))).toBe(false)
  })
})
