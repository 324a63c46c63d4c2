import { apiRowSchema, systemEntities, type ApiRowOf } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest, conflict } from '../../platform/errors'
import { SIGNED_IN } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { envelope } from '../../platform/responses'

/** One enabled item of a dictionary type, as every list cell and select reads it. */
const dictItemFields = {
  dictCode: true,
  dictSort: true,
  dictLabel: true,
  dictLabelZh: true,
  dictValue: true,
  dictType: true,
  cssClass: true,
  listClass: true,
  isDefault: true,
  status: true,
} as const
const dictItemSchema = apiRowSchema(systemEntities.dictData).pick(dictItemFields) as unknown as z.ZodType<
  Pick<ApiRowOf<typeof systemEntities.dictData>, keyof typeof dictItemFields>
>

/** Dictionary types and their items (SPEC §7: /system/dict/*, items under /system/dict/data/*). */
export function registerDictionaries(app: FastifyInstance, services: Services) {
  const { db } = services
  const api = app.withTypeProvider<ZodTypeProvider>()

  // Static segments are matched before /:id, so these live beside the standard routes.
  api.get(
    '/system/dict/getDicts/:type',
    {
      config: { permission: SIGNED_IN },
      schema: {
        tags: ['Dictionary'],
        summary: 'The enabled items of a dictionary type, in order',
        params: z.object({ type: z.string().max(100) }),
        response: { 200: envelope(z.array(dictItemSchema)) },
      },
    },
    async (req) =>
      db
        .selectFrom('sysDictData')
        .select(['dictCode', 'dictSort', 'dictLabel', 'dictLabelZh', 'dictValue', 'dictType', 'cssClass', 'listClass', 'isDefault', 'status'])
        .where('dictType', '=', req.params.type)
        .where('status', '=', '0')
        .orderBy('dictSort')
        .orderBy('dictCode')
        .execute(),
  )

  registerEntityRoutes(app, services, systemEntities.dictData, {
    beforeCreate: async ({ tx, values }) => {
      const type = await tx.selectFrom('sysDictType').select('dictId').where('dictType', '=', values.dictType as string).executeTakeFirst()
      if (!type) throw badRequest('dict.typeMissing', { dictType: String(values.dictType) })
      const same = await tx
        .selectFrom('sysDictData')
        .select('dictCode')
        .where('dictType', '=', values.dictType as string)
        .where('dictValue', '=', values.dictValue as string)
        .executeTakeFirst()
      if (same) throw conflict('error.unique', { fieldEn: 'Value', fieldZh: '字典键值', value: String(values.dictValue) })
    },
    beforeUpdate: async ({ tx, before, values }) => {
      const dictType = values.dictType ?? before.dictType
      const dictValue = values.dictValue ?? before.dictValue
      const type = await tx.selectFrom('sysDictType').select('dictId').where('dictType', '=', dictType as string).executeTakeFirst()
      if (!type) throw badRequest('dict.typeMissing', { dictType: String(dictType) })
      const same = await tx
        .selectFrom('sysDictData')
        .select('dictCode')
        .where('dictType', '=', dictType as string)
        .where('dictValue', '=', dictValue as string)
        .where('dictCode', '<>', before.dictCode as number)
        .executeTakeFirst()
      if (same) throw conflict('error.unique', { fieldEn: 'Value', fieldZh: '字典键值', value: String(dictValue) })
    },
  })

  registerEntityRoutes(app, services, systemEntities.dictType, {
    // Renaming a type carries its items along.
    afterUpdate: async ({ tx, before, after }) => {
      if (before.dictType !== after.dictType) {
        await tx.updateTable('sysDictData').set({ dictType: after.dictType as string }).where('dictType', '=', before.dictType as string).execute()
      }
    },
    beforeDelete: async ({ tx, rows }) => {
      for (const row of rows) {
        const used = await tx.selectFrom('sysDictData').select('dictCode').where('dictType', '=', row.dictType as string).executeTakeFirst()
        if (used) throw conflict('dict.typeInUse', { dictType: String(row.dictType) })
      }
    },
  })
}
