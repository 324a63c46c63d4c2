import ExcelJS from 'exceljs'
import type { DashboardAnswer } from '@velo/shared'
import { beforeAll, describe, expect, it } from 'vitest'
import { newDeviceRow } from '../src/modules/iot/devices'
import { bikeFleetFixtures } from './bike-fleet-fixtures'
import { deptId, limitedUser, useTestApp } from './harness'

// Dashboards › Registered bikes (modules/dashboard/bike-stats.ts) over a small fleet computed by
// hand: two models, two countries and a member without one, devices of several part versions and
// states, frames sold, bound and voided; the country and model filters and a regional role.
const t = useTestApp()
const db = () => t.app.services.db
const RANGE = 'from=2026-01-01&to=2026-06-30'
const NOW = '2026-07-01T00:00:00.000Z'
const { code, insert, country, member, model, order } = bikeFleetFixtures(db, NOW)

/** A device of the demo IoT model in a state, with the versions its parts report. */
async function device(state: string, versions: { fw: string; display: string | null; bms: string | null; ecu: string | null }): Promise<number> {
  const iotModel = Number((await db().selectFrom('iotModel').select('modelId').where('productId', '=', 'VELO-4G').executeTakeFirstOrThrow()).modelId)
  const deviceId = await insert('iotDevice', newDeviceRow({ sn: code('SN'), modelId: iotModel, secretHash: 'x', createBy: 'test' }), 'deviceId')
  const online = state === 'online' || state === 'activated' ? 1 : 0
  await db()
    .updateTable('iotDevice')
    .set({ state, online, firmwareVersion: versions.fw, displayVersion: versions.display, bmsVersion: versions.bms, ecuVersion: versions.ecu })
    .where('deviceId', '=', deviceId)
    .execute()
  return deviceId
}

async function bike(modelId: number, memberId: number | null, boundTime: string | null, iotDeviceId: number | null): Promise<number> {
  return insert(
    'bikeBike',
    { frameNumber: code('VL'), category: 'city', modelId, colourId: 1, sizeId: 1, bindStatus: memberId ? 'bound' : 'unbound', memberId, boundTime, iotDeviceId, createBy: 'test', createTime: NOW },
    'bikeId',
  )
}

const get = (query: string, token = t.admin, lang?: 'en_US' | 'zh_CN') => t.call<DashboardAnswer>({ url: `/api/analytics/bikeStats?${query}`, token, lang })
const figure = (res: { data: { figures: { key: string; rows: unknown[][] }[] } }, key: string) => res.data.figures.find((f) => f.key === key)?.rows

let nl = 0
let de = 0
let cargo = 0
beforeAll(async () => {
  ;[nl, de] = [await country('NL'), await country('DE')]
  const metro = await model('Metro')
  cargo = await model('Cargo')
  const [nl1, nl2, de1, none] = [await member(nl), await member(nl), await member(de), await member(null)]
  const v = (fw: string, display: string | null, bms: string | null, ecu: string | null) => ({ fw, display, bms, ecu })
  const b1 = await bike(metro, nl1, '2026-02-10T08:00:00.000Z', await device('activated', v('2.1.0', '1.0.0', null, '3.0.0')))
  const b2 = await bike(metro, nl2, '2026-02-20T08:00:00.000Z', await device('offline', v('2.0.0', '1.0.0', '5.1.0', null)))
  const b3 = await bike(cargo, de1, '2026-04-05T08:00:00.000Z', await device('online', v('2.1.0', null, '5.1.0', '3.0.0')))
  // Registered before the range, its device never reported a version.
  const b4 = await bike(cargo, none, '2025-12-15T08:00:00.000Z', await device('activatedOffline', v('', null, null, null)))
  // In stock: no member, so no country.
  const b5 = await bike(metro, null, null, await device('online', v('2.1.0', null, null, null)))
  const b6 = await bike(cargo, null, null, null)
  const b7 = await bike(metro, de1, '2026-06-30T23:00:00.000Z', null)
  await order(metro, [['bound', b1], ['bound', b2], ['bound', b5], ['printed', null], ['voided', null], ['bound', b7]])
  await order(cargo, [['bound', b3], ['bound', b4], ['generated', null], ['bound', b6]])
})

