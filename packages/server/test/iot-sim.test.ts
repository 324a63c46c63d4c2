import { randomInt } from 'node:crypto'
import type { SimulatedDevice } from '@velo/device-sim'
import { withLuhnDigit } from '@velo/shared'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCarrier } from '../src/modules/iot/sim/carrier'
import { simCardsOf } from '../src/modules/iot/sim'
import { type Alarms, type RaiseAlarm, setAlarms } from '../src/modules/iot/warnings/alarms'
import { createTestApp, type ImportRefusal, type TestApp, useTestApp } from './harness'
import { clearRetained, deviceRow, insertDevice, simulated, waitFor } from './iot-helpers'

// SIM cards: the engine's add/modify/import with the ICCID's check digit, the flow state and its
// warning, the life-cycle steps through the simulated carrier (accepted, then confirmed or refused
// by polling; the carrier's own changes), and the usage real simulated devices report over MQTT
// (the embedded broker, or Mosquitto with TEST_MQTT_URL).

const t = useTestApp()
const devices: SimulatedDevice[] = []
/** What the module asked of the warnings seam (the warnings module's own tests cover what it makes of it). */
const raised: RaiseAlarm[] = []
const cleared: { deviceId: number; type: string }[] = []
const recorder: Alarms = {
  raise: async (a) => void raised.push(a),
  clear: async (deviceId, type) => void cleared.push({ deviceId, type }),
}

/** A Luhn-valid ICCID nobody else uses. */
const newIccid = () => withLuhnDigit(`8931${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e5)).padStart(5, '0')}`)
const newImei = () => withLuhnDigit(`35${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e3)).padStart(3, '0')}`)

const db = () => t.app.services.db
const sims = () => simCardsOf(t.app.services)
const carrier = () => sims().carriers.get('simulated') as SimulatedCarrier
const simRow = (simId: number) => db().selectFrom('iotSim').selectAll().where('simId', '=', simId).executeTakeFirstOrThrow()
const simByIccid = (iccid: string) => db().selectFrom('iotSim').selectAll().where('iccid', '=', iccid).executeTakeFirst()
const allSims = async () => (await db().selectFrom('iotSim').selectAll().orderBy('simId').execute()).map((r) => JSON.stringify(r))
const history = async (simId: number) => (await t.call({ url: `/api/iot/sim/${simId}/history`, token: t.admin })).data as { step: string; fromState: string; toState: string; input: Record<string, unknown>; userName: string }[]

async function addSim(body: Record<string, unknown> = {}) {
  const res = await t.call<Record<string, unknown> & { simId: number; iccid: string }>({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: newIccid(), limitMb: 1024, ...body } })
  expect(res.status, res.msg).toBe(200)
  return res.data
}

const step = (simId: number, name: string, body: Record<string, unknown> = {}, lang?: 'en_US' | 'zh_CN') =>
  t.call({ method: 'POST', url: `/api/iot/sim/${simId}/${name}`, token: t.admin, body, lang })

/** Polls the carrier until the card's request is answered. */
const settled = (simId: number) =>
  waitFor(async () => {
    await sims().poll()
    return (await simRow(simId)).carrierRequestId === null
  }, `the carrier to answer for SIM ${simId}`)

beforeAll(async () => {
  setAlarms(t.app.services, recorder)
  carrier().delayMs = () => 0
})

afterAll(async () => {
  for (const d of devices) await d.disconnect().catch(() => {})
  await clearRetained(t.app, devices.map((d) => d.sn))
})

