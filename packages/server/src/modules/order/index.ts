import { type ActionPreview, bikeEntities, frameFormat, framePrefix, frameNumberOf, type Language, maxSerial, orderEntities, overrunLimit } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { recordTransitions } from '../../platform/crud/history'
import { badRequest, conflict } from '../../platform/errors'
import { t } from '../../platform/i18n'
import type { Services } from '../../platform/services'
import { recordBikeEvent } from '../bike/records'
import { label, merged } from '../bike/models'
import { labelSheet, type FrameLabel } from './labels'
import { generateNumbers, recountOrder, templateOf, windowOf } from './numbers'
import { nextSerial, reserveSerials } from './series'
import type { Db } from '../../db/database'

const { deviceOrder, frameNumber } = orderEntities
const { bike } = bikeEntities

type Row = Record<string, unknown>

const blank = (v: unknown) => v === undefined || v === null || String(v).trim() === ''
const both = (field: string) => {
  const l = label(deviceOrder, field)
  return { en: l.en_US, zh: l.zh_CN }
}

/** The rules between an order's fields that no single field says. */
function checkOrder(row: Row) {
  if (row.orderType === 'repair' && blank(row.repairCode)) {
    const f = both('repairCode')
    throw badRequest('order.repairCodeRequired', { fieldEn: f.en, fieldZh: f.zh }, { errors: [{ field: 'repairCode' }] })
  }
  const start = row.serialStart === null || row.serialStart === undefined ? null : Number(row.serialStart)
  const end = row.serialEnd === null || row.serialEnd === undefined ? null : Number(row.serialEnd)
  if (start !== null && end !== null && start > end) {
    const s = both('serialStart')
    const e = both('serialEnd')
    throw badRequest('order.serialRange', { startEn: s.en, startZh: s.zh, endEn: e.en, endZh: e.zh }, { errors: [{ field: 'serialEnd' }] })
  }
  const digits = Number(row.serialDigits ?? 6)
  for (const field of ['serialStart', 'serialEnd'] as const) {
    const v = field === 'serialStart' ? start : end
    if (v !== null && v > maxSerial({ serialDigits: digits })) {
      const f = both(field)
      throw badRequest('order.serialTooLong', { fieldEn: f.en, fieldZh: f.zh, value: v, digits }, { errors: [{ field }] })
    }
  }
}

/** An order's row as stored now (after a generation; the order of a number). */
const loadOrder = (db: Db, orderId: number): Promise<Row> => db.selectFrom(deviceOrder.table).selectAll().where('orderId', '=', orderId).executeTakeFirstOrThrow()

/** What generating `count` more numbers would do, and whether it passes the 5 % rule (SPEC §5). */
async function generationPreview(db: Db, order: Row, count: number | undefined, lang: Language): Promise<ActionPreview> {
  const template = templateOf(order)
  const prefix = framePrefix(template)
  const window = windowOf(order)
  const next = await nextSerial(db, prefix, window.start)
  const example = next <= window.end ? frameNumberOf(template, next, prefix) : '—'
  const facts = [
    { label: t(lang, 'order.preview.format'), value: frameFormat(template, t(lang, 'order.preview.check')) },
    { label: t(lang, 'order.preview.example'), value: example },
  ]
  if (!count) return { facts }
  const left = Math.max(0, window.end - next + 1)
  if (left < count) throw conflict('order.serialsExhausted', { left, last: window.end, count }, 'count')
  const pad = (n: number) => String(n).padStart(template.serialDigits, '0')
  facts.push({ label: t(lang, 'order.preview.serials'), value: `${pad(next)} – ${pad(next + count - 1)}` })
  const quantity = Number(order.quantity)
  const generated = Number(order.numbersGenerated)
  const after = generated + count
  facts.push({ label: t(lang, 'order.preview.numbers'), value: t(lang, 'order.preview.numbersValue', { quantity, generated, after }) })
  const limit = overrunLimit(quantity)
  if (after <= limit) return { facts }
  const over = t(lang, 'order.overrun', { orderNo: String(order.orderNo), after, quantity, percent: Math.round(((after - quantity) * 1000) / quantity) / 10, limit })
  return { facts, warning: over, secondConfirm: over }
}