describe('registered bikes dashboard', () => {
  it('counts every bike for a caller who sees all', async () => {
    const res = await get(RANGE)
    expect(res.status, res.msg).toBe(200)
    expect(res.data.figures.map((f: { key: string }) => f.key)).toEqual(['summary', 'byMonth', 'byModel', 'byCountry', 'firmware', 'online'])
    // 5 bound (4 in the range); 9 frames sold (one voided), 5 of them on a registered bike; 3 of 5 devices online.
    expect(figure(res, 'summary')).toEqual([[5, 4, 55.6, 3, 60]])
    expect(figure(res, 'byMonth')).toEqual([
      ['2026-01', 0],
      ['2026-02', 2],
      ['2026-03', 0],
      ['2026-04', 1],
      ['2026-05', 0],
      ['2026-06', 1],
    ])
    expect(figure(res, 'byModel')).toEqual([
      ['Metro', 3],
      ['Cargo', 2],
    ])
    // The member without a country is counted under Other.
    expect(figure(res, 'byCountry')).toEqual([
      ['Germany', 2],
      ['Netherlands', 2],
      ['Other', 1],
    ])
    expect(figure(res, 'firmware')).toEqual([
      ['IoT module', '2.1.0', 3],
      ['IoT module', '2.0.0', 1],
      ['IoT module', 'Unknown', 1],
      ['Display', '1.0.0', 2],
      ['Display', 'Unknown', 3],
      ['Battery (BMS)', '5.1.0', 2],
      ['Battery (BMS)', 'Unknown', 3],
      ['Controller (ECU)', '3.0.0', 2],
      ['Controller (ECU)', 'Unknown', 3],
    ])
    expect(figure(res, 'online')).toEqual([
      ['Metro', 3, 2, 66.7],
      ['Cargo', 2, 1, 50],
    ])
  })

  it('names countries and parts in the caller’s language', async () => {
    const res = await get(RANGE, t.admin, 'zh_CN')
    expect(new Set(figure(res, 'byCountry'))).toEqual(
      new Set([
        ['德国', 2],
        ['荷兰', 2],
        ['其他', 1],
      ]),
    )
    expect(figure(res, 'byCountry')!.at(-1)).toEqual(['其他', 1])
    expect(figure(res, 'firmware')!.slice(0, 3)).toEqual([
      ['物联网模块', '2.1.0', 3],
      ['物联网模块', '2.0.0', 1],
      ['物联网模块', '未知', 1],
    ])
  })

  it('applies the model and country filters; frames have no country, so the bound share is not given with one', async () => {
    const byModel = await get(`${RANGE}&modelId=${cargo}`)
    // Cargo: 2 registered (1 in the range), 4 frames sold of which 2 registered, 1 of 2 devices online.
    expect(figure(byModel, 'summary')).toEqual([[2, 1, 50, 1, 50]])
    expect(figure(byModel, 'byModel')).toEqual([['Cargo', 2]])

    const byCountry = await get(`${RANGE}&countryId=${nl}`)
    expect(figure(byCountry, 'summary')).toEqual([[2, 2, null, 1, 50]])
    expect(figure(byCountry, 'byCountry')).toEqual([['Netherlands', 2]])
    expect(figure(byCountry, 'online')).toEqual([['Metro', 2, 1, 50]])
  })

  it('shows a regional role its countries only, and refuses a caller without the right (403)', async () => {
    const hq = await deptId(t, 'Velo HQ')
    const dept = await t.call<{ deptId: number }>({ method: 'POST', url: '/api/system/dept', token: t.admin, body: { parentId: hq, deptName: 'Bikes DE test', orderNum: 9, countryIds: [de] } })
    expect(dept.status, dept.msg).toBe(200)
    const limited = await limitedUser(t, { userName: 'bikesde', dataScope: '2', deptIds: [dept.data.deptId], perms: ['dashboard:bikeStats:list', 'dashboard:bikeStats:export'] })
    const res = await get(RANGE, limited.token)
    expect(res.status, res.msg).toBe(200)
    // DE: b3 (Cargo, online) and b7 (Metro, no device); unbound bikes and the bike without a country are not theirs.
    expect(figure(res, 'summary')).toEqual([[2, 2, null, 1, 100]])
    expect(figure(res, 'byCountry')).toEqual([['Germany', 2]])
    expect(figure(res, 'firmware')).toEqual([
      ['IoT module', '2.1.0', 1],
      ['Display', 'Unknown', 1],
      ['Battery (BMS)', '5.1.0', 1],
      ['Controller (ECU)', '3.0.0', 1],
    ])
    expect(figure(await get(`${RANGE}&countryId=${nl}`, limited.token), 'summary')).toEqual([[0, 0, null, 0, null]])

    const xlsx = await t.call({ url: `/api/analytics/bikeStats/export?${RANGE}`, token: limited.token })
    expect(xlsx.status).toBe(200)
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(xlsx.raw as unknown as ArrayBuffer)
    expect(wb.worksheets.map((w) => w.name)).toEqual(['About', 'Now', 'Registrations per month', 'By model', 'By country', 'Firmware versions per part', 'Online rate by model'])
    const sheet: unknown[][] = []
    wb.getWorksheet('Now')!.eachRow((r) => sheet.push((r.values as unknown[]).slice(1)))
    // The bound share, not given, is an empty cell.
    expect(sheet).toEqual([['Bikes registered', 'Registered in this range', 'Bound share of sold frames', 'Devices online now', 'Online rate'], [2, 2, undefined, 1, 100]])

    const none = await limitedUser(t, { userName: 'bikesnone', dataScope: '1', perms: ['dashboard:satisfaction:list'] })
    expect((await get(RANGE, none.token)).status).toBe(403)
  })
})