describe('adding and modifying', () => {
  it('refuses an ICCID whose check digit is wrong, in either language, and adds nothing', async () => {
    const before = await allSims()
    const good = newIccid()
    const wrong = good.slice(0, -1) + ((Number(good.at(-1)) + 1) % 10)
    const en = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: wrong, limitMb: 1024 } })
    expect(en.status).toBe(400)
    expect(en.msg).toContain('ICCID has a wrong check digit (mistyped?)')
    const zh = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, lang: 'zh_CN', body: { iccid: wrong, limitMb: 1024 } })
    expect(zh.msg).toContain('ICCID校验位不正确（是否输错？）')
    const short = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: '893100000000000', limitMb: 1024 } })
    expect(short.status).toBe(400)
    const imei = newImei()
    const badImei = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: good, imei: imei.slice(0, -1) + ((Number(imei.at(-1)) + 1) % 10), limitMb: 1024 } })
    expect(badImei.status).toBe(400)
    expect(badImei.msg).toContain('IMEI has a wrong check digit (mistyped?)')
    const negative = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: good, limitMb: -1 } })
    expect(negative.status).toBe(400)
    const threshold = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: good, limitMb: 10, warningPercent: 101 } })
    expect(threshold.status).toBe(400)
    expect(await allSims()).toEqual(before)
  })

  it('adds a card silent with its remaining data, and keeps ICCIDs unique', async () => {
    const sim = await addSim({ imei: newImei(), limitMb: 2048, usedMb: 48 })
    expect(sim).toMatchObject({ status: 'silent', flowState: 'normal', remainingMb: 2000, carrierState: '' })
    const again = await t.call({ method: 'POST', url: '/api/iot/sim', token: t.admin, body: { iccid: sim.iccid, limitMb: 1 } })
    expect(again.status).toBe(409)
    const direct = await t.call({ method: 'PUT', url: '/api/iot/sim', token: t.admin, body: { simId: sim.simId, status: 'inUse' } })
    expect(direct.status).toBe(400)
    expect((await simRow(sim.simId)).status).toBe('silent')
  })

  it('turns the flow state to warning at the threshold and raises simDataLow for its device; back below clears it', async () => {
    const { deviceId } = await insertDevice(t)
    const sim = await addSim({ limitMb: 1000, usedMb: 100, warningPercent: 80, deviceId })
    const over = await t.call({ method: 'PUT', url: '/api/iot/sim', token: t.admin, body: { simId: sim.simId, usedMb: 800 } })
    expect(over.status, over.msg).toBe(200)
    expect(over.data).toMatchObject({ flowState: 'warning', remainingMb: 200 })
    expect(raised.filter((a) => a.deviceId === deviceId)).toEqual([{ deviceId, type: 'simDataLow', detail: `ICCID ${sim.iccid}: 80 % of 1,000 MB used` }])
    // A bigger package: back below the threshold.
    const bigger = await t.call({ method: 'PUT', url: '/api/iot/sim', token: t.admin, body: { simId: sim.simId, limitMb: 2000 } })
    expect(bigger.data).toMatchObject({ flowState: 'normal', remainingMb: 1200 })
    expect(cleared).toContainEqual({ deviceId, type: 'simDataLow' })
  })

  it('clears the warning of a card that is deleted', async () => {
    const { deviceId } = await insertDevice(t)
    const sim = await addSim({ limitMb: 100, usedMb: 99, deviceId })
    expect(raised.some((a) => a.deviceId === deviceId)).toBe(true)
    const removed = await t.call({ method: 'DELETE', url: `/api/iot/sim/${sim.simId}`, token: t.admin })
    expect(removed.status, removed.msg).toBe(200)
    expect(cleared).toContainEqual({ deviceId, type: 'simDataLow' })
  })

  it('keeps the flow state of a card in no device without raising anything', async () => {
    const count = raised.length
    const sim = await addSim({ limitMb: 100, usedMb: 100 })
    expect(sim.flowState).toBe('warning')
    expect(raised.length).toBe(count)
  })
})

