import { randomInt } from 'node:crypto'
import { bikeEntities, serviceEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import type { Services } from '../../platform/services'
import { recordBikeEvent } from '../bike/records'
import type { Db } from '../../db/database'

const { repairOrder } = serviceEntities
const { bike, bikeModel, modelColour, modelSize } = bikeEntities

// Read aloud over the phone and typed from a label: no 0/O, 1/I/L.
const ORDER_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'

/** 'RS20261124-7KQ2XM': the day it was opened and six characters that make it unique (the column is too). */
export function newOrderNo(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '')
  return `RS${day}-${Array.from({ length: 6 }, () => ORDER_ALPHABET[randomInt(ORDER_ALPHABET.length)]).join('')}`
}

/**
 * The product of a registered bike as its service order keeps it: the SKU of its model, colour and
 * size codes (MET-BK-M) and its model's name. Blank for no bike (an order older than the reference).
 */
export async function productOfBike(db: Db, bikeId: unknown): Promise<{ sku: string; productName: string }> {
  if (bikeId === null || bikeId === undefined) return { sku: '', productName: '' }
  const row = await db
    .selectFrom(`${bike.table} as b`)
    .innerJoin(`${bikeModel.table} as m`, 'm.modelId', 'b.modelId')
    .leftJoin(`${modelColour.table} as c`, 'c.colourId', 'b.colourId')
    .leftJoin(`${modelSize.table} as s`, 's.sizeId', 'b.sizeId')
    .select(['m.name as model', 'm.code as modelCode', 'c.code as colourCode', 's.code as sizeCode'])
    .where('b.bikeId', '=', Number(bikeId))
    .executeTakeFirst()
  if (!row) return { sku: '', productName: '' }
  const sku = [row.modelCode, row.colourCode, row.sizeCode].filter((c) => c !== null && c !== undefined && c !== '').join('-')
  return { sku: sku.slice(0, 64), productName: String(row.model).slice(0, 128) }
}

/**
 * Repair and return service orders: the engine serves the list, the form, the steps, their history
 * and due times from the definition; here are only the order number, the product filled from the
 * bike, the evaluation's writing (that it is given once is the definition's `whenEmpty`) and the
 * order's vehicle record.
 */
export function registerRepairOrders(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, repairOrder, {
    beforeCreate: [
      async ({ columns }) => {
        columns.orderNo = newOrderNo()
      },
      // The product is the bike's, filled here: the form picks the bike only.
      async ({ tx, values }) => {
        Object.assign(values, await productOfBike(tx, values.bikeId))
      },
    ],
    beforeUpdate: async ({ tx, before, values }) => {
      if (values.bikeId !== undefined && Number(values.bikeId) !== Number(before.bikeId)) Object.assign(values, await productOfBike(tx, values.bikeId))
    },
    // The order goes into its bike's vehicle records.
    afterCreate: async ({ tx, auth, row }) => {
      if (row.bikeId === null || row.bikeId === undefined) return
      const found = await tx.selectFrom(bike.table).select(['frameNumber', 'memberId']).where(bike.idField, '=', row.bikeId as number).executeTakeFirst()
      if (found) {
        const memberId = found.memberId === null ? null : Number(found.memberId)
        await recordBikeEvent(tx, { bikeId: Number(row.bikeId), frameNumber: String(found.frameNumber), memberId, kind: 'serviceOrder', detail: String(row.orderNo), by: auth.userName })
      }
    },
    actions: {
      evaluate: async ({ tx, rows, input }) => {
        const row = rows[0]!
        const set = { evaluationStars: Number(input.stars), evaluationText: String(input.text ?? '') }
        await tx.updateTable(repairOrder.table).set(set).where(repairOrder.idField, '=', row[repairOrder.idField] as number).execute()
        return { ...row, ...set }
      },
    },
  })
}
