import { compareVersions, OTA_PARTS, otaEntities, type OtaPart, type ResolvedEntity, versionNumber } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../../platform/crud/routes'
import { sameValue } from '../../../platform/crud/states'
import { badRequest, conflict } from '../../../platform/errors'
import type { Services } from '../../../platform/services'
import type { Crc8Name } from '../../../platform/files/crc8'
import { AUDIO_CRC8, digestsOf, PART_CRC8, type StoredDigests } from './digests'
import { type Db, dynamicDb } from '../../../db/database'

type Row = Record<string, unknown>

const FIRMWARE: Record<OtaPart, ResolvedEntity> = {
  iot: otaEntities.iotFirmware,
  display: otaEntities.displayFirmware,
  bms: otaEntities.bmsFirmware,
  ecu: otaEntities.ecuFirmware,
}

const FILE_FIELD = 'file'

const blank = (v: unknown) => v === undefined || v === null || v === ''

/**
 * The catalogue's rules (issue 18): a firmware or audio file is known by the digests the server
 * computed, never by what a form claims. A declared CRC8 that differs from the file's is refused and
 * an empty one is filled in; the size, SHA-256 (and audio's MD5) are the upload's. Firmware versions
 * compare numerically, one product has each version once, and a firmware or audio a campaign outside
 * draft names never changes nor goes (docs/ota.md › Approval binds). Suppliers and products are
 * served by the engine alone.
 */
