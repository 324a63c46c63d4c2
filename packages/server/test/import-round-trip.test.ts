import ExcelJS from 'exceljs'
import { allEntities, OTA_PARTS, type ResolvedEntity } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { DEMO_MODEL } from '../src/seed'
import { type ImportRefusal, readWorkbook, useTestApp } from './harness'

// Issue 12, item 1: Export, then Import of the same file, must work for every entity that imports:
// without "update" the rows it names are refused as existing (RuoYi's updateSupport), with it they
// are updated and nothing else changes.
const t = useTestApp()
const db = () => t.app.services.db

const demoModelId = async () => Number((await db().selectFrom('iotModel').select('modelId').where('productId', '=', DEMO_MODEL.productId).executeTakeFirstOrThrow()).modelId)

/** Two rows to add to each importable entity through its API (an entity that imports must have a line here). */
const SAMPLES: Record<string, (i: number) => Promise<Record<string, unknown>>> = {
  dictType: async (i) => ({ dictName: `Round trip ${i}`, dictType: `round_trip_${i}`, remark: `sample ${i}` }),
  dictData: async (i) => ({ dictType: 'sys_yes_no', dictLabel: `Maybe ${i}`, dictLabelZh: `也许 ${i}`, dictValue: `M${i}`, dictSort: 10 + i }),
  config: async (i) => ({ configName: `Round trip ${i}`, configKey: `test.roundTrip.${i}`, configValue: `value ${i}`, remark: 'sample' }),
  user: async (i) => ({ userName: `roundtrip${i}`, nickName: `Round Trip ${i}`, password: 'secret12', email: `rt${i}@example.com`, phonenumber: `+31 20 555 000${i}`, sex: '1', roleIds: [] }),
  i18n: async (i) => ({ name: `Round trip ${i}`, type: 'web', sourceKey: `test.round.trip.${i}`, valueEnUs: `Hello ${i}`, valueZhCn: `你好 ${i}` }),
  country: async (i) => ({ code: `Q${'MNOPQR'[i]}`, name: `测试 ${i}`, nameEn: `Testland ${i}`, timeZone: 'Europe/Amsterdam' }),
  trackingNode: async (i) => ({ parentId: 0, name: `Round trip ${i}`, code: `round.trip_${i}`, label: `Round trip ${i}`, path: `/round/${i}`, orderNum: i }),
  faq: async (i) => ({ type: 'battery', title: `How long ${i}?`, introduction: 'About charging', orderNum: i, content: '<p>Long enough</p>' }),
  iotModel: async (i) => ({ productId: `RT-${i}`, name: `Round trip model ${i}`, productCode: 'RT', snPrefix: `RT${i}`, supportsAudio: i === 1 }),
  iotFunction: async (i) => ({ name: `Round trip function ${i}`, command: 'lock', description: 'sample', modelIds: [await demoModelId()], firmwareVersions: '1.0.0 and later' }),
  iotDevice: async (i) => ({ sn: `${DEMO_MODEL.snPrefix}RT000${i}`, modelId: await demoModelId(), remark: `bike ${i}` }),
  iotConfig: async (i) => ({ name: `Round trip template ${i}`, protocolVersion: '1.2', fallAngle: 40 + i, vibrationSensitivity: 2 + i, remark: `template ${i}` }),
  // A polygon and a circle: the geometry travels as its GeoJSON text; "applies to" lists are not imported.
  iotGeofence: async (i) => ({
    name: `Round trip fence ${i}`,
    geometry: i === 1 ? '{"type":"Point","coordinates":[4.9,52.37],"radius":500}' : '{"type":"Polygon","coordinates":[[[4.8,52.3],[5,52.3],[5,52.4],[4.8,52.3]]]}',
    trigger: i === 1 ? 'enter' : 'exit',
    allDevices: i === 1,
  }),
  // An ICCID ends with its Luhn check digit.
  iotSim: async (i) => ({ iccid: (await import('@velo/shared')).withLuhnDigit(`89310700000000001${i}`), limitMb: 1024 * (i + 1), usedMb: 10 * i, apn: 'velo.iot', periodType: i === 1 ? 'year' : 'month' }),
  deviceOrder: async (i) => ({
    orderNo: `PO-RT-${i}`, orderType: i === 1 ? 'repair' : 'regular', repairCode: i === 1 ? 'R' : '', modelId: await bikeModelId(), quantity: 100 * (i + 1), salesRegion: 'EU West',
    deliveryDate: '2026-12-15', purchasingEntity: 'Velo Europe B.V.', tpNumber: `TP-${i}`, frameSupplier: 'Giant Frames Ltd', brandCode: 'VL', manufacturerCode: 'A', modelYear: 2026, specCode: `RT${i}`,
    serialStart: i === 1 ? 500 : undefined,
  }),
  appVersion: async (i) => ({ platform: 'android', versionCode: `9.9.${i}`, versionType: i === 1 ? 'force' : 'normal', downloadUrl: 'https://example.com/velo.apk', updateInterval: 24, releaseTime: '2026-11-01T08:00:00.000Z', notesEn: `Fixes ${i}` }),
  activity: async (i) => ({ name: `Round trip ride ${i}`, startTime: '2026-12-01T08:00:00.000Z', endTime: '2026-12-02T08:00:00.000Z', description: '<p>Ride with us</p>', language: i === 1 ? 'de_DE' : 'en_US', orderNum: i }),
  policy: async (i) => ({ title: `Round trip warranty ${i}`, type: 'warranty', content: '<p>Two years</p>', coverageMonths: 24, language: 'nl_NL' }),
  userHelp: async (i) => ({ title: `Round trip manual ${i}`, type: 'manual', language: 'fr_FR', linkUrl: 'https://example.com/manual.pdf', orderNum: i }),
  errorCode: async (i) => ({ code: `RT-${i}`, level: 'error', description: `Battery not found ${i}`, solution: 'Reseat the battery', errorType: 'bike' }),
  toolUser: async (i) => ({ companyName: `Round trip works ${i}`, email: `rt${i}@line.example.com`, password: 'secret12', userType: i === 1 ? 'test' : 'production' }),
  // Every part has a supplier of the same name: the export's supplier names resolve within the part (slices).
  ...Object.fromEntries(
    OTA_PARTS.flatMap((part) => [
      [`${part}PartSupplier`, async (i: number) => ({ name: `Round trip supplier ${i}`, supplierCode: 'RT', iotCode: 'R', contact: `Ms ${part} ${i}` })],
      [`${part}PartProduct`, async (i: number) => ({ supplierId: await partSupplierId(part), name: `Round trip ${part} product ${i}`, productCode: 'RP', hardwareRevision: `H${i}` })],
    ]),
  ),
  serviceCentre: async (i) => ({ name: `Round trip shop ${i}`, address: `Damrak ${i}, Amsterdam`, countryId: await countryId(), latitude: 52.37 + i / 100, longitude: 4.89, offersTestRide: i === 1 }),
}

