import type { Kysely } from 'kysely'
import type { Db } from '../../../db/database'
import type { Database } from '../../../db/schema'

// The columns the transfer reads, written out: the OTA definitions are built per part by functions,
// so their row types cannot be inferred from them (TableOf needs literal definitions).

interface FirmwareColumns {
  firmwareId: number
  file: string
  customVersion: string
  productId: number
  hardwareRevisions: string
}
interface ProductColumns {
  productId: number
  supplierId: number
  productCode: string
  hardwareRevision: string
}
interface SupplierColumns {
  supplierId: number
  supplierCode: string
}
interface AudioColumns {
  audioId: number
  file: string
  version: string
  iotName: string
}
interface CampaignColumns {
  campaignId: number
  payload: string
  firmwareId: number | null
  audioId: number | null
  imageSha256: string
  imageSize: number | null
}
interface CampaignDeviceColumns {
  upgradeId: number
  campaignId: number
  deviceId: number
  attempt: number | null
  state: string
}

export interface TransferTables {
  otaFirmware: FirmwareColumns
  otaProduct: ProductColumns
  otaSupplier: SupplierColumns
  iotAudio: AudioColumns
  otaCampaign: CampaignColumns
  otaCampaignDevice: CampaignDeviceColumns
}
export type TransferDb = Kysely<Database & TransferTables>

export const transferDb = (db: Db | Kysely<never>): TransferDb => db as unknown as TransferDb
