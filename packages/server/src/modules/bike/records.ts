import { bikeEntities } from '@velo/shared'
import type { Db } from '../../db/database'

const { bike, bikeRecord } = bikeEntities

/** The kinds of a vehicle record (the options of bikeRecord.eventKind). */
export type BikeEventKind = 'produced' | 'ordered' | 'bound' | 'unbound' | 'serviceOrder' | 'firmware' | 'frameReplaced'

export interface BikeEvent {
  bikeId: number
  kind: BikeEventKind
  /** The frame number when it happened; default the bike's current one. */
  frameNumber?: string
  detail?: string
  memberId?: number | null
  /** Who did it: a staff user's name, 'app' or 'system'. */
  by: string
  /** Default now. */
  at?: Date
}

/**
 * Writes one vehicle record (a bike's history is read-only: only these writes make it). For the
 * engine's hooks here and in the service orders, and for the app API and the demo data (bound
 * events). `tx` is the write's transaction, so the record goes or stays with the change it records.
 */
export async function recordBikeEvent(tx: Db, event: BikeEvent): Promise<void> {
  let frameNumber = event.frameNumber
  if (frameNumber === undefined) {
    const row = await tx.selectFrom(bike.table).select('frameNumber').where(bike.idField, '=', event.bikeId).executeTakeFirstOrThrow()
    frameNumber = String(row.frameNumber)
  }
  await tx
    .insertInto(bikeRecord.table)
    .values({
      bikeId: event.bikeId,
      frameNumber,
      eventKind: event.kind,
      detail: (event.detail ?? '').slice(0, 1000),
      memberId: event.memberId ?? null,
      eventTime: (event.at ?? new Date()).toISOString(),
      operBy: event.by.slice(0, 64),
    })
    .execute()
}

/** The bike with this frame number (as a service order's bike ID names it), if there is one. */
export async function bikeByFrameNumber(tx: Db, frameNumber: string): Promise<{ bikeId: number; frameNumber: string; memberId: number | null } | undefined> {
  const wanted = frameNumber.trim().toUpperCase()
  if (!wanted) return undefined
  const row = await tx.selectFrom(bike.table).select(['bikeId', 'frameNumber', 'memberId']).where('frameNumber', '=', wanted).executeTakeFirst()
  return row ? { bikeId: Number(row.bikeId), frameNumber: String(row.frameNumber), memberId: row.memberId === null ? null : Number(row.memberId) } : undefined
}
