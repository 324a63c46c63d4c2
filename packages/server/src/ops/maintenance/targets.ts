import type { RetentionTarget } from '@velo/shared'
import type { Services } from '../../platform/services'

/** Deletes (or empties) what is past its retention; answers how many rows. A long one stops between chunks when the job is cancelled. */
export type Trim = (signal: AbortSignal) => Promise<number>

/**
 * What the retention job trims that lives in a menu area (the gateway's message log, IoT's telemetry
 * history): the area registers its trim when it starts, and the job calls it when it runs, so this
 * floor imports no module. A target nobody registered (an app built without that area) trims nothing.
 */
const byServices = new WeakMap<Services, Map<RetentionTarget, Trim>>()

export function registerRetention(services: Services, target: RetentionTarget, trim: Trim): void {
  const trims = byServices.get(services) ?? new Map<RetentionTarget, Trim>()
  byServices.set(services, trims)
  trims.set(target, trim)
}

export function retentionOf(services: Services, target: RetentionTarget): Trim | undefined {
  return byServices.get(services)?.get(target)
}