/** The newest supplier of a bike part, for its products. */
const partSupplierId = async (part: string) =>
  Number((await db().selectFrom('otaSupplier').select('supplierId').where('partKind', '=', part).orderBy('supplierId', 'desc').executeTakeFirstOrThrow()).supplierId)

/** A country the service centres are in (the seed's first). */
const countryId = async () => Number((await db().selectFrom('sysCountry').select('countryId').orderBy('countryId').executeTakeFirstOrThrow()).countryId)

let bikeModel: number | undefined
/** A bike model for the orders, added once. */
async function bikeModelId(): Promise<number> {
  if (bikeModel) return bikeModel
  const res = await t.call<{ modelId: number }>({ method: 'POST', url: '/api/bike/modelSpec', token: t.admin, body: { category: 'city', name: 'Round trip', code: 'RTM' } })
  return (bikeModel = Number(res.data.modelId))
}

const importable = allEntities().filter((e) => e.operations.includes('import'))

/** Every row of the entity's table as stored, minus who changed it when: what "nothing else changed" compares. */
async function stored(e: ResolvedEntity) {
  // A slice's rows only (a part's suppliers among the four parts'), as its export holds them.
  const rows = await dynamicDb(db())
    .selectFrom(e.table)
    .selectAll()
    .$if(!!e.slice, (q) => q.where(e.slice!.column, '=', e.slice!.value))
    .orderBy(e.idField)
    .execute()
  return rows.map(({ updateBy: _by, updateTime: _time, ...rest }) => rest)
}

