import { iotEntities, iotTelemetryEntities, iotWarningEntities, type ResolvedEntity } from '@velo/shared'
import type { Expression, SqlBool } from 'kysely'
import { type DynamicEb, dynamicDb } from '../../db/database'
import { yieldWhenDue } from '../../lib/event-loop'
import { registerRetention } from '../../ops/maintenance/targets'
import { removePersonalKeys } from '../../platform/privacy/personal-keys'
import type { Services } from '../../platform/services'

// Riders' positions past their retention (docs/privacy.md › Retention): the position is emptied,
// the row stays, so speed, battery and odometer still count in the fleet's statistics. What is a
// position is read from the definitions: fields of category `location`, and the personal keys of a
// JSON text (a device message's gps).

// Typed as any entity: their columns are named by the definitions, not by the Database type.
const iotDevice: ResolvedEntity = iotEntities.iotDevice
const iotMessage: ResolvedEntity = iotEntities.iotMessage
const iotTelemetry: ResolvedEntity = iotTelemetryEntities.iotTelemetry
const iotAlarm: ResolvedEntity = iotWarningEntities.iotAlarm

export const POSITION_RETENTION_KEY = 'privacy.retention.positionDays'
export const DEFAULT_POSITION_RETENTION_DAYS = 90
const DAY_MS = 86_400_000
/** Rows changed per statement: SQLite's one writer is held for a short while at a time. */
const CHUNK = 2000
/**
 * Each table's last complete pass ends at its cutoff, and nothing older holds a position after it:
 * the next pass starts there instead of reading again through every row it emptied (a history kept
 * for a year is billions of them). The mark lapses after a week, so a row written late with an old
 * time (a demo load, a restored copy) is still found by a full pass then.
 */
const WATERMARK_TTL_SECONDS = 7 * 86_400
const watermarkKey = (e: ResolvedEntity) => `retention:positions:${e.key}`

type Row = Record<string, unknown>

const locationFields = (e: ResolvedEntity) => e.fields.filter((f) => f.personal === 'location').map((f) => f.name)
const emptied = (columns: string[]) => Object.fromEntries(columns.map((c) => [c, null]))
const holdsOne = (columns: string[]) => (eb: DynamicEb) => eb.or(columns.map((c) => eb(c, 'is not', null)))

/**
 * Walks the rows of `e` older than the cutoff that `candidates` picks, oldest first through the time
 * index, CHUNK at a time (keyed on time and id, so rows a chunk leaves as they were are not read
 * again), from where the last complete pass ended; `handle` empties a chunk's positions and answers
 * how many rows it changed.
 */
async function pass(
  services: Services,
  e: ResolvedEntity,
  time: string,
  cutoff: string,
  candidates: (eb: DynamicEb) => Expression<SqlBool>,
  columns: string[],
  handle: (rows: Row[]) => Promise<number>,
  signal: AbortSignal,
): Promise<number> {
  const db = dynamicDb(services.db)
  const mark = await services.kv.get(watermarkKey(e))
  if (mark && mark >= cutoff) return 0
  let changed = 0
  let after: { time: string; id: number } | undefined
  for (;;) {
    signal.throwIfAborted()
    let query = db
      .selectFrom(e.table)
      .select([e.idField, time, ...columns])
      .where(time, '<', cutoff)
      .where(candidates)
    if (after) {
      const { time: t, id } = after
      query = query.where((eb) => eb.or([eb(time, '>', t), eb.and([eb(time, '=', t), eb(e.idField, '>', id)])]))
    } else if (mark) query = query.where(time, '>=', mark)
    const rows = await query.orderBy(time).orderBy(e.idField).limit(CHUNK).execute()
    if (rows.length) changed += await handle(rows)
    if (rows.length < CHUNK) break
    const last = rows.at(-1)!
    const next = { time: String(last[time]), id: Number(last[e.idField]) }
    // A time read back rounder than it is stored would read the same chunk again: stop rather than loop.
    if (after && next.time === after.time && next.id === after.id) break
    after = next
    await yieldWhenDue()
  }
  await services.kv.set(watermarkKey(e), mark && mark > cutoff ? mark : cutoff, WATERMARK_TTL_SECONDS)
  return changed
}

/** Rows of `e` keep everything but their location fields: telemetry (by when it came), warnings (by their last occurrence). */
async function emptyLocations(services: Services, e: ResolvedEntity, time: string, cutoff: string, signal: AbortSignal): Promise<number> {
  const columns = locationFields(e)
  const db = dynamicDb(services.db)
  return pass(services, e, time, cutoff, holdsOne(columns), [], async (rows) => {
    const ids = rows.map((r) => r[e.idField] as number)
    const done = await db.updateTable(e.table).set(emptied(columns)).where(e.idField, 'in', ids).where(holdsOne(columns)).executeTakeFirst()
    return Number(done.numUpdatedRows)
  }, signal)
}

/** Device messages lose their payload's personal keys (removePersonalKeys), the rest of the payload kept. */
async function emptyMessages(services: Services, cutoff: string, signal: AbortSignal): Promise<number> {
  const field = iotMessage.fields.find((f) => f.personalKeys)
  if (!field?.personalKeys) return 0
  const { name } = field
  const names = (eb: DynamicEb) => eb.or(field.personalKeys!.keys.map((k) => eb(name, 'like', `%"${k}"%`)))
  return pass(services, iotMessage, 'createTime', cutoff, names, [name], (rows) => removePersonalKeys(services.db, services.dialect, iotMessage, rows), signal)
}

/**
 * A device's last position: no column says when it was taken, but every report that brings one also
 * moves lastSeenAt, so a device silent since before the cutoff holds a position at least that old.
 * (A device that still reports without a fix keeps its last position until it is silent that long.)
 */
async function emptyDevices(services: Services, cutoff: string): Promise<number> {
  const columns = locationFields(iotDevice)
  const done = await dynamicDb(services.db).updateTable(iotDevice.table).set(emptied(columns)).where('lastSeenAt', '<', cutoff).where(holdsOne(columns)).executeTakeFirst()
  return Number(done.numUpdatedRows)
}

/** Empties the positions older than privacy.retention.positionDays; answers how many rows lost one. */
export async function emptyOldPositions(services: Services, signal: AbortSignal, now = Date.now()): Promise<number> {
  const days = await services.configValues.int(POSITION_RETENTION_KEY, DEFAULT_POSITION_RETENTION_DAYS)
  const cutoff = new Date(now - days * DAY_MS).toISOString()
  let changed = await emptyLocations(services, iotTelemetry, 'receivedAt', cutoff, signal)
  changed += await emptyLocations(services, iotAlarm, 'lastTime', cutoff, signal)
  changed += await emptyMessages(services, cutoff, signal)
  changed += await emptyDevices(services, cutoff)
  return changed
}

/** The retention job's positions target: this app's IoT tables. */
export function registerPositionRetention(services: Services): void {
  registerRetention(services, 'positions', (signal) => emptyOldPositions(services, signal))
}
