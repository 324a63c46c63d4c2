import type { Db } from '../../db/database'

/**
 * One step a row went through, as sys_transition_log keeps it: the engine's history endpoint and the
 * details timeline read these. The engine's own steps and the automatic ones (the OTA rollout's
 * device outcomes, a SIM carrier's confirmation, a replaced frame number) are written by
 * recordTransitions alone, so the timeline reads one format whoever moved the row.
 */
export interface TransitionRecord {
  entity: string
  rowId: number
  step: string
  fromState: string
  toState: string
  input: Record<string, unknown>
  /** Who took the step; 0 and a name ('system', a carrier) for what happened by itself. */
  userId: number
  userName: string
  operTime: string
}

/** Rows per INSERT: a wave of 10,000 devices changing state at once is 20 statements. */
const CHUNK = 500

/** The one writer of the state history; in the caller's transaction when given one. */
export async function recordTransitions(db: Db, records: readonly TransitionRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += CHUNK) {
    const chunk = records.slice(i, i + CHUNK).map((r) => ({ ...r, input: JSON.stringify(r.input) }))
    await db.insertInto('sysTransitionLog').values(chunk).execute()
  }
}
