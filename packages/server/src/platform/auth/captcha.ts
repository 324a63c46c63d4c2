import { randomUUID } from 'node:crypto'
import svgCaptcha from 'svg-captcha'
import type { KeyValueStore } from '../kv-store'

export const CAPTCHA_TTL_SECONDS = 120
/** Live captchas one instance keeps: far more than people sign in within two minutes. */
export const CAPTCHA_MEMORY_ENTRIES = 10_000

/** Where answers wait for their one attempt. */
export type CaptchaStore = Pick<KeyValueStore, 'set' | 'get' | 'take'>

/**
 * Answers in memory, for a single instance (no Redis): a captcha costs no database write, and a flood
 * of them costs no more than CAPTCHA_MEMORY_ENTRIES, the oldest giving way first.
 */
export class MemoryCaptchaStore implements CaptchaStore {
  // Insertion order is expiry order (one TTL for all), so the oldest entries are always first.
  private readonly entries = new Map<string, { value: string; expiresAt: number }>()

  constructor(private readonly maxEntries = CAPTCHA_MEMORY_ENTRIES) {}

  async set(key: string, value: string, ttlSeconds: number) {
    const now = Date.now()
    for (const [k, e] of this.entries) {
      if (e.expiresAt > now && this.entries.size < this.maxEntries) break
      this.entries.delete(k)
    }
    this.entries.delete(key)
    this.entries.set(key, { value, expiresAt: now + ttlSeconds * 1000 })
  }

  async get(key: string) {
    const e = this.entries.get(key)
    return e && e.expiresAt > Date.now() ? e.value : null
  }

  async take(key: string) {
    const value = await this.get(key)
    this.entries.delete(key)
    return value
  }
}

export interface IssuedCaptcha {
  uuid: string
  img: string
}

export type CaptchaCheck = 'ok' | 'missing' | 'expired' | 'wrong'

export class Captchas {
  constructor(readonly store: CaptchaStore) {}

  async issue(type: 'math' | 'char'): Promise<IssuedCaptcha> {
    const captcha =
      type === 'math'
        ? svgCaptcha.createMathExpr({ mathMin: 1, mathMax: 9, mathOperator: '+-', noise: 2, width: 120, height: 40 })
        : svgCaptcha.create({ size: 4, ignoreChars: '0oO1ilI', noise: 2, width: 120, height: 40 })
    const uuid = randomUUID()
    await this.store.set(`captcha:${uuid}`, captcha.text.toLowerCase(), CAPTCHA_TTL_SECONDS)
    return { uuid, img: `data:image/svg+xml;base64,${Buffer.from(captcha.data).toString('base64')}` }
  }

  /** Each captcha answers one attempt: right or wrong, it is gone afterwards. */
  async check(uuid: string | undefined, code: string | undefined): Promise<CaptchaCheck> {
    if (!uuid || !code?.trim()) return 'missing'
    const expected = await this.store.take(`captcha:${uuid}`)
    if (expected === null) return 'expired'
    return expected === code.trim().toLowerCase() ? 'ok' : 'wrong'
  }
}
