import { type FrameTemplate, framePrefix, frameNumberOf, overrunLimit } from '@velo/shared'
import type { Random } from './random'
import type { PlannedBike, PlannedModel } from './generate'

// The demo's production orders and their frame numbers: every demo bike carries a number its order
// generated (docs/frame-numbers.md), so the orders, the numbers and the bikes tell one story. An
// order per model and month of production, numbered from its series; spares printed but not yet on a
// bike, a few voided at stamping, replacements for the frames that were replaced, and new orders
// whose frames are still on their way.

const DAY = 86_400_000

export interface PlannedOrder {
  id: number
  orderNo: string
  model: PlannedModel
  template: FrameTemplate
  quantity: number
  created: number
  delivery: number
  supplier: string
  region: string
  tpNumber: string
  remark: string
}

export interface PlannedNumber {
  id: number
  order: PlannedOrder
  frameNumber: string
  serial: number
  type: 'regular' | 'replacement'
  status: 'generated' | 'printed' | 'bound' | 'voided'
  bikeId: number | null
  replacesId: number | null
  reason: string
  created: number
  printed: number | null
}

export interface Production {
  orders: PlannedOrder[]
  numbers: PlannedNumber[]
  /** The last serial taken of each prefix, as modules/order/series.ts keeps it. */
  series: { prefix: string; last: number }[]
}

const SUPPLIERS = [
  ['Giant Frames Ltd', 'A'],
  ['Taichung Alloy Works', 'B'],
  ['Kunshan Precision Frames', 'C'],
] as const
const REGIONS = ['EU West', 'EU Central', 'Nordics', 'Greater China', 'North America']
const VOID_REASONS = ['Stamped twice on one frame', 'Label misprinted', 'Frame scrapped at welding inspection']

/**
 * Numbers the bikes (in production order) and plans the orders behind them. Sets each bike's
 * frameNumber and orderId, and a replaced bike's old number. Answers the rows to write.
 */
export function planProduction(r: Random, bikes: PlannedBike[], models: PlannedModel[], end: number): Production {
  let orderId = 0
  const orders: PlannedOrder[] = []
  const bikesOf = new Map<PlannedOrder, PlannedBike[]>()
  const byKey = new Map<string, PlannedOrder>()
  const newOrder = (model: PlannedModel, created: number, quantity: number): PlannedOrder => {
    const d = new Date(created)
    const [supplier, plant] = SUPPLIERS[(model.id + d.getUTCMonth()) % SUPPLIERS.length]!
    const id = ++orderId
    const order: PlannedOrder = {
      id,
      orderNo: `PO-${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}-${model.spec.code}-${String(id).padStart(3, '0')}`,
      model,
      template: { brandCode: 'VL', manufacturerCode: plant, modelYear: d.getUTCFullYear(), specCode: model.spec.code, repairCode: '', serialDigits: 6, checkCharacter: true },
      quantity,
      created,
      delivery: created + r.between(25, 45) * DAY,
      supplier,
      region: r.pick(REGIONS),
      tpNumber: `TP-${d.getUTCFullYear()}-${String(100 + id)}`,
      remark: '',
    }
    orders.push(order)
    bikesOf.set(order, [])
    return order
  }
  // Placed some weeks before the first frame of the month was made.
  for (const bike of bikes) {
    const d = new Date(bike.produced)
    const key = `${bike.model.id}:${d.getUTCFullYear()}-${d.getUTCMonth()}`
    let order = byKey.get(key)
    if (!order) {
      order = newOrder(bike.model, bike.produced - r.between(30, 50) * DAY, 0)
      byKey.set(key, order)
    }
    bikesOf.get(order)!.push(bike)
    bike.orderId = order.id
  }
  // New orders: frames ordered and numbered, not yet made into bikes.
  for (const model of models) {
    if (model.launch > end - 60 * DAY) continue
    newOrder(model, end - r.between(3, 25) * DAY, 10 * Math.round(r.between(5, 30)))
  }

  const numbers: PlannedNumber[] = []
  const last = new Map<string, number>()
  const take = (order: PlannedOrder) => {
    const prefix = framePrefix(order.template)
    const serial = (last.get(prefix) ?? 0) + 1
    last.set(prefix, serial)
    return { serial, frameNumber: frameNumberOf(order.template, serial, prefix) }
  }
  const add = (order: PlannedOrder, n: Omit<PlannedNumber, 'id' | 'order' | 'serial' | 'frameNumber'>) => {
    const row: PlannedNumber = { id: numbers.length + 1, order, ...take(order), ...n }
    numbers.push(row)
    return row
  }
  const numberOfBike = new Map<PlannedBike, PlannedNumber>()
  for (const order of orders) {
    const made = bikesOf.get(order)!
    // Ordered in tens; a few orders overran the 5 % rule after the supplier scrapped frames.
    const overrun = made.length > 20 && r.chance(0.04)
    if (!order.quantity) order.quantity = overrun ? Math.floor(made.length / 1.08) : Math.max(10, Math.ceil(made.length / 10) * 10)
    const generated = Math.max(order.quantity, made.length)
    const printedAt = order.created + r.between(1, 4) * DAY
    const printed = printedAt < end ? printedAt : null
    for (const bike of made) {
      const n = add(order, { type: 'regular', status: 'bound', bikeId: bike.id, replacesId: null, reason: '', created: order.created, printed })
      bike.frameNumber = n.frameNumber
      numberOfBike.set(bike, n)
    }
    if (overrun) order.remark = `${generated} numbers for ${order.quantity} ordered: frames scrapped at welding inspection were re-made (confirmed twice)`
    for (let i = made.length; i < generated; i++) {
      const voided = made.length > 0 && r.chance(0.03)
      add(order, {
        type: 'regular',
        status: voided ? 'voided' : printed !== null && (made.length > 0 || r.chance(0.6)) ? 'printed' : 'generated',
        bikeId: null,
        replacesId: null,
        reason: voided ? r.pick(VOID_REASONS) : '',
        created: order.created,
        printed,
      })
    }
  }
  // Replaced frames: the old number voided, a replacement from the same series on the same bike.
  for (const bike of bikes) {
    if (!bike.replaced) continue
    const old = numberOfBike.get(bike)!
    const fresh = add(old.order, { type: 'replacement', status: 'bound', bikeId: bike.id, replacesId: old.id, reason: bike.replaced.reason, created: bike.replaced.at, printed: null })
    old.status = 'voided'
    old.reason = `Replaced by ${fresh.frameNumber}: ${bike.replaced.reason}`
    bike.replaced.oldNumber = old.frameNumber
    bike.frameNumber = fresh.frameNumber
  }
  return { orders, numbers, series: [...last].map(([prefix, serial]) => ({ prefix, last: serial })) }
}

/** Counts per status and the 5 % flag of an order, as modules/order/numbers.ts recountOrder stores them. */
export function orderCounts(order: PlannedOrder, numbers: readonly PlannedNumber[]) {
  const mine = numbers.filter((n) => n.order === order)
  const count = (status: PlannedNumber['status']) => mine.filter((n) => n.status === status).length
  const regular = mine.filter((n) => n.type === 'regular').length
  return { regular, overrun: regular > overrunLimit(order.quantity), generated: count('generated'), printed: count('printed'), bound: count('bound'), voided: count('voided') }
}
