import type { OtaPart } from '@velo/shared'
import type { Db, Dialect } from '../db/database'
import { DAY } from './generate'
import { TableWriter } from './write'

/**
 * The OTA catalogue's demo suppliers and their part products, one list per bike part (issue 18):
 * makers an e-bike brand buys these parts from. Firmware is left to the staff, who upload it, as the
 * server must sum a file it received.
 */
const SUPPLIERS: readonly {
  part: OtaPart
  name: string
  supplierCode: string
  iotCode: string
  contact: string
  products: readonly { name: string; productCode: string; hardwareRevision: string; remark: string }[]
}[] = [
  {
    part: 'iot',
    name: 'Quectel Wireless Solutions',
    supplierCode: 'QC',
    iotCode: 'Q',
    contact: 'IoT module support, Shanghai',
    products: [{ name: 'EC200U 4G Cat 1 module', productCode: 'EC', hardwareRevision: 'R1.2', remark: 'LTE Cat 1 with GNSS; the Velo 4G box' }],
  },
  {
    part: 'display',
    name: 'Bafang',
    supplierCode: 'BF',
    iotCode: 'B',
    contact: 'OEM service, Suzhou',
    products: [{ name: 'DP C18 colour display', productCode: 'DC', hardwareRevision: 'V2.1', remark: 'UART, 2.2 inch colour' }],
  },
  {
    part: 'display',
    name: 'King Meter',
    supplierCode: 'KM',
    iotCode: 'K',
    contact: 'Sales engineering, Changzhou',
    products: [{ name: 'SW102 mini display', productCode: 'SW', hardwareRevision: 'H1', remark: 'Handlebar-mounted, monochrome' }],
  },
  {
    part: 'bms',
    name: 'Greenway Battery',
    supplierCode: 'GW',
    iotCode: 'G',
    contact: 'Battery pack engineering, Dongguan',
    products: [{ name: '36V 14Ah pack BMS', productCode: 'GB', hardwareRevision: 'BQ76952-A', remark: 'TI BQ76952 monitor: CRC-8/SMBUS images' }],
  },
  {
    part: 'ecu',
    name: 'Bafang',
    supplierCode: 'BF',
    iotCode: 'B',
    contact: 'OEM service, Suzhou',
    products: [{ name: 'M510 mid-drive controller', productCode: 'MC', hardwareRevision: 'H3', remark: 'CAN bus, torque sensor' }],
  },
  {
    part: 'ecu',
    name: 'Shengyi',
    supplierCode: 'SY',
    iotCode: 'S',
    contact: 'Motor controller support, Suzhou',
    products: [{ name: 'X1 hub motor controller', productCode: 'SX', hardwareRevision: 'H2', remark: 'Rear hub, sine wave' }],
  },
]

/** Writes the suppliers and products, entered from `entered` on (a day apart); answers the rows written per table. */
export async function writeOtaCatalogue(tx: Db, dialect: Dialect, o: { entered: number; mark: string }): Promise<Record<string, number>> {
  const audit = ['create_by', 'create_time', 'update_by', 'update_time', 'remark'] as const
  const suppliers = new TableWriter(tx, dialect, 'ota_supplier', ['supplier_id', 'part_kind', 'name', 'supplier_code', 'iot_code', 'contact', ...audit])
  const products = new TableWriter(tx, dialect, 'ota_product', ['product_id', 'part_kind', 'supplier_id', 'name', 'product_code', 'hardware_revision', ...audit])
  let productId = 0
  for (const [i, s] of SUPPLIERS.entries()) {
    const time = new Date(o.entered + i * DAY).toISOString()
    const supplierId = i + 1
    await suppliers.add(supplierId, s.part, s.name, s.supplierCode, s.iotCode, s.contact, o.mark, time, '', null, '')
    for (const p of s.products) await products.add(++productId, s.part, supplierId, p.name, p.productCode, p.hardwareRevision, o.mark, time, '', null, p.remark)
  }
  await suppliers.flush()
  await products.flush()
  return { ota_supplier: suppliers.written, ota_product: products.written }
}
