const SECRET_KEY = /pass(word)?|pwd|secret|token|^code$|resetcode|captcha|registrationkey/i
/** What the log keeps of a personal value (a field a definition declares personal): that one was sent. */
const PERSONAL_VALUE = '•••'
const NO_FIELDS: ReadonlySet<string> = new Set()
// The log keeps 2,000 characters of it: deeper or longer values would only be cut off later,
// after costing the time (and, past ~10,000 levels, the stack) to copy and stringify them.
const MAX_DEPTH = 8
const MAX_ENTRIES = 100
const TOO_DEEP = '[…]'

function mask(value: unknown, depth: number, personal: ReadonlySet<string>): unknown {
  if (typeof value === 'bigint') return String(value)
  if (value === null || typeof value !== 'object') return value
  if (value instanceof Date) return value
  if (depth >= MAX_DEPTH) return TOO_DEEP
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ENTRIES).map((v) => mask(v, depth + 1, personal))
    return value.length > MAX_ENTRIES ? [...items, `… ${value.length - MAX_ENTRIES} more`] : items
  }
  const entries = Object.entries(value as Record<string, unknown>)
  const masked = entries
    .slice(0, MAX_ENTRIES)
    .map(([k, v]) => [k, SECRET_KEY.test(k) && (typeof v === 'string' || typeof v === 'number') ? '******' : personal.has(k) && v !== null && v !== undefined && v !== '' ? PERSONAL_VALUE : mask(v, depth + 1, personal)])
  if (entries.length > MAX_ENTRIES) masked.push(['…', `${entries.length - MAX_ENTRIES} more`])
  return Object.fromEntries(masked)
}

/**
 * A copy of request params with every secret-looking value replaced, and the values of `personal`
 * fields (riders' personal data, shared/src/privacy.ts), for the operation log. Never throws, and
 * what it answers always stringifies: the audit of a request must not fail on its input.
 */
export function maskSecrets(value: unknown, personal: ReadonlySet<string> = NO_FIELDS): unknown {
  try {
    return mask(value, 0, personal)
  } catch {
    return '(unreadable)'
  }
}
