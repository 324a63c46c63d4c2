import { bikeEntities, type EnumOption, type Language } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest, conflict } from '../../platform/errors'
import { t } from '../../platform/i18n'
import { registerErasureUnbind } from '../../platform/privacy/erasure'
import type { Services } from '../../platform/services'
import { bindNumber, type NumberForBike, numberForBike, releaseFrameNumber } from '../order/numbers'
import { label, merged, registerModelSpecs } from './models'
import { recordBikeEvent } from './records'
import type { Db } from '../../db/database'

export { bikeByFrameNumber, recordBikeEvent, type BikeEvent, type BikeEventKind } from './records'

const { bike, bikePicture } = bikeEntities

type Row = Record<string, unknown>

const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === ''

/** A replacement frame number says why (the form shows the reason only then; the engine has no "required when"). */
function refuseMissingReason(row: Row) {
  if (row.frameType !== 'replacement' || !blank(row.replacementReason)) return
  const f = label(bike, 'replacementReason')
  throw badRequest('bike.reasonRequired', { fieldEn: f.en_US, fieldZh: f.zh_CN }, { errors: [{ field: 'replacementReason' }] })
}

/** An IoT device is fitted to one bike at a time. */
async function refuseFittedDevice(tx: Db, row: Row, exceptId?: unknown) {
  if (row.iotDeviceId === null || row.iotDeviceId === undefined) return
  let q = tx.selectFrom(bike.table).select('frameNumber').where('iotDeviceId', '=', row.iotDeviceId as number)
  if (exceptId !== undefined) q = q.where(bike.idField, '<>', exceptId as number)
  const other = await q.executeTakeFirst()
  if (!other) return
  const device = await tx.selectFrom('iotDevice').select('sn').where('deviceId', '=', row.iotDeviceId as number).executeTakeFirst()
  throw conflict('bike.deviceFitted', { device: String(device?.sn ?? row.iotDeviceId), frameNumber: String(other.frameNumber) }, 'iotDeviceId')
}

/** The unbind action's reasons, as its input offers them. */
const UNBIND_REASONS = (bike.actions!.find((a) => a.name === 'unbind')!.input!.find((f) => f.name === 'reason') as { options: readonly EnumOption[] }).options

/**
 * Why a bike was unbound, as its vehicle record keeps it, in the caller's language ("Stolen or lost:
 * reported to the police"). Other says nothing alone: it needs the note (400 naming it, nothing changed).
 */
function unbindReason(input: Row, lang: Language): string {
  const option = UNBIND_REASONS.find((o) => o.value === input.reason)!
  if (option.value === 'other' && blank(input.note)) {
    const f = bike.actions!.find((a) => a.name === 'unbind')!.input!.find((i) => i.name === 'note')!.label
    throw badRequest('bike.unbindNoteRequired', { fieldEn: f.en_US, fieldZh: f.zh_CN, reasonEn: option.label.en_US, reasonZh: option.label.zh_CN }, { errors: [{ field: 'note' }] })
  }
  return blank(input.note) ? option.label[lang] : `${option.label[lang]}: ${String(input.note).trim()}`
}

/** The bind status an unbound bike has, as the engine's `when` refusal names it. */
const UNBOUND = (bike.fieldMap.get('bindStatus') as { options: readonly EnumOption[] }).options.find((o) => o.value === 'unbound')!

/**
 * Unbinds a bike from its member, as the unbind action and a rider's erasure do: the member's bind
 * status follows their bikes, the fitted device's bind state follows the bike's, and the vehicle
 * record keeps why and the member it was bound to. Only from the binding just read: of two unbinds
 * at once, one does it (true) and the other changes nothing (false).
 */
export async function unbindBike(tx: Db, row: Row, reason: string, by: string): Promise<boolean> {
  const bikeId = Number(row.bikeId)
  const memberId = row.memberId === null || row.memberId === undefined ? null : Number(row.memberId)
  const now = new Date()
  const done = await tx
    .updateTable(bike.table)
    .set({ memberId: null, boundTime: null, bindStatus: 'unbound', defaultBike: 0, updateBy: by, updateTime: now.toISOString() })
    .where(bike.idField, '=', bikeId)
    .where('bindStatus', '=', 'bound')
    .executeTakeFirst()
  if (Number(done.numUpdatedRows) === 0) return false
  if (memberId !== null) {
    // The member's bind status follows their bikes: unbound once none is left bound to them.
    const left = await tx.selectFrom(bike.table).select(bike.idField).where('memberId', '=', memberId).where('bindStatus', '=', 'bound').executeTakeFirst()
    if (!left) await tx.updateTable('memMember').set({ bindStatus: 'unbound' }).where('memberId', '=', memberId).execute()
  }
  // The fitted device stays on the bike (and reports on); its bind state follows the bike's.
  // Its warnings went to the bike's member (iot/warnings/notify.ts): now there is none to tell.
  if (row.iotDeviceId !== null && row.iotDeviceId !== undefined) {
    await tx.updateTable('iotDevice').set({ bindState: 'unbound' }).where('deviceId', '=', row.iotDeviceId as number).execute()
  }
  await recordBikeEvent(tx, { bikeId, frameNumber: String(row.frameNumber), kind: 'unbound', detail: reason, memberId, by, at: now })
  return true
}

