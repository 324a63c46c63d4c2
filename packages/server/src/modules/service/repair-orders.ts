import { randomInt } from 'node:crypto'
import { serviceEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { registerEntityRoutes } from '../../platform/crud/routes'
import type { Services } from '../../platform/services'
import { bikeByFrameNumber, recordBikeEvent } from '../bike/records'

const { repairOrder } = serviceEntities

// Read aloud over the phone and typed from a label: no 0/O, 1/I/L.
const ORDER_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'

/** 'RS20261124-7KQ2XM': the day it was opened and six characters that make it unique (the column is too). */
export function newOrderNo(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '')
  return `RS${day}-${Array.from({ length: 6 }, () => ORDER_ALPHABET[randomInt(ORDER_ALPHABET.length)]).join('')}`
}

/**
 * Repair and return service orders: the engine serves the list, the form, the steps, their history
 * and due times from the definition; here are only the order number, the evaluation's writing
 * (that it is given once is the definition's `whenEmpty`) and the vehicle record of an order for a
 * bike we know.
 */
export function registerRepairOrders(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, repairOrder, {
    beforeCreate: [
      async ({ columns }) => {
        columns.orderNo = newOrderNo()
      },
    ],
    // An order for one of our bikes goes into its vehicle records.
    afterCreate: async ({ tx, auth, row }) => {
      const bike = await bikeByFrameNumber(tx, String(row.bikeId))
      if (bike) await recordBikeEvent(tx, { ...bike, kind: 'serviceOrder', detail: String(row.orderNo), by: auth.userName })
    },
    actions: {
      evaluate: async ({ tx, rows, input }) => {
        const row = rows[0]!
        const set = { evaluationStars: Number(input.stars), evaluationText: String(input.text ?? '') }
        await tx.updateTable(repairOrder.table).set(set).where(repairOrder.idField, '=', row[repairOrder.idField]).execute()
        return { ...row, ...set }
      },
    },
  })
}
