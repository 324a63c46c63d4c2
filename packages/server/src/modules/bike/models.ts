import { bikeEntities, type FieldDef, type ResolvedEntity } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest, conflict } from '../../platform/errors'
import type { Services } from '../../platform/services'
import { type Db, dynamicDb } from '../../db/database'

const { bike, bikeModel, bikePicture, modelColour, modelSize } = bikeEntities

type Row = Record<string, unknown>

/** The row as a write leaves it: the values sent over the row as it was. */
export const merged = (before: Row, values: Row) => ({ ...before, ...Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) })

export const label = (e: ResolvedEntity, field: string) => (e.fieldMap.get(field) as FieldDef).label

/** Rows of a table whose column holds one of the ids. */
async function countWhere(tx: Db, e: ResolvedEntity, column: string, ids: unknown[]): Promise<number> {
  if (!ids.length) return 0
  const row = await dynamicDb(tx)
    .selectFrom(e.table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column, 'in', ids)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The bikes and pictures that use a model, colour or size: it cannot be deleted, nor a colour or size moved to another model. */
async function refuseInUse(tx: Db, what: ResolvedEntity, row: Row, column: string, pictures: boolean, key: 'bike.spec.inUse' | 'bike.spec.modelFixed') {
  const id = row[what.idField]
  const names = { whatEn: what.singular.en_US, whatZh: what.singular.zh_CN, name: String(row[what.labelField] ?? id) }
  const bikes = await countWhere(tx, bike, column, [id])
  if (bikes) throw conflict(key, { ...names, count: bikes, usedEn: 'bike', usedZh: '辆车' })
  const shown = pictures ? await countWhere(tx, bikePicture, column, [id]) : 0
  if (shown) throw conflict(key, { ...names, count: shown, usedEn: 'picture', usedZh: '张车辆图片' })
}

/**
 * A colour's or size's code is unique within its model (the unique index's rule, answered as 409
 * naming the field before the database refuses it), as dictionary items' values within their type.
 */
async function refuseTakenCode(tx: Db, e: ResolvedEntity, row: Row, exceptId?: unknown) {
  let q = dynamicDb(tx).selectFrom(e.table).select(e.idField).where('modelId', '=', row.modelId).where('code', '=', row.code)
  if (exceptId !== undefined) q = q.where(e.idField, '<>', exceptId)
  if (!(await q.executeTakeFirst())) return
  const model = await tx.selectFrom(bikeModel.table).select('name').where(bikeModel.idField, '=', row.modelId as number).executeTakeFirst()
  const field = label(e, 'code')
  throw conflict('bike.spec.codeTaken', { fieldEn: field.en_US, fieldZh: field.zh_CN, value: String(row.code), model: String(model?.name ?? row.modelId) }, 'code')
}

/** Each upper bound at least its lower one, where both are given: 400 naming the upper. */
function refuseBadRanges(row: Row, ranges: readonly (readonly [min: string, max: string])[]) {
  for (const [min, max] of ranges) {
    const low = row[min]
    const high = row[max]
    if (low === null || low === undefined || high === null || high === undefined || Number(high) >= Number(low)) continue
    const [minLabel, maxLabel] = [label(modelSize, min), label(modelSize, max)]
    throw badRequest('bike.spec.badRange', { maxEn: maxLabel.en_US, maxZh: maxLabel.zh_CN, minEn: minLabel.en_US, minZh: minLabel.zh_CN }, { errors: [{ field: max }] })
  }
}

const SIZE_RANGES = [
  ['frameSizeMin', 'frameSizeMax'],
  ['riderHeightMin', 'riderHeightMax'],
] as const

/** A model's colour or size: its code unique in the model, and its model fixed while bikes or pictures use it. */
function specHooks(e: ResolvedEntity, pictures: boolean, check: (row: Row) => void = () => {}) {
  const column = e.idField
  return {
    beforeCreate: async ({ tx, values }: { tx: Db; values: Row }) => {
      check(values)
      await refuseTakenCode(tx, e, values)
    },
    beforeUpdate: async ({ tx, before, values }: { tx: Db; before: Row; values: Row }) => {
      const row = merged(before, values)
      check(row)
      if (row.modelId !== before.modelId) await refuseInUse(tx, e, before, column, pictures, 'bike.spec.modelFixed')
      if (row.modelId !== before.modelId || row.code !== before.code) await refuseTakenCode(tx, e, row, before[e.idField])
    },
    beforeDelete: async ({ tx, rows }: { tx: Db; rows: Row[] }) => {
      for (const row of rows) await refuseInUse(tx, e, row, column, pictures, 'bike.spec.inUse')
    },
  }
}

/**
 * Bikes › Model colours and sizes: a model with its colours and sizes. A model, colour or size that
 * bikes (or, for a model and colour, pictures) use cannot be deleted; a model's colours and sizes
 * go with it.
 */
export function registerModelSpecs(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, bikeModel, {
    beforeDelete: async ({ tx, rows }) => {
      for (const row of rows) await refuseInUse(tx, bikeModel, row, 'modelId', true, 'bike.spec.inUse')
      const ids = rows.map((r) => r[bikeModel.idField])
      await tx.deleteFrom(modelColour.table).where('modelId', 'in', ids as number[]).execute()
      await tx.deleteFrom(modelSize.table).where('modelId', 'in', ids as number[]).execute()
    },
  })
  registerEntityRoutes(app, services, modelColour, specHooks(modelColour, true))
  registerEntityRoutes(app, services, modelSize, specHooks(modelSize, false, (row) => refuseBadRanges(row, SIZE_RANGES)))
}
