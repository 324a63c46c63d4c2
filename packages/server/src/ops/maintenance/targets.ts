import type { Services } from '../../platform/services'

/**
 * What the retention job trims that lives in the IoT gateway (its message log) rather than in
 * Services: the app registers it once the gateway has started, and the job reads it when it runs.
 */
export interface IotRetention {
  /** Deletes device messages older than iot.message.retentionDays; answers how many. */
  pruneMessages(): Promise<number>
}

const byServices = new WeakMap<Services, IotRetention>()

export function registerIotRetention(services: Services, iot: IotRetention): void {
  byServices.set(services, iot)
}

export function iotRetentionOf(services: Services): IotRetention | undefined {
  return byServices.get(services)
}