export function registerOtaCatalogue(api: FastifyInstance, services: Services) {
  const postgres = services.dialect === 'postgres'

  /** The file's digests, refusing a declared CRC8 that differs; `declared` blank means "compute it". */
  const checkedDigests = async (tx: Db, entity: ResolvedEntity, fileName: string, variant: Crc8Name, declared: unknown): Promise<StoredDigests> => {
    const field = entity.fieldMap.get(FILE_FIELD)!
    const digests = await digestsOf(tx, services.storage, { entity: entity.key, field: FILE_FIELD, fileName, variant })
    if (!digests) throw badRequest('file.notUploaded', { fieldEn: field.label.en_US, fieldZh: field.label.zh_CN, value: fileName.slice(0, 255) }, { errors: [{ field: FILE_FIELD }] })
    if (!blank(declared) && String(declared).toUpperCase() !== digests.crc8) {
      throw badRequest('ota.crc8Mismatch', { declared: String(declared).toUpperCase(), computed: digests.crc8, variant }, { errors: [{ field: 'crc8' }] })
    }
    return digests
  }

  /**
   * On modify, the CRC8 to check: the one sent, but not when the form sends back the stored value
   * beside a new file (that was the old file's CRC8, not a claim about the new one).
   */
  const declaredOnModify = (before: Row, values: Row) => {
    const fileChanged = values.file !== undefined && values.file !== before.file
    const declared = values.crc8 === undefined ? (fileChanged ? '' : before.crc8) : values.crc8
    return fileChanged && declared === before.crc8 ? '' : declared
  }

  for (const part of OTA_PARTS) {
    const e = FIRMWARE[part]
    const variant = PART_CRC8[part]
    const downloadUrl = (fileName: string) => `${services.config.apiPrefix}${e.path}/file/${FILE_FIELD}/${fileName.split('/').map(encodeURIComponent).join('/')}`

    const setFileColumns = async (tx: Db, values: Row, fileName: string, declared: unknown) => {
      const d = await checkedDigests(tx, e, fileName, variant, declared)
      Object.assign(values, { size: d.size, sha256: d.sha256, crc8: d.crc8, crcVariant: d.crcVariant, downloadUrl: downloadUrl(fileName) })
    }

    /** One product has each custom version once: a device's version then names one image (the product is of this part's slice already). */
    const refuseTakenVersion = async (tx: Db, productId: unknown, version: string, exceptId?: number) => {
      let q = tx
        .selectFrom('otaFirmware')
        .innerJoin('otaProduct', 'otaProduct.productId', 'otaFirmware.productId')
        .select(['otaFirmware.name', 'otaProduct.name as productName'])
        .where('otaFirmware.productId', '=', Number(productId))
        .where('otaFirmware.customVersion', '=', version as never)
      if (exceptId !== undefined) q = q.where('otaFirmware.firmwareId', '<>', exceptId)
      const taken = await q.executeTakeFirst()
      if (taken) throw conflict('ota.firmware.versionTaken', { product: taken.productName, version, name: taken.name }, 'customVersion')
    }

    /** Empty hardware revisions: the product's; kept as given otherwise. */
    const fillHardwareRevisions = async (tx: Db, values: Row, productId: unknown) => {
      const product = await tx.selectFrom('otaProduct').select('hardwareRevision').where('productId', '=', Number(productId)).executeTakeFirst()
      if (product) values.hardwareRevisions = product.hardwareRevision
    }

    registerEntityRoutes(api, services, e, {
      beforeCreate: async ({ tx, values, columns }) => {
        const t = tx
        await refuseTakenVersion(t, values.productId, String(values.customVersion))
        await setFileColumns(t, values, String(values.file), values.crc8)
        if (blank(values.hardwareRevisions)) await fillHardwareRevisions(t, values, values.productId)
        values.minAppVersion = await minAppVersionOf(t, (values.functionIds as number[] | undefined) ?? [])
        columns.versionNumber = versionNumber(String(values.customVersion))
      },
      beforeUpdate: async ({ tx, before, values }) => {
        const t = tx
        await refuseChangeInUse(t, postgres, e, FIRMWARE_USE, before, values)
        const row = { ...before, ...values }
        if (values.customVersion !== undefined || values.productId !== undefined) await refuseTakenVersion(t, row.productId, String(row.customVersion), Number(before.firmwareId))
        if (values.file !== undefined || values.crc8 !== undefined) await setFileColumns(t, values, String(row.file), declaredOnModify(before, values))
        if (blank(row.hardwareRevisions) && (values.hardwareRevisions !== undefined || values.productId !== undefined)) await fillHardwareRevisions(t, values, row.productId)
        if (values.functionIds !== undefined) values.minAppVersion = await minAppVersionOf(t, values.functionIds as number[])
      },
      afterUpdate: async ({ tx, before, after }) => {
        if (after.customVersion === before.customVersion) return
        await tx
          .updateTable('otaFirmware')
          .set({ versionNumber: versionNumber(String(after.customVersion)) })
          .where('firmwareId', '=', Number(after.firmwareId))
          .execute()
      },
      beforeDelete: async ({ tx, rows }) => refuseUsed(tx, FIRMWARE_USE, rows),
    })
  }

  const audio = otaEntities.iotAudio
  const setAudioColumns = async (tx: Db, values: Row, fileName: string, declared: unknown) => {
    const d = await checkedDigests(tx, audio, fileName, AUDIO_CRC8, declared)
    Object.assign(values, { size: d.size, md5: d.md5, sha256: d.sha256, crc8: d.crc8 })
  }
  /** One IoT name has each version once: the status a device reports (name → version) then names one file. */
  const refuseTakenAudioVersion = async (tx: Db, iotName: string, version: string, exceptId?: number) => {
    let q = tx.selectFrom('iotAudio').select('appName').where('iotName', '=', iotName).where('version', '=', version as never)
    if (exceptId !== undefined) q = q.where('audioId', '<>', exceptId)
    const taken = await q.executeTakeFirst()
    if (taken) throw conflict('ota.audio.versionTaken', { iotName, version, name: taken.appName }, 'version')
  }
  registerEntityRoutes(api, services, audio, {
    beforeCreate: async ({ tx, values }) => {
      await refuseTakenAudioVersion(tx, String(values.iotName), String(values.version))
      await setAudioColumns(tx, values, String(values.file), values.crc8)
    },
    beforeUpdate: async ({ tx, before, values }) => {
      const t = tx
      await refuseChangeInUse(t, postgres, audio, AUDIO_USE, before, values)
      if (values.iotName !== undefined || values.version !== undefined) {
        await refuseTakenAudioVersion(t, String(values.iotName ?? before.iotName), String(values.version ?? before.version), Number(before.audioId))
      }
      if (values.file !== undefined || values.crc8 !== undefined) await setAudioColumns(t, values, String(values.file ?? before.file), declaredOnModify(before, values))
    },
    beforeDelete: async ({ tx, rows }) => refuseUsed(tx, AUDIO_USE, rows),
  })

}