async function checkBike(tx: Db, row: Row, exceptId?: unknown) {
  refuseMissingReason(row)
  await refuseFittedDevice(tx, row, exceptId)
}

/**
 * Bikes › Bikes, pictures and the model specs. The engine serves the pages from the definitions;
 * here are the rules between rows (one bike per device, no deleting a
 * bound bike or a spec in use), the `unbind` action, and the vehicle records the changes write.
 */
export function registerBikes(app: FastifyInstance, services: Services) {
  registerModelSpecs(app, services)

  // A rider's erasure unbinds their bikes as the unbind action does: the record says why and by whom.
  registerErasureUnbind('bike', async ({ tx, rows, by, lang }) => {
    for (const row of rows) await unbindBike(tx, row, t(lang, 'privacy.erasure.bikeUnbound'), by)
  })
  registerEntityRoutes(app, services, bike, {
    beforeCreate: async ({ tx, values, columns, context }) => {
      await checkBike(tx, values)
      // A generated number (not a voided one): the bike belongs to its order, and binds the number once added.
      const number = await numberForBike(tx, String(values.frameNumber))
      columns.orderId = number?.orderId ?? null
      context.frameNumber = number
    },
    beforeUpdate: async ({ tx, before, values, context }) => {
      await checkBike(tx, merged(before, values), before[bike.idField])
      if (values.frameNumber === undefined || values.frameNumber === before.frameNumber) return
      const number = await numberForBike(tx, String(values.frameNumber))
      values.orderId = number?.orderId ?? null
      context.frameNumber = number
    },
    afterCreate: async ({ tx, auth, row, context }) => {
      const bikeId = Number(row.bikeId)
      const frameNumber = String(row.frameNumber)
      if (context.frameNumber) await bindNumber(tx, context.frameNumber as NumberForBike, bikeId)
      await recordBikeEvent(tx, { bikeId, frameNumber, kind: 'produced', by: auth.userName })
      if (row.frameType === 'replacement') await recordBikeEvent(tx, { bikeId, frameNumber, kind: 'frameReplaced', detail: String(row.replacementReason ?? ''), by: auth.userName })
    },
    afterUpdate: async ({ tx, auth, before, after, context }) => {
      if (before.frameNumber !== after.frameNumber) {
        await releaseFrameNumber(tx, String(before.frameNumber), Number(before.bikeId))
        if (context.frameNumber) await bindNumber(tx, context.frameNumber as NumberForBike, Number(after.bikeId))
      }
      // A frame number replaced on the bike: its earlier records keep the old number.
      const replaced = after.frameType === 'replacement' && (before.frameType !== 'replacement' || before.frameNumber !== after.frameNumber)
      if (replaced) await recordBikeEvent(tx, { bikeId: Number(after.bikeId), frameNumber: String(after.frameNumber), kind: 'frameReplaced', detail: String(after.replacementReason ?? ''), memberId: (after.memberId as number | null) ?? null, by: auth.userName })
    },
    // Bulk deletes are all or nothing: one bound bike among the ids refuses them all.
    beforeDelete: async ({ tx, rows }) => {
      const bound = rows.find((r) => r.bindStatus === 'bound' || (r.memberId !== null && r.memberId !== undefined))
      if (bound) throw conflict('bike.boundNoDelete')
      // Its frame number is free for the bike registered with it next (a bike entered by mistake).
      for (const r of rows) await releaseFrameNumber(tx, String(r.frameNumber), Number(r.bikeId))
    },
    actions: {
      unbind: async ({ tx, auth, action, rows, input, lang }) => {
        const row = rows[0]!
        const reason = unbindReason(input, lang)
        if (!(await unbindBike(tx, row, reason, auth.userName))) {
          const unbound = UNBOUND.label
          throw conflict('action.notNow', { actionEn: action.label.en_US, actionZh: action.label.zh_CN, valueEn: unbound.en_US, valueZh: unbound.zh_CN })
        }
        return { ...row, memberId: null, memberIdLabel: null, boundTime: null, bindStatus: 'unbound', defaultBike: false }
      },
    },
  })

  // A picture's colour is one of its model's: the definition says so (within), the engine checks it.
  registerEntityRoutes(app, services, bikePicture)
}
