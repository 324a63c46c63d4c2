import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * A CommonJS dependency loaded at its first use, for code that needs it synchronously. What only
 * some requests use (a captcha, rich text, a user agent, mail, Redis) is not imported at start:
 * each kept its code and tables in every idle server's heap (issue 43). A dependency used from
 * async code is imported with `await import()` instead.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= require(id) as T)
}