/** The highest minimum app version its functions ask for (null when none asks for one). */
async function minAppVersionOf(tx: Db, functionIds: readonly number[]): Promise<string | null> {
  if (!functionIds.length) return null
  const rows = await tx.selectFrom('iotFunction').select('minAppVersion').where('functionId', 'in', [...functionIds]).execute()
  const versions = rows.flatMap((r) => (blank(r.minAppVersion) ? [] : [String(r.minAppVersion)]))
  return versions.reduce<string | null>((highest, v) => (highest === null || compareVersions(v, highest) > 0 ? v : highest), null)
}

/** How a campaign names an image: the column, the payload that uses it, and the refusals that name it. */
interface ImageUse {
  column: 'firmwareId' | 'audioId'
  table: 'otaFirmware' | 'iotAudio'
  /** The row's name in a refusal. */
  nameField: 'name' | 'appName'
  audio: boolean
  inUse: 'ota.firmware.inUse' | 'ota.audio.inUse'
  locked: 'ota.firmware.locked' | 'ota.audio.locked'
}
const FIRMWARE_USE: ImageUse = { column: 'firmwareId', table: 'otaFirmware', nameField: 'name', audio: false, inUse: 'ota.firmware.inUse', locked: 'ota.firmware.locked' }
const AUDIO_USE: ImageUse = { column: 'audioId', table: 'iotAudio', nameField: 'appName', audio: true, inUse: 'ota.audio.inUse', locked: 'ota.audio.locked' }

/**
 * The first campaign outside draft that deploys one of these images: submitted, it binds them (what
 * was approved, what devices were sent); finished or cancelled, it still documents what went out. A
 * draft holds nothing yet. An IoT campaign deploys either its firmware or its audio (payload).
 */
async function campaignUsing(tx: Db, use: ImageUse, ids: number[]) {
  return tx
    .selectFrom('otaCampaign')
    .select(['name', use.column])
    .where(use.column, 'in', ids)
    .where('status', '<>', 'draft' as never)
    .where('payload', use.audio ? '=' : '<>', 'audio' as never)
    .orderBy('campaignId')
    .executeTakeFirst()
}

/** A firmware or audio such a campaign deploys is part of its record: it is not deleted while the campaign exists. */
async function refuseUsed(tx: Db, use: ImageUse, rows: Row[]) {
  const used = await campaignUsing(
    tx,
    use,
    rows.map((r) => Number(r[use.column])),
  )
  if (!used) return
  const row = rows.find((r) => Number(r[use.column]) === Number(used[use.column]))
  throw conflict(use.inUse, { name: String(row?.[use.nameField] ?? used[use.column]), campaign: used.name })
}

/**
 * Nor does it change (docs/ota.md › Approval binds): a modify that would change any of its values,
 * its file above all, is refused (409) naming the campaign; a new image is a new version. Values sent
 * back unchanged (a form sends every field) change nothing and pass. On PostgreSQL its row is locked
 * first, as a submit locks it before binding its digest: of a modify and a submit at once, either
 * the modify goes first and the submit binds the new image, or the submit does and the modify is refused.
 */
async function refuseChangeInUse(tx: Db, postgres: boolean, e: ResolvedEntity, use: ImageUse, before: Row, values: Row) {
  const id = Number(before[e.idField])
  // The image's table, as its definition (e) names it for the generic engine.
  const table: string = use.table
  if (postgres) await dynamicDb(tx).selectFrom(table).select(e.idField).where(e.idField, '=', id).forUpdate().execute()
  const used = await campaignUsing(tx, use, [id])
  if (!used) return
  for (const [name, value] of Object.entries(values)) {
    const f = e.fieldMap.get(name)
    if (!f) continue
    const stored =
      f.kind === 'referenceMany'
        ? (await dynamicDb(tx).selectFrom(f.through.table).select(f.through.to).where(f.through.from, '=', id).execute()).map((r) => Number(r[f.through.to]))
        : before[name]
    if (!sameValue(f, value, stored)) throw conflict(use.locked, { name: String(before[use.nameField] ?? id), campaign: used.name }, name)
  }
}
