import { setTimeout as sleep } from 'node:timers/promises'
import { defineJobKind } from './registry'

// Job kinds for tests that run the real server in a child process (VELO_TEST_JOBS=1): slow, steady
// work that a test can kill the server under. Never registered otherwise.

export interface SlowJobParams {
  /** Steps of `stepMs` each; progress is reported after each. */
  steps: number
  stepMs: number
}

async function slow(ctx: { params: SlowJobParams; signal: AbortSignal; attempt: number; progress(done: number, total?: number): void }) {
  const { steps, stepMs } = ctx.params
  ctx.progress(0, steps)
  for (let i = 1; i <= steps; i++) {
    await sleep(stepMs, undefined, { signal: ctx.signal })
    ctx.progress(i, steps)
  }
  return { steps, attempt: ctx.attempt }
}

let registered = false

export function registerTestJobKinds() {
  if (registered) return
  registered = true
  /** Safe to run again from the start: taken over after its server died. */
  defineJobKind<SlowJobParams>({ kind: 'test.slow', resumable: true, run: slow })
  /** Not safe to repeat: failed, clearly, after its server died. */
  defineJobKind<SlowJobParams>({ kind: 'test.slowOnce', run: slow })
}
