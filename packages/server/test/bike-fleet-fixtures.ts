import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../src/db/schema'
import { dynamicDb } from '../src/db/database'

/**
 * Rows of a small fleet written straight into a test app's database, for the tests of the
 * Registered bikes dashboard: countries by code, members, bike models, and orders with their frames.
 */
export function bikeFleetFixtures(db: () => Kysely<Database>, now: string) {
  const code = (prefix: string) => `${prefix}${randomBytes(3).toString('hex').toUpperCase()}`
  async function insert(table: string, values: Record<string, unknown>, idField: string): Promise<number> {
    const row = await dynamicDb(db()).insertInto(table).values(values).returning(idField).executeTakeFirstOrThrow()
    return Number(row[idField])
  }
  const country = async (c: string) => Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', c).executeTakeFirstOrThrow()).countryId)
  const member = (countryId: number | null) =>
    insert('memMember', { email: `bf${code('')}@example.com`, firstName: 'Bi', lastName: 'Ke', countryId, createBy: 'app', createTime: now }, 'memberId')
  const model = (name: string) => insert('bikeModel', { category: 'city', name, code: code('M'), orderNum: 1, status: '0', createBy: 'test', createTime: now }, 'modelId')
  /** An order of the model with its frames, each in a status and printed on a bike or none. */
  async function order(modelId: number, frames: [status: string, bikeId: number | null][]) {
    const orderId = await insert(
      'ordDeviceOrder',
      {
        orderNo: code('PO'), orderType: 'regular', modelId, quantity: frames.length, salesRegion: 'EU', deliveryDate: '2026-01-01', purchasingEntity: 'Velo BV', tpNumber: 'TP1',
        frameSupplier: 'Frames Ltd', brandCode: 'VL', manufacturerCode: 'A', modelYear: 2026, specCode: 'MET', createBy: 'test', createTime: now,
      },
      'orderId',
    )
    for (const [i, [status, bikeId]] of frames.entries()) {
      await insert('ordFrameNumber', { orderId, frameNumber: code('VLATMET'), serial: i + 1, numberType: 'regular', status, bikeId, createBy: 'test', createTime: now }, 'numberId')
    }
  }
  return { code, insert, country, member, model, order }
}
