const SECRET_KEY = /pass(word)?|pwd|secret|token|^code$|resetcode|captcha|registrationkey/i

/** A copy of request params with every secret-looking value replaced, for the operation log. */
export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1))
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [
      k,
      SECRET_KEY.test(k) && (typeof v === 'string' || typeof v === 'number') ? '******' : maskSecrets(v, depth + 1),
    ]),
  )
}