function importFile(e: ResolvedEntity, file: Buffer, o: { updateSupport?: boolean; lang?: 'en_US' | 'zh_CN' } = {}) {
  const form = new FormData()
  if (o.updateSupport) form.append('updateSupport', 'true')
  form.append('file', new Blob([file]), `${e.key}.xlsx`)
  return t.call<ImportRefusal>({ method: 'POST', url: `/api/${e.path.replace(/^\//, '')}/import`, token: t.admin, lang: o.lang, payload: form })
}

const exportAll = (e: ResolvedEntity, lang: 'en_US' | 'zh_CN') => t.call({ method: 'POST', url: `/api${e.path}/export`, token: t.admin, lang, body: {} })

describe('export, then import the same file', () => {
  it('covers every importable entity', () => {
    expect(importable.map((e) => e.key).sort()).toEqual(Object.keys(SAMPLES).sort())
    for (const e of importable) expect(e.operations, e.key).toContain('export')
  })

  describe.each(importable.map((e) => [e.key, e] as const))('%s', (_key, e) => {
    it('refuses the named rows without update, updates them with it, in either language', async () => {
      const sample = SAMPLES[e.key]!
      for (const i of [0, 1]) {
        const added = await t.call({ method: 'POST', url: `/api${e.path}`, token: t.admin, body: await sample(i) })
        expect(added.status, `${e.key}: ${added.msg} ${JSON.stringify(added.data)}`).toBe(200)
      }
      // The carrier sweep (every 5 s) stamps a new card's lastSyncAt whenever it comes round: stamped
      // here first, as the sweep would, so that it does not change the rows between the snapshots.
      if (e.key === 'iotSim') await db().updateTable('iotSim').set({ lastSyncAt: new Date().toISOString() }).execute()
      const before = await stored(e)

      for (const lang of ['en_US', 'zh_CN'] as const) {
        const exported = await exportAll(e, lang)
        expect(exported.status).toBe(200)
        const sheet = await readWorkbook(exported.raw)
        expect(sheet.rows.length).toBe(before.length)

        // Without update: every row exists already, so each is refused by row, and nothing is written.
        const plain = await importFile(e, exported.raw, { lang })
        expect(plain.status, `${e.key} ${lang}: ${plain.msg}`).toBe(400)
        const refusedRows = new Set(plain.data.errors.map((x: { row: number }) => x.row))
        expect(refusedRows.size, JSON.stringify(plain.data.errors.slice(0, 3))).toBe(before.length)
        expect(plain.data.errors[0]!.message).toMatch(lang === 'en_US' ? /already exists: choose "Update rows that already exist"/ : /已存在：勾选“更新已经存在的数据”/)
        expect(await stored(e)).toEqual(before)

        // With update: the rows the file names are updated with what they hold, so nothing changes.
        const updated = await importFile(e, exported.raw, { updateSupport: true, lang })
        expect(updated.status, `${e.key} ${lang}: ${updated.msg} ${JSON.stringify(updated.data?.errors?.slice(0, 3))}`).toBe(200)
        expect(updated.data).toEqual({ inserted: 0, updated: before.length })
        expect(await stored(e)).toEqual(before)
      }
    })

    it('answers a file without a column new rows need with a clear 400, never a database error', async () => {
      const required = e.imported.filter((f) => f.required && !('default' in f && f.default !== undefined))
      if (required.length < 2) return
      // Only the first required column, with a good value no row has yet.
      const [kept, ...lacking] = required
      const wb = new ExcelJS.Workbook()
      const ws = wb.addWorksheet('Sheet1')
      ws.addRow([kept!.label.en_US])
      ws.addRow([(await SAMPLES[e.key]!(5))[kept!.name]])
      const file = Buffer.from(await wb.xlsx.writeBuffer())
      const before = await stored(e)
      const res = await importFile(e, file)
      expect(res.status, `${e.key}: ${res.msg}`).toBe(400)
      expect(res.msg).toContain(`"${lacking[0]!.label.en_US}"`)
      expect(res.msg).toContain('which new rows need')
      // With update the row matches nothing either: reported by row.
      const withUpdate = await importFile(e, file, { updateSupport: true })
      expect(withUpdate.status, `${e.key}: ${withUpdate.msg}`).toBe(400)
      expect(withUpdate.data.errors[0]).toMatchObject({ row: 2, field: lacking[0]!.name })
      expect(await stored(e)).toEqual(before)
    })
  })
})

