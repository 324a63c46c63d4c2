import type { CommandStatus } from '@velo/shared'
import { createStore } from '../../../lib/createStore'

/** One send of the command test, kept while the console is open (not stored anywhere). */
export interface TestSend {
  key: number
  /** When it was sent (ISO). */
  at: string
  deviceId: number
  sn: string
  command: string
  params: string
  status: CommandStatus | null
  /** The server's summary ("The device answered: succeeded (42 ms)"). */
  message: string | null
  /** Why the call failed, when it did (the device never got the command, or the server refused). */
  error: string | null
  requestId: string | null
  reply: string | null
  roundTripMs: number | null
}

/** How many sends the history keeps. */
export const HISTORY_LIMIT = 100

export const testHistory = createStore<{ sends: readonly TestSend[] }>({ sends: [] })

let nextKey = 0

export function recordSend(send: Omit<TestSend, 'key'>): TestSend {
  const entry = { ...send, key: ++nextKey }
  testHistory.setState((s) => ({ sends: [entry, ...s.sends].slice(0, HISTORY_LIMIT) }))
  return entry
}

export const clearHistory = () => testHistory.setState({ sends: [] })
