import { badSerialRange, iotEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { newRegistrationKey } from '../../gateway/device-auth'
import { BusinessType } from '../../platform/audit/operation-log'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { idParam } from '../../platform/crud/schemas'
import { ok } from '../../platform/envelope'
import { badRequest, conflict, notFound } from '../../platform/errors'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { registrationKeySchema } from './schemas'

/**
 * IoT models (SPEC §3): the entity's routes, with a registration key made on add, shown and reset
 * only through its own routes (it is never listed), and no deleting a model devices still use.
 */
export function registerModels(app: FastifyInstance, services: Services) {
  const { iotModel } = iotEntities
  const { db } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = [iotModel.label.en_US]

  /** A range that could hold no SN (ends of two lengths, or backwards) is a typing error, not a way to say none. */
  const assertSerialRanges = (values: Record<string, unknown>) => {
    const bad = values.registrationSerials === undefined ? null : badSerialRange(String(values.registrationSerials))
    if (bad) throw badRequest('iot.model.badSerialRange', { range: bad }, { errors: [{ field: 'registrationSerials' }] })
  }

  registerEntityRoutes(app, services, iotModel, {
    beforeCreate: async ({ values, columns }) => {
      assertSerialRanges(values)
      columns.registrationKey = newRegistrationKey()
    },
    beforeUpdate: async ({ values }) => assertSerialRanges(values),
    beforeDelete: async ({ tx, rows }) => {
      for (const model of rows) {
        const used = await tx
          .selectFrom('iotDevice')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('modelId', '=', Number(model.modelId))
          .executeTakeFirstOrThrow()
        if (Number(used.count) > 0) throw conflict('iot.model.inUse', { name: String(model.name), count: Number(used.count) })
      }
    },
    // A disabled model's devices cannot connect again; the ones connected now are let go at once.
    afterCommit: async (change) => {
      if (change.op !== 'update' || change.after.status === '0' || change.before.status !== '0') return
      const devices = await db.selectFrom('iotDevice').select('sn').where('modelId', '=', Number(change.after.modelId)).execute()
      for (const d of devices) app.iot.kick(d.sn)
    },
  })

  const keyOf = async (modelId: number) => {
    const row = await db.selectFrom('iotModel').select('registrationKey').where('modelId', '=', modelId).executeTakeFirst()
    if (!row) throw notFound()
    return { registrationKey: row.registrationKey }
  }

  api.get(
    '/iot/model/:id/registrationKey',
    {
      config: { permission: 'iot:model:edit', stepUp: true },
      schema: { tags, summary: "The model's registration key (devices sign their self-registration with it)", params: idParam, response: { 200: envelope(registrationKeySchema) } },
    },
    async (req) => keyOf(req.params.id),
  )

  api.put(
    '/iot/model/:id/registrationKey',
    {
      config: { permission: 'iot:model:edit', stepUp: true, audit: { module: iotModel.label.en_US, businessType: BusinessType.update } },
      schema: {
        tags,
        summary: 'Issue a new registration key (the old one stops working; registered devices keep their secrets)',
        params: idParam,
        response: { 200: envelope(registrationKeySchema) },
      },
    },
    async (req) => {
      const registrationKey = newRegistrationKey()
      const result = await db
        .updateTable('iotModel')
        .set({ registrationKey, updateBy: req.auth?.userName ?? '', updateTime: new Date().toISOString() })
        .where('modelId', '=', req.params.id)
        .executeTakeFirst()
      if (Number(result.numUpdatedRows) === 0) throw notFound()
      return ok({ registrationKey }, 'iot.model.keyReset')
    },
  )
}