describe('carrier import', () => {
  async function importUsage(rows: (string | number)[][], updateSupport: boolean) {
    const template = await t.call({ url: '/api/iot/sim/importTemplate', token: t.admin })
    const tpl = new ExcelJS.Workbook()
    await tpl.xlsx.load(template.raw as unknown as ArrayBuffer)
    const header = (tpl.worksheets[0]!.getRow(1).values as string[]).slice(1)
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Usage')
    ws.addRow(['ICCID', 'Used (MB)', 'Package data (MB)'])
    for (const r of rows) ws.addRow(r)
    expect(header).toEqual(expect.arrayContaining(['ICCID', 'Used (MB)', 'Package data (MB)']))
    const form = new FormData()
    form.append('updateSupport', String(updateSupport))
    form.append('file', new Blob([Buffer.from(await wb.xlsx.writeBuffer())]), 'carrier.xlsx')
    return t.call<ImportRefusal>({ method: 'POST', url: '/api/iot/sim/import', token: t.admin, payload: form })
  }

  it('updates usage by ICCID and re-evaluates the flow state; a bad row changes nothing', async () => {
    const { deviceId } = await insertDevice(t)
    const a = await addSim({ limitMb: 1000, usedMb: 10, deviceId })
    const b = await addSim({ limitMb: 500, usedMb: 10 })
    const before = await allSims()
    const bad = await importUsage(
      [
        [a.iccid, 950, 1000],
        [b.iccid, -5, 500],
      ],
      true,
    )
    expect(bad.status).toBe(400)
    expect(bad.data.errors).toEqual([{ row: 3, field: 'usedMb', message: 'Used (MB) must be at least 0' }])
    expect(await allSims()).toEqual(before)

    const good = await importUsage(
      [
        [a.iccid, 950, 1000],
        [b.iccid, 20, 500],
      ],
      true,
    )
    expect(good.status, good.msg).toBe(200)
    expect(good.data).toEqual({ inserted: 0, updated: 2 })
    expect(await simRow(a.simId)).toMatchObject({ usedMb: 950, remainingMb: 50, flowState: 'warning' })
    expect(await simRow(b.simId)).toMatchObject({ usedMb: 20, flowState: 'normal' })
    expect(raised.filter((x) => x.deviceId === deviceId)).toEqual([{ deviceId, type: 'simDataLow', detail: `ICCID ${a.iccid}: 95 % of 1,000 MB used` }])
  })
})

describe('life cycle through the carrier', () => {
  it('moves the status at once, pending until the carrier confirms, with the reason in the history', async () => {
    const sim = await addSim()
    const activated = await step(sim.simId, 'activate', { reason: 'fitted in a bike' })
    expect(activated.status, activated.msg).toBe(200)
    expect(activated.data).toMatchObject({ status: 'inUse', carrierState: 'pending' })
    await settled(sim.simId)
    expect(await simRow(sim.simId)).toMatchObject({ status: 'inUse', carrierState: 'activated', pendingFrom: null })
    expect((await simRow(sim.simId)).lastSyncAt).toBeTruthy()
    expect(await history(sim.simId)).toMatchObject([{ step: 'activate', fromState: 'silent', toState: 'inUse', input: { reason: 'fitted in a bike' } }])
  })

  it('refuses a step without its reason, one from the wrong state, and a second one while the carrier has not confirmed', async () => {
    const sim = await addSim()
    expect((await step(sim.simId, 'pause', { reason: 'x' })).status).toBe(409)
    carrier().delayMs = () => 60_000
    try {
      expect((await step(sim.simId, 'activate')).status).toBe(200)
      const noReason = await step(sim.simId, 'pause', {})
      expect(noReason.status).toBe(400)
      const before = await simRow(sim.simId)
      const waiting = await step(sim.simId, 'pause', { reason: 'unpaid invoice' })
      expect(waiting.status).toBe(409)
      expect(waiting.msg).toBe(`SIM card ${sim.iccid} is waiting for the carrier to confirm its last change`)
      expect(await simRow(sim.simId)).toEqual(before)
      expect((await history(sim.simId)).map((h) => h.step)).toEqual(['activate'])
    } finally {
      carrier().delayMs = () => 0
    }
  })

  it('refuses the step when the carrier refuses it at once, and changes nothing', async () => {
    const sim = await addSim()
    carrier().refuseNow.set(sim.iccid, 'the card is not in our stock')
    const before = await simRow(sim.simId)
    const res = await step(sim.simId, 'activate', {}, 'zh_CN')
    expect(res.status).toBe(409)
    expect(res.msg).toBe('运营商拒绝：the card is not in our stock')
    expect(await simRow(sim.simId)).toEqual(before)
    expect(await history(sim.simId)).toEqual([])
  })

  it('puts the status back when the carrier refuses after accepting, once across two instances', async () => {
    const sim = await addSim()
    carrier().refuseLater.set(sim.iccid, 'no real-name registration')
    expect((await step(sim.simId, 'activate')).data).toMatchObject({ status: 'inUse', carrierState: 'pending' })
    const other: TestApp = await createTestApp({}, { databaseUrl: t.databaseUrl })
    try {
      await Promise.all([sims().poll(), simCardsOf(other.app.services).poll()])
    } finally {
      await other.close()
    }
    expect(await simRow(sim.simId)).toMatchObject({ status: 'silent', carrierState: 'refused', carrierRequestId: null })
    expect(await history(sim.simId)).toMatchObject([
      { step: 'activate', fromState: 'silent', toState: 'inUse' },
      { step: 'carrierRefused', fromState: 'inUse', toState: 'silent', input: { reason: 'no real-name registration' }, userName: 'carrier' },
    ])
  })

  it("takes the carrier's own change (suspended for non-payment) from the sync, into the history", async () => {
    const sim = await addSim()
    await step(sim.simId, 'activate')
    await settled(sim.simId)
    carrier().simulateChange(sim.iccid, 'suspended', 'unpaid')
    // Due for a sync (it was last synchronised by the confirmation).
    await db().updateTable('iotSim').set({ lastSyncAt: null }).where('simId', '=', sim.simId).execute()
    await waitFor(async () => {
      await sims().poll()
      return (await simRow(sim.simId)).status === 'suspended'
    }, 'the carrier suspension')
    expect(await simRow(sim.simId)).toMatchObject({ carrierState: 'suspended' })
    expect((await history(sim.simId)).at(-1)).toMatchObject({ step: 'carrierChanged', fromState: 'inUse', toState: 'suspended', input: { reason: 'unpaid' }, userName: 'carrier' })
    const resumed = await step(sim.simId, 'resume', { reason: 'paid' })
    expect(resumed.data).toMatchObject({ status: 'inUse', carrierState: 'pending' })
    await settled(sim.simId)
    expect(await simRow(sim.simId)).toMatchObject({ status: 'inUse', carrierState: 'activated' })
  })
})