/** The replacement's reason as people read it (an option of the action's input). */
function causeLabel(value: string): Record<Language, string> {
  const field = frameNumber.actions?.find((a) => a.name === 'replace')?.input?.find((f) => f.name === 'cause')
  const option = field?.kind === 'enum' ? field.options.find((o) => o.value === value) : undefined
  return option?.label ?? { en_US: value, zh_CN: value }
}

/** The order's numbers for the label sheet (`order` as its list answers it, with its model's name), read page by page in serial order (never all at once). */
async function* labelsOf(db: Db, order: Row, statuses: string[], upTo: number): AsyncGenerator<FrameLabel> {
  const caption = `${String(order.orderNo)} · ${String(order.modelIdLabel ?? '')}`
  let after = -1
  for (;;) {
    const page = await db
      .selectFrom(frameNumber.table)
      .select(['numberId', 'frameNumber'])
      .where('orderId', '=', order.orderId as number)
      .where('status', 'in', statuses)
      .where('numberId', '>', after)
      .where('numberId', '<=', upTo)
      .orderBy('numberId')
      .limit(1000)
      .execute()
    for (const r of page) yield { frameNumber: String(r.frameNumber), caption }
    if (page.length < 1000) return
    after = Number(page[page.length - 1]!.numberId)
  }
}

/**
 * Orders › Bike orders: the orders, their frame numbers (generated from the order's template,
 * docs/frame-numbers.md), the label sheet, voiding and replacement. Bikes bind numbers through
 * numberForBike and bindNumber (modules/bike).
 */
