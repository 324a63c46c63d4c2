const SECRET_KEY = /pass(word)?|pwd|secret|token|^code$|resetcode|captcha|registrationkey/i
// The log keeps 2,000 characters of it: deeper or longer values would only be cut off later,
// after costing the time (and, past ~10,000 levels, the stack) to copy and stringify them.
const MAX_DEPTH = 8
const MAX_ENTRIES = 100
const TOO_DEEP = '[…]'

function mask(value: unknown, depth: number): unknown {
  if (typeof value === 'bigint') return String(value)
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Date) return value
  if (depth >= MAX_DEPTH) return TOO_DEEP
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ENTRIES).map((v) => mask(v, depth + 1))
    return value.length > MAX_ENTRIES ? [...items, `… ${value.length - MAX_ENTRIES} more`] : items
  }
  const entries = Object.entries(value as Record<string, unknown>)
  const masked = entries
    .slice(0, MAX_ENTRIES)
    .map(([k, v]) => [k, SECRET_KEY.test(k) && (typeof v === 'string' || typeof v === 'number') ? '******' : mask(v, depth + 1)])
  if (entries.length > MAX_ENTRIES) masked.push(['…', `${entries.length - MAX_ENTRIES} more`])
  return Object.fromEntries(masked)
}

/**
 * A copy of request params with every secret-looking value replaced, for the operation log. Never
 * throws, and what it answers always stringifies: the audit of a request must not fail on its input.
 */
export function maskSecrets(value: unknown): unknown {
  try {
    return mask(value, 0)
  } catch {
    return '(unreadable)'
  }
}