describe('import with the id column', () => {
  it('updates the rows an entity without a natural key names by id, and adds rows whose id names none', async () => {
    const e = importable.find((x) => x.key === 'dictData')!
    const exported = await exportAll(e, 'en_US')
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(exported.raw as unknown as ArrayBuffer)
    const ws = wb.worksheets[0]!
    const header = (ws.getRow(1).values as unknown[]).slice(1) as string[]
    const col = (name: string) => header.indexOf(name) + 1
    // Keep two rows of sys_yes_no: relabel one, give the other an id no row has (a new row).
    const keep: number[] = []
    ws.eachRow((row, n) => {
      if (n > 1 && row.getCell(col('Dictionary type')).value === 'sys_yes_no' && keep.length < 2) keep.push(n)
    })
    const [first, second] = keep.map((n) => ws.getRow(n))
    const firstId = Number(first!.getCell(col('ID')).value)
    first!.getCell(col('Label')).value = 'Yes indeed'
    second!.getCell(col('ID')).value = 99999999
    second!.getCell(col('Value')).value = 'MAYBE'
    const out = new ExcelJS.Workbook()
    const sheet = out.addWorksheet('Sheet1')
    sheet.addRow(header)
    sheet.addRow((first!.values as unknown[]).slice(1))
    sheet.addRow((second!.values as unknown[]).slice(1))
    const res = await importFile(e, Buffer.from(await out.xlsx.writeBuffer()), { updateSupport: true })
    expect(res.status, `${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
    expect(res.data).toEqual({ inserted: 1, updated: 1 })
    const row = await db().selectFrom('sysDictData').select(['dictLabel']).where('dictCode', '=', firstId).executeTakeFirstOrThrow()
    expect(row.dictLabel).toBe('Yes indeed')
    expect(await db().selectFrom('sysDictData').select('dictCode').where('dictType', '=', 'sys_yes_no').where('dictValue', '=', 'MAYBE').executeTakeFirst()).toBeTruthy()
  })

  it('ends the sessions of users an import disables, as a single change does', async () => {
    const e = importable.find((x) => x.key === 'user')!
    await t.call({ method: 'POST', url: '/api/system/user', token: t.admin, body: { userName: 'importoff', nickName: 'Off', password: 'secret12', email: 'off@example.com', phonenumber: '+31 20 555 0101' } })
    const token = await t.login('importoff', 'secret12')
    expect((await t.call({ url: '/api/getUserInfo', token })).status).toBe(200)
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Sheet1')
    ws.addRow(['User name', 'Status'])
    ws.addRow(['importoff', 'Disabled'])
    const res = await importFile(e, Buffer.from(await wb.xlsx.writeBuffer()), { updateSupport: true })
    expect(res.status, res.msg).toBe(200)
    expect((await t.call({ url: '/api/getUserInfo', token })).status).toBe(401)
  })
})