export function registerOrders(app: FastifyInstance, services: Services) {
  registerEntityRoutes(app, services, deviceOrder, {
    beforeCreate: async ({ values }) => checkOrder(values),
    // Once it has numbers, its template is fixed and it is kept: the definition's state rules.
    beforeUpdate: async ({ before, values }) => checkOrder(merged(before, values)),
    // The quantity moves the 5 % line.
    afterUpdate: async ({ tx, before, after }) => {
      if (Number(before.quantity) !== Number(after.quantity)) await recountOrder(tx, Number(after.orderId))
    },
    previews: {
      generate: async ({ tx, rows, input, lang }) => generationPreview(tx, rows[0]!, input.count === undefined ? undefined : Number(input.count), lang),
    },
    actions: {
      generate: async ({ tx, auth, rows, input, progress, signal, confirmed }) => {
        const order = rows[0]!
        const made = await generateNumbers(tx, order, Number(input.count), auth.userName, { progress, signal })
        const after = await loadOrder(tx, Number(order.orderId))
        return { ...made, numbersGenerated: Number(after.numbersGenerated), overrun: !!after.overrun, confirmedOverrun: confirmed }
      },
      printLabels: async ({ tx, rows, input, progress, signal, writeFile, lang }) => {
        const order = rows[0]!
        const statuses = input.which === 'all' ? ['generated', 'printed', 'bound'] : ['generated']
        // The numbers as they are now: one generated meanwhile gets no label and stays unprinted.
        const bounds = await tx
          .selectFrom(frameNumber.table)
          .select([sql<number>`count(*)`.as('n'), sql<number>`max(number_id)`.as('upTo')])
          .where('orderId', '=', order.orderId as number)
          .where('status', 'in', statuses)
          .executeTakeFirstOrThrow()
        const total = Number(bounds.n)
        if (!total) throw conflict('order.noLabels', { orderNo: String(order.orderNo) })
        const upTo = Number(bounds.upTo)
        progress(0, total)
        const pdf = labelSheet(labelsOf(tx, order, statuses, upTo), { onLabel: (done: number) => progress(done, total), signal, title: `${t(lang, 'order.labels.title')} ${String(order.orderNo)}` })
        await writeFile(`labels-${String(order.orderNo)}.pdf`, pdf)
        await tx.transaction().execute(async (trx) => {
          await trx
            .updateTable(frameNumber.table)
            .set({ status: 'printed', printedTime: new Date().toISOString() })
            .where('orderId', '=', order.orderId as number)
            .where('status', '=', 'generated')
            .where('numberId', '<=', upTo)
            .execute()
          await recountOrder(trx, Number(order.orderId))
        })
        return { labels: total }
      },
    },
  })

  registerEntityRoutes(app, services, frameNumber, {
    afterTransition: [
      // A voided number says why in its list and export, as a replaced one does: the step's reason is kept on the row.
      async ({ tx, step, row, input, after }) => {
        if (step.name !== 'void') return
        const reason = String(input.reason ?? '').slice(0, 500)
        await tx.updateTable(frameNumber.table).set({ reason }).where('numberId', '=', row.numberId as number).execute()
        after.reason = reason
      },
      async ({ tx, row }) => recountOrder(tx, Number(row.orderId)),
    ],
    actions: {
      replace: async ({ tx, auth, rows, input, lang }) => {
        const old = rows[0]!
        const order = await loadOrder(tx, Number(old.orderId))
        const template = templateOf(order)
        const prefix = framePrefix(template)
        // A replacement is not one of the ordered frames: the order's serial end does not limit it.
        const taken = await reserveSerials(tx, prefix, 1, { start: windowOf(order).start, end: maxSerial(template) })
        if (!('first' in taken)) throw conflict('order.serialsExhausted', { left: 0, last: taken.last, count: 1 })
        const number = frameNumberOf(template, taken.first, prefix)
        const cause = causeLabel(String(input.cause))
        const note = blank(input.note) ? '' : `: ${String(input.note)}`
        const reason = (l: Language) => `${cause[l]}${note}`.slice(0, 500)
        const now = new Date().toISOString()
        const bikeId = Number(old.bikeId)
        const added = await tx
          .insertInto(frameNumber.table)
          .values({ orderId: old.orderId as number, frameNumber: number, serial: taken.first, numberType: 'replacement', status: 'bound', bikeId, replacesId: old.numberId as number | null, reason: reason(lang), createBy: auth.userName, createTime: now, remark: '' })
          .returning('numberId')
          .executeTakeFirstOrThrow()
        await tx.updateTable(frameNumber.table).set({ status: 'voided', reason: t(lang, 'order.replacedBy', { number, reason: reason(lang) }).slice(0, 500), updateBy: auth.userName, updateTime: now }).where('numberId', '=', old.numberId as number).execute()
        // The number's history shows the replacement as the step that voided it.
        await recordTransitions(tx, [
          { entity: frameNumber.key, rowId: Number(old.numberId), step: 'replace', fromState: 'bound', toState: 'voided', input: { cause: input.cause, note: input.note ?? '', replacement: number }, userId: auth.userId, userName: auth.userName, operTime: now },
        ])
        const bikeRow = await tx.selectFrom(bike.table).select(['memberId']).where('bikeId', '=', bikeId).executeTakeFirst()
        await tx.updateTable(bike.table).set({ frameNumber: number, frameType: 'replacement', replacementReason: reason(lang), updateBy: auth.userName, updateTime: now }).where('bikeId', '=', bikeId).execute()
        await recordBikeEvent(tx, { bikeId, frameNumber: number, kind: 'frameReplaced', detail: t(lang, 'order.replacedRecord', { old: String(old.frameNumber), number, reason: reason(lang) }), memberId: (bikeRow?.memberId as number | null) ?? null, by: auth.userName })
        await recountOrder(tx, Number(old.orderId))
        return { numberId: Number(added.numberId), frameNumber: number, replaces: String(old.frameNumber) }
      },
    },
  })
}
