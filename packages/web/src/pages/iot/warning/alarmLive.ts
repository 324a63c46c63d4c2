import type { AlarmEventData } from '@velo/shared'
import type { Row } from '../../../crud/api/crudApi'

/** The alarm fields an 'alarm' event carries, to lay over its row in a list. */
export function alarmPatch(event: AlarmEventData): Row {
  return { state: event.state, severity: event.severity, count: event.count, lastTime: event.lastTime }
}
