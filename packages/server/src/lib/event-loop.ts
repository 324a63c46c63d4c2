import { setImmediate } from 'node:timers'

/**
 * Long work made of many short steps, awaited one after the other, never gives the event loop a
 * turn when each step answers at once (better-sqlite3's statements, a row check): no request is
 * even read until it ends. `await yieldWhenDue()` between steps waits for the loop's next turn
 * (setImmediate, after pending I/O) once the loop has been kept SLICE_MS, and costs next to nothing
 * before. A marker queued when a slice starts tells that the loop has turned since.
 * node:timers, not the global: test fake timers replace the global and would stall the work.
 */
const SLICE_MS = 10
let sliceStart: number | undefined

export function yieldWhenDue(): Promise<void> | undefined {
  const now = performance.now()
  if (sliceStart === undefined) {
    sliceStart = now
    setImmediate(() => (sliceStart = undefined))
    return undefined
  }
  if (now - sliceStart < SLICE_MS) return undefined
  return new Promise((resolve) =>
    setImmediate(() => {
      sliceStart = undefined
      resolve()
    }),
  )
}
