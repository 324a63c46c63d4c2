import ExcelJS from 'exceljs'
import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { type ImportRefusal, limitedUser, multipart, type Refusal, useTestApp } from './harness'

// Slices (EntityDef.slice): several definitions share one table, each seeing only the rows holding
// its value of a column (the suppliers of one bike part among the four). To each part's routes the
// other parts' rows do not exist: not listed, not read, not changed, not referred to, not named in
// an import, and the rights are the part's own.

const t = useTestApp()
const db = () => t.app.services.db
let serial = 0

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
const call = <T = unknown>(method: Method, url: string, body?: unknown, token = t.admin) => t.call<T>({ method, url: `/api${url}`, token, body })

async function ok<T = unknown>(method: Method, url: string, body?: unknown) {
  const res = await call<T>(method, url, body)
  expect(res.status, res.msg).toBe(200)
  return res.data
}

const supplier = (part: string, name = `Supplier ${++serial}`) => ok<{ supplierId: number; name: string }>('POST', `/ota/${part}part/supplier`, { name, supplierCode: 'SP', iotCode: 'S' })
const partKindOf = async (table: string, idField: string, id: number) => (await dynamicDb(db()).selectFrom(table).select('partKind').where(idField, '=', id).executeTakeFirstOrThrow()).partKind

async function productWorkbook(rows: { supplier: string; name: string; id?: number }[], withId = false): Promise<Buffer> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Sheet1')
  ws.addRow([...(withId ? ['ID'] : []), 'Supplier', 'Product name', 'Product code', 'Hardware revision'])
  for (const r of rows) ws.addRow([...(withId ? [r.id ?? null] : []), r.supplier, r.name, 'PC', 'H1'])
  return Buffer.from(await wb.xlsx.writeBuffer())
}

const importProducts = (part: string, file: Buffer, updateSupport = false) =>
  t.call<ImportRefusal>({ method: 'POST', url: `/api/ota/${part}part/product/import?updateSupport=${updateSupport}`, token: t.admin, ...multipart([{ name: 'products.xlsx', bytes: file }]) })

