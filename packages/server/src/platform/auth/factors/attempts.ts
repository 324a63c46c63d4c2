import type { KeyValueStore } from '../../kv-store'
import { AppError } from '../../errors'

// Wrong second factors per account, whatever the ticket, session or address: whoever knows the
// password could otherwise mint ticket after ticket (five codes each) and walk through the million
// codes. Ten wrong in a quarter of an hour hold the account's second step for the rest of it.
const MAX_WRONG = 10
const WINDOW_SECONDS = 15 * 60

const key = (userId: number) => `factor-wrong:${userId}`

export async function assertFactorNotHeld(kv: KeyValueStore, userId: number): Promise<void> {
  const wrong = Number((await kv.get(key(userId))) ?? 0)
  if (wrong >= MAX_WRONG) throw new AppError(429, 'auth.secondFactorHeld', { minutes: WINDOW_SECONDS / 60 })
}

export async function countFactorFailure(kv: KeyValueStore, userId: number): Promise<void> {
  const wrong = Number((await kv.get(key(userId))) ?? 0) + 1
  await kv.set(key(userId), String(wrong), WINDOW_SECONDS)
}

export async function clearFactorFailures(kv: KeyValueStore, userId: number): Promise<void> {
  await kv.delete(key(userId))
}
