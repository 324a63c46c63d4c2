import type { DashboardAnswer } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { bikeFleetFixtures } from './bike-fleet-fixtures'
import { deptId, limitedUser, useTestApp } from './harness'

// Dashboards › Registered bikes (modules/dashboard/bike-stats.ts): the bikes' pass groups bound bikes
// by model and country, and the months come apart from the bikes bound in the range; the bound share
// counts a frame as bound only through a bike bound now. What those passes must keep: an unbound bike
// that was bound once (its bound time kept) is in no figure, a scoped caller's months and models are
// their countries' only, and a member missing from mem_member puts their bike under Other.
const t = useTestApp()
const db = () => t.app.services.db
const RANGE = 'from=2026-03-01&to=2026-05-31'
const NOW = '2026-06-01T00:00:00.000Z'
const { code, insert, country, member, model, order } = bikeFleetFixtures(db, NOW)

async function bike(modelId: number, bindStatus: 'bound' | 'unbound', memberId: number | null, boundTime: string | null): Promise<number> {
  return insert(
    'bikeBike',
    { frameNumber: code('VL'), category: 'city', modelId, colourId: 1, sizeId: 1, bindStatus, memberId, boundTime, iotDeviceId: null, createBy: 'test', createTime: NOW },
    'bikeId',
  )
}

const get = (query: string, token = t.admin) => t.call<DashboardAnswer>({ url: `/api/analytics/bikeStats?${query}`, token })
const figure = (res: { data: { figures: { key: string; rows: unknown[][] }[] } }, key: string) => res.data.figures.find((f) => f.key === key)?.rows

let fr = 0
let city = 0
let scoped = ''
beforeAll(async () => {
  const [nl, frId] = [await country('NL'), await country('FR')]
  fr = frId
  city = await model('City')
  const road = await model('Road')
  const [nl1, fr1, fr2] = [await member(nl), await member(fr), await member(fr)]
  const b1 = await bike(city, 'bound', nl1, '2026-03-10T08:00:00.000Z')
  const b2 = await bike(road, 'bound', fr1, '2026-04-02T08:00:00.000Z')
  const b3 = await bike(city, 'bound', fr2, '2026-05-31T23:59:59.000Z')
  // Before the range.
  const b4 = await bike(city, 'bound', fr1, '2026-02-28T23:59:59.000Z')
  // Unbound since: the bound time is kept, yet it is in no figure, and its frame is sold but not bound.
  const b5 = await bike(road, 'unbound', null, '2026-04-20T08:00:00.000Z')
  // Bound to a member who is no longer there: no country.
  const b6 = await bike(road, 'bound', 9_999_999, '2026-03-15T08:00:00.000Z')
  await order(city, [['bound', b1], ['bound', b3], ['bound', b4], ['voided', b1]])
  await order(road, [['bound', b2], ['bound', b5], ['bound', b6], ['printed', null]])

  const hq = await deptId(t, 'Velo HQ')
  const dept = await t.call<{ deptId: number }>({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { parentId: hq, deptName: 'Bikes FR passes', orderNum: 9, countryIds: [fr] } })
  expect(dept.status, dept.msg).toBe(200)
  scoped = (await limitedUser(t, { userName: 'bikespasses', dataScope: '2', deptIds: [dept.data.deptId], perms: ['dashboard:bikeStats:list'] })).token
})

describe('registered bikes: the bikes’ and the frames’ passes', () => {
  it('counts bound bikes only, the months from those bound in the range, a missing member under Other', async () => {
    const res = await get(RANGE)
    expect(res.status, res.msg).toBe(200)
    // 5 bound, 4 of them in the range; 7 frames sold (one voided), 5 on a bike bound now; no devices.
    expect(figure(res, 'summary')).toEqual([[5, 4, 71.4, 0, null]])
    expect(figure(res, 'byMonth')).toEqual([
      ['2026-03', 2],
      ['2026-04', 1],
      ['2026-05', 1],
    ])
    expect(figure(res, 'byModel')).toEqual([
      ['City', 3],
      ['Road', 2],
    ])
    expect(figure(res, 'byCountry')).toEqual([
      ['France', 3],
      ['Netherlands', 1],
      ['Other', 1],
    ])
  })

  it('gives a scoped caller, and the country and model filters, their bikes only in every figure', async () => {
    const mine = await get(RANGE, scoped)
    expect(mine.status, mine.msg).toBe(200)
    expect(figure(mine, 'summary')).toEqual([[3, 2, null, 0, null]])
    expect(figure(mine, 'byMonth')).toEqual([
      ['2026-03', 0],
      ['2026-04', 1],
      ['2026-05', 1],
    ])
    expect(figure(mine, 'byModel')).toEqual([
      ['City', 2],
      ['Road', 1],
    ])
    expect(figure(mine, 'byCountry')).toEqual([['France', 3]])

    const cityInFrance = await get(`${RANGE}&countryId=${fr}&modelId=${city}`)
    expect(figure(cityInFrance, 'summary')).toEqual([[2, 1, null, 0, null]])
    expect(figure(cityInFrance, 'byMonth')).toEqual([
      ['2026-03', 0],
      ['2026-04', 0],
      ['2026-05', 1],
    ])
    expect(figure(cityInFrance, 'byModel')).toEqual([['City', 2]])

    // The model filter alone keeps the bound share: City's frames are 3 sold, 3 on a bike bound now.
    expect(figure(await get(`${RANGE}&modelId=${city}`), 'summary')).toEqual([[3, 2, 100, 0, null]])
  })
})
