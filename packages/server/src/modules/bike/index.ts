import { bikeEntities, type EnumOption, type ResolvedEntity } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest, conflict } from '../../platform/errors'
import type { Services } from '../../platform/services'
import { label, merged, registerModelSpecs } from './models'
import { recordBikeEvent } from './records'

export { bikeByFrameNumber, recordBikeEvent, type BikeEvent, type BikeEventKind } from './records'

const { bike, bikeModel, bikePicture, modelColour, modelSize } = bikeEntities

type Row = Record<string, unknown>

const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === ''

/** A colour or size is one of the row's model's (400 naming the field). The references exist: the engine checked them. */
async function refuseOtherModels(tx: Kysely<any>, e: ResolvedEntity, row: Row, specs: readonly (readonly [field: string, spec: ResolvedEntity])[]) {
  for (const [field, spec] of specs) {
    const id = row[field]
    if (id === null || id === undefined) continue
    const found = await tx.selectFrom(spec.table).select(['modelId', 'name']).where(spec.idField, '=', id).executeTakeFirst()
    if (!found || Number(found.modelId) === Number(row.modelId)) continue
    const model = await tx.selectFrom(bikeModel.table).select('name').where(bikeModel.idField, '=', row.modelId).executeTakeFirst()
    const f = label(e, field)
    throw badRequest('bike.notOfModel', { fieldEn: f.en_US, fieldZh: f.zh_CN, value: String(found.name), model: String(model?.name ?? row.modelId) }, { errors: [{ field }] })
  }
}

/** A replacement frame number says why (the form shows the reason only then; the engine has no "required when"). */
function refuseMissingReason(row: Row) {
  if (row.frameType !== 'replacement' || !blank(row.replacementReason)) return
  const f = label(bike, 'replacementReason')
  throw badRequest('bike.reasonRequired', { fieldEn: f.en_US, fieldZh: f.zh_CN }, { errors: [{ field: 'replacementReason' }] })
}

/** An IoT device is fitted to one bike at a time. */
async function refuseFittedDevice(tx: Kysely<any>, row: Row, exceptId?: unknown) {
  if (row.iotDeviceId === null || row.iotDeviceId === undefined) return
  let q = tx.selectFrom(bike.table).select('frameNumber').where('iotDeviceId', '=', row.iotDeviceId)
  if (exceptId !== undefined) q = q.where(bike.idField, '<>', exceptId)
  const other = await q.executeTakeFirst()
  if (!other) return
  const device = await tx.selectFrom('iotDevice').select('sn').where('deviceId', '=', row.iotDeviceId).executeTakeFirst()
  throw conflict('bike.deviceFitted', { device: String(device?.sn ?? row.iotDeviceId), frameNumber: String(other.frameNumber) }, 'iotDeviceId')
}

/** The bind status an unbound bike has, as the engine's `when` refusal names it. */
const UNBOUND = (bike.fieldMap.get('bindStatus') as { options: readonly EnumOption[] }).options.find((o) => o.value === 'unbound')!

const BIKE_SPECS = [
  ['colourId', modelColour],
  ['sizeId', modelSize],
] as const

async function checkBike(tx: Kysely<any>, row: Row, exceptId?: unknown) {
  refuseMissingReason(row)
  await refuseOtherModels(tx, bike, row, BIKE_SPECS)
  await refuseFittedDevice(tx, row, exceptId)
}

/**
 * Bikes › Bikes, pictures and the model specs. The engine serves the pages from the definitions;
 * here are the rules between rows (a colour of the bike's model, one bike per device, no deleting a
 * bound bike or a spec in use), the `unbind` action, and the vehicle records the changes write.
 */
export function registerBikes(app: FastifyInstance, services: Services) {
  registerModelSpecs(app, services)

  registerEntityRoutes(app, services, bike, {
    beforeCreate: async ({ tx, values }) => checkBike(tx, values),
    beforeUpdate: async ({ tx, before, values }) => checkBike(tx, merged(before, values), before[bike.idField]),
    afterCreate: async ({ tx, auth, row }) => {
      const bikeId = Number(row.bikeId)
      const frameNumber = String(row.frameNumber)
      await recordBikeEvent(tx, { bikeId, frameNumber, kind: 'produced', by: auth.userName })
      if (row.frameType === 'replacement') await recordBikeEvent(tx, { bikeId, frameNumber, kind: 'frameReplaced', detail: String(row.replacementReason ?? ''), by: auth.userName })
    },
    afterUpdate: async ({ tx, auth, before, after }) => {
      // A frame number replaced on the bike: its earlier records keep the old number.
      const replaced = after.frameType === 'replacement' && (before.frameType !== 'replacement' || before.frameNumber !== after.frameNumber)
      if (replaced) await recordBikeEvent(tx, { bikeId: Number(after.bikeId), frameNumber: String(after.frameNumber), kind: 'frameReplaced', detail: String(after.replacementReason ?? ''), memberId: (after.memberId as number | null) ?? null, by: auth.userName })
    },
    // Bulk deletes are all or nothing: one bound bike among the ids refuses them all.
    beforeDelete: async ({ rows }) => {
      const bound = rows.find((r) => r.bindStatus === 'bound' || (r.memberId !== null && r.memberId !== undefined))
      if (bound) throw conflict('bike.boundNoDelete')
    },
    actions: {
      unbind: async ({ tx, auth, action, rows }) => {
        const row = rows[0]!
        const bikeId = Number(row.bikeId)
        const memberId = row.memberId === null || row.memberId === undefined ? null : Number(row.memberId)
        const now = new Date()
        // Only from the binding just read: of two unbinds at once, one does it and the other is refused.
        const done = await tx
          .updateTable(bike.table)
          .set({ memberId: null, boundTime: null, bindStatus: 'unbound', defaultBike: 0, updateBy: auth.userName, updateTime: now.toISOString() })
          .where(bike.idField, '=', bikeId)
          .where('bindStatus', '=', 'bound')
          .executeTakeFirst()
        if (Number(done.numUpdatedRows) === 0) {
          const unbound = UNBOUND.label
          throw conflict('action.notNow', { actionEn: action.label.en_US, actionZh: action.label.zh_CN, valueEn: unbound.en_US, valueZh: unbound.zh_CN })
        }
        if (memberId !== null) {
          // The member's bind status follows their bikes: unbound once none is left bound to them.
          const left = await tx.selectFrom(bike.table).select(bike.idField).where('memberId', '=', memberId).where('bindStatus', '=', 'bound').executeTakeFirst()
          if (!left) await tx.updateTable('memMember').set({ bindStatus: 'unbound' }).where('memberId', '=', memberId).execute()
        }
        await recordBikeEvent(tx, { bikeId, frameNumber: String(row.frameNumber), kind: 'unbound', memberId, by: auth.userName, at: now })
        return { ...row, memberId: null, memberIdLabel: null, boundTime: null, bindStatus: 'unbound', defaultBike: false }
      },
    },
  })

  registerEntityRoutes(app, services, bikePicture, {
    beforeCreate: async ({ tx, values }) => refuseOtherModels(tx, bikePicture, values, [['colourId', modelColour]]),
    beforeUpdate: async ({ tx, before, values }) => refuseOtherModels(tx, bikePicture, merged(before, values), [['colourId', modelColour]]),
  })
}