describe('usage the devices report', () => {
  it('adds an unknown card in use, linked to the device, warns at the threshold, and follows staff moving it to another device', async () => {
    const iccid = newIccid()
    const first = await insertDevice(t)
    const d1 = simulated(t.app, first, { iccid, simUsedMb: 100, simLimitMb: 1000 })
    devices.push(d1)
    await d1.connect()
    const card = await waitFor(async () => {
      const row = await simByIccid(iccid)
      return row && Number(row.deviceId) === first.deviceId ? row : null
    }, 'the card reported')
    expect(card).toMatchObject({ status: 'inUse', usedMb: 100, limitMb: 1000, remainingMb: 900, flowState: 'normal' })

    await d1.useData(850)
    await waitFor(async () => (await simByIccid(iccid))?.flowState === 'warning', 'the flow warning')
    await waitFor(() => raised.some((a) => a.deviceId === first.deviceId && a.type === 'simDataLow'), 'the alarm')
    await d1.disconnect()

    // The card goes into another bike while the first still exists: held until staff move it.
    const second = await insertDevice(t)
    const d2 = simulated(t.app, second, { iccid, simUsedMb: 860, simLimitMb: 1000 })
    devices.push(d2)
    await d2.connect()
    const claim = await waitFor(() => raised.find((a) => a.deviceId === second.deviceId && a.type === 'simClash'), 'the claim warning')
    expect(claim.detail).toBe(`ICCID ${iccid} is linked to device ${first.sn}; device ${second.sn} reports it / ICCID ${iccid} 已绑定设备 ${first.sn}，设备 ${second.sn} 也上报了该卡`)
    await t.app.iot.presence.flush()
    await sims().flush()
    expect(await simByIccid(iccid)).toMatchObject({ deviceId: first.deviceId, usedMb: 850, flowState: 'warning' })
    expect((await deviceRow(t, second.deviceId)).simNumber).not.toBe(iccid)
    expect(raised.some((a) => a.deviceId === second.deviceId && a.type === 'simDataLow')).toBe(false)

    // Staff move it (the console's edit): it follows, and so does its warning; the claim is settled.
    const card2 = (await simByIccid(iccid))!
    const moved = await t.call({ method: 'PUT', url: '/api/iot/sim', token: t.admin, body: { simId: Number(card2.simId), deviceId: second.deviceId } })
    expect(moved.status, moved.msg).toBe(200)
    expect(cleared).toContainEqual({ deviceId: first.deviceId, type: 'simDataLow' })
    expect(cleared).toContainEqual({ deviceId: second.deviceId, type: 'simClash' })
    expect(raised.some((a) => a.deviceId === second.deviceId && a.type === 'simDataLow')).toBe(true)

    // A new cycle: the usage starts again, the warning ends.
    await d2.useData(5)
    await waitFor(async () => (await simByIccid(iccid))?.flowState === 'normal', 'the flow back to normal')
    expect(await simByIccid(iccid)).toMatchObject({ deviceId: second.deviceId, usedMb: 5 })
    await waitFor(() => cleared.some((c) => c.deviceId === second.deviceId && c.type === 'simDataLow'), 'the alarm cleared')
    await waitFor(async () => (await deviceRow(t, second.deviceId)).simNumber === iccid, "the card on the device's row")
  })

  it('lets a device take a card whose holder was deleted, that staff unlinked, or that its holder let go', async () => {
    const run = async (release: (holder: { deviceId: number; sn: string; secret: string }, simId: number) => Promise<unknown>) => {
      const holder = await insertDevice(t)
      const sim = await addSim({ deviceId: holder.deviceId, usedMb: 10, limitMb: 1000 })
      const claimant = await insertDevice(t)
      const d = simulated(t.app, claimant, { iccid: sim.iccid, simUsedMb: 20, simLimitMb: 1000 })
      devices.push(d)
      await d.connect()
      await waitFor(() => raised.some((a) => a.deviceId === claimant.deviceId && a.type === 'simClash'), 'the claim warning')
      await release(holder, sim.simId)
      await d.useData(30)
      await waitFor(async () => Number((await simRow(sim.simId)).deviceId) === claimant.deviceId, 'the card taken')
      expect(await simRow(sim.simId)).toMatchObject({ usedMb: 30 })
      expect(cleared).toContainEqual({ deviceId: claimant.deviceId, type: 'simClash' })
      await d.disconnect()
    }
    await run(({ deviceId }) => db().deleteFrom('iotDevice').where('deviceId', '=', deviceId).execute())
    await run(async (_, simId) => expect((await t.call({ method: 'PUT', url: '/api/iot/sim', token: t.admin, body: { simId, deviceId: null } })).status).toBe(200))
    // The holder reports another card: it lets this one go.
    await run(async (holder, simId) => {
      const h = simulated(t.app, holder, { iccid: newIccid() })
      devices.push(h)
      await h.connect()
      await waitFor(async () => (await simRow(simId)).deviceId === null, 'the card let go')
    })
  })

  it('unlinks the card a device no longer reports, and ignores an ICCID that fails its check digit', async () => {
    const dev = await insertDevice(t)
    const old = await addSim({ deviceId: dev.deviceId })
    const good = newIccid()
    const wrong = good.slice(0, -1) + ((Number(good.at(-1)) + 1) % 10)
    const d = simulated(t.app, dev, { iccid: wrong })
    devices.push(d)
    await d.connect()
    await t.app.iot.presence.flush()
    await waitFor(async () => {
      await sims().flush()
      return (await db().selectFrom('iotDevice').select('simNumber').where('deviceId', '=', dev.deviceId).executeTakeFirst())?.simNumber === wrong
    }, 'the status received')
    await sims().flush()
    expect(await simByIccid(wrong)).toBeUndefined()
    expect(Number((await simRow(old.simId)).deviceId)).toBe(dev.deviceId)

    await d.reportStatus({ sim: { iccid: good, usedMb: 1, limitMb: 10 } })
    await waitFor(async () => (await simByIccid(good))?.deviceId !== undefined && Number((await simByIccid(good))?.deviceId) === dev.deviceId, 'the new card')
    expect((await simRow(old.simId)).deviceId).toBeNull()
  })
})