describe('slices of one table', () => {
  it("gives a new row its slice's value, whichever way it is added", async () => {
    const display = await supplier('display')
    const bms = await supplier('bms')
    expect(await partKindOf('otaSupplier', 'supplierId', display.supplierId)).toBe('display')
    expect(await partKindOf('otaSupplier', 'supplierId', bms.supplierId)).toBe('bms')
    const name = `Imported ${++serial}`
    expect((await importProducts('bms', await productWorkbook([{ supplier: bms.name, name }]))).status).toBe(200)
    const imported = await db().selectFrom('otaProduct').select(['partKind', 'supplierId']).where('name', '=', name).executeTakeFirstOrThrow()
    expect(imported).toEqual({ partKind: 'bms', supplierId: bms.supplierId })
  })

  it("answers another part's row as a missing one: not listed, read, modified, deleted, offered or exported", async () => {
    const row = await supplier('display')
    const before = await db().selectFrom('otaSupplier').selectAll().where('supplierId', '=', row.supplierId).executeTakeFirstOrThrow()

    const displayList = await ok<Paged<{ supplierId: number }>>('POST', '/ota/displaypart/supplier/list', { pageNum: 1, pageSize: 100 })
    expect(displayList.rows.map((r) => r.supplierId)).toContain(row.supplierId)
    const bmsList = await ok('POST', '/ota/bmspart/supplier/list', { pageNum: 1, pageSize: 100, name: row.name })
    expect(bmsList).toEqual({ rows: [], total: 0 })
    expect((await ok<unknown[]>('GET', `/ota/bmspart/supplier/options?keyword=${encodeURIComponent(row.name)}`)).length).toBe(0)
    expect((await ok<unknown[]>('GET', `/ota/displaypart/supplier/options?keyword=${encodeURIComponent(row.name)}`)).length).toBe(1)

    expect((await call('GET', `/ota/bmspart/supplier/${row.supplierId}`)).status).toBe(404)
    expect((await call('PUT', '/ota/bmspart/supplier', { supplierId: row.supplierId, name: 'Taken over' })).status).toBe(404)
    expect((await call('DELETE', `/ota/bmspart/supplier/${row.supplierId}`)).status).toBe(404)
    // All or nothing: one of another part among the ids refuses the whole delete.
    const own = await supplier('bms')
    expect((await call('DELETE', `/ota/bmspart/supplier/${own.supplierId},${row.supplierId}`)).status).toBe(404)
    expect(await db().selectFrom('otaSupplier').select('supplierId').where('supplierId', '=', own.supplierId).executeTakeFirst()).toBeDefined()

    const exported = await t.call({ method: 'POST', url: '/api/ota/bmspart/supplier/export', token: t.admin, body: {} })
    expect(exported.status).toBe(200)
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(exported.raw as unknown as ArrayBuffer)
    const names: unknown[] = []
    wb.worksheets[0]!.eachRow((r) => names.push(...(r.values as unknown[])))
    expect(names).not.toContain(row.name)

    expect(await db().selectFrom('otaSupplier').selectAll().where('supplierId', '=', row.supplierId).executeTakeFirstOrThrow()).toEqual(before)
  })

  it("refuses a reference to another part's row (400, naming the field)", async () => {
    const iot = await supplier('iot')
    const res = await call<Refusal>('POST', '/ota/displaypart/product', { supplierId: iot.supplierId, name: `Display ${++serial}`, productCode: 'DP', hardwareRevision: 'H1' })
    expect(res.status).toBe(400)
    expect(res.data.errors).toEqual([{ field: 'supplierId' }])
    const display = await supplier('display')
    const product = await ok<{ productId: number }>('POST', '/ota/displaypart/product', { supplierId: display.supplierId, name: `Display ${++serial}`, productCode: 'DP', hardwareRevision: 'H1' })
    const moved = await call<Refusal>('PUT', '/ota/displaypart/product', { productId: product.productId, supplierId: iot.supplierId })
    expect(moved.status).toBe(400)
    expect(moved.data.errors).toEqual([{ field: 'supplierId' }])
  })

  it('resolves names in an import within the part only', async () => {
    const shared = `Shared Motors ${++serial}`
    const display = await supplier('display', shared)
    await supplier('ecu', shared)
    const name = `By name ${serial}`
    const res = await importProducts('display', await productWorkbook([{ supplier: shared, name }]))
    expect(res.status, res.msg).toBe(200)
    expect((await db().selectFrom('otaProduct').select('supplierId').where('name', '=', name).executeTakeFirstOrThrow()).supplierId).toBe(display.supplierId)

    // A name only another part has is unknown here.
    const onlyDisplay = (await supplier('display')).name
    const unknown = await importProducts('bms', await productWorkbook([{ supplier: onlyDisplay, name: `Nowhere ${serial}` }]))
    expect(unknown.status).toBe(400)
    expect(unknown.data.errors[0]).toMatchObject({ row: 2, field: 'supplierId' })
  })

  it("never updates another part's row an import names by id", async () => {
    const bms = await supplier('bms')
    const other = await ok<{ productId: number }>('POST', '/ota/displaypart/product', { supplierId: (await supplier('display')).supplierId, name: `Display ${++serial}`, productCode: 'DP', hardwareRevision: 'H1' })
    const before = await db().selectFrom('otaProduct').selectAll().where('productId', '=', other.productId).executeTakeFirstOrThrow()
    const name = `Not an update ${serial}`
    const res = await importProducts('bms', await productWorkbook([{ id: other.productId, supplier: bms.name, name }], true), true)
    expect(res.status, res.msg).toBe(200)
    // Its id names no row of this part: the row is a new one of this part.
    expect(res.data).toEqual({ inserted: 1, updated: 0 })
    expect(await db().selectFrom('otaProduct').selectAll().where('productId', '=', other.productId).executeTakeFirstOrThrow()).toEqual(before)
    expect(await db().selectFrom('otaProduct').select('partKind').where('name', '=', name).executeTakeFirstOrThrow()).toEqual({ partKind: 'bms' })
  })

  it("gives a part's rights only to its own routes (403 on another part's)", async () => {
    const ops = ['list', 'query', 'add', 'edit', 'remove', 'export']
    const { token } = await limitedUser(t, { userName: `displayonly${++serial}`, perms: ops.map((o) => `ota:displaypart:${o}`), dataScope: '1' })
    const bms = await supplier('bms')
    expect((await call('POST', '/ota/displaypart/supplier/list', {}, token)).status).toBe(200)
    const added = await call('POST', '/ota/displaypart/supplier', { name: `Own ${serial}`, supplierCode: 'OW', iotCode: 'O' }, token)
    expect(added.status, added.msg).toBe(200)
    const refused: [Method, string, unknown?][] = [
      ['POST', '/ota/bmspart/supplier/list', {}],
      ['GET', `/ota/bmspart/supplier/${bms.supplierId}`],
      ['POST', '/ota/bmspart/supplier', { name: 'Intruder', supplierCode: 'IN', iotCode: 'I' }],
      ['PUT', '/ota/bmspart/supplier', { supplierId: bms.supplierId, name: 'Intruder' }],
      ['DELETE', `/ota/bmspart/supplier/${bms.supplierId}`],
      ['POST', '/ota/bmspart/product/list', {}],
      ['POST', '/ota/bmspart/firmware/list', {}],
    ]
    for (const [method, url, body] of refused) expect((await call(method, url, body, token)).status, `${method} ${url}`).toBe(403)
    expect((await db().selectFrom('otaSupplier').select('name').where('supplierId', '=', bms.supplierId).executeTakeFirstOrThrow()).name).toBe(bms.name)
  })
})
