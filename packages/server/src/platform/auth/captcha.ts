import { randomInt, randomUUID } from 'node:crypto'
import type svgCaptchaModule from 'svg-captcha'
import { lazyRequire } from '../../lib/lazy-require'
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

/**
 * A sum or a difference of two digits from 1 to 9 whose answer is never negative: a difference puts
 * the larger number first (svg-captcha's own math captcha asks "6 - 7").
 */
export function mathQuestion(pick: (min: number, maxExclusive: number) => number = randomInt): { a: number; operator: '+' | '-'; b: number; answer: number } {
  const x = pick(1, 10)
  const y = pick(1, 10)
  if (pick(0, 2) === 0) return { a: x, operator: '+', b: y, answer: x + y }
  const [a, b] = x >= y ? [x, y] : [y, x]
  return { a, operator: '-', b, answer: a - b }
}

const MATH_SIZE = { width: 120, height: 40 }
/** svg-captcha's module is itself the function drawing a given text (its typings declare only the rest). */
const svgCaptcha = lazyRequire<typeof svgCaptchaModule>('svg-captcha')
const drawText = (text: string, options: svgCaptchaModule.ConfigObject) => (svgCaptcha() as unknown as (text: string, options: svgCaptchaModule.ConfigObject) => string)(text, options)

/**
 * The image of a math question. The captcha font has no minus sign and its hyphen is a hairline a
 * noise line hides, so the operator is drawn as solid bars over the noise: only the digits are glyphs.
 */
function mathImage(q: ReturnType<typeof mathQuestion>): string {
  const { width, height } = MATH_SIZE
  // Three characters, the middle one a space: svg-captcha spaces them (width - 2) / 4 apart.
  const svg = drawText(`${q.a} ${q.b}`, { noise: 2, ...MATH_SIZE })
  const x = (width - 2) / 2
  const y = height / 2
  const bar = 'fill="#333"'
  const minus = `<rect x="${x - 8}" y="${y - 1.5}" width="16" height="3" ${bar}/>`
  const plus = q.operator === '+' ? `<rect x="${x - 1.5}" y="${y - 8}" width="3" height="16" ${bar}/>` : ''
  return svg.replace(/<\/svg>$/, `${minus}${plus}</svg>`)
}

export interface IssuedCaptcha {
  uuid: string
  img: string
}

export type CaptchaCheck = 'ok' | 'missing' | 'expired' | 'wrong'

export class Captchas {
  constructor(readonly store: CaptchaStore) {}

  async issue(type: 'math' | 'char'): Promise<IssuedCaptcha> {
    let captcha: { text: string; data: string }
    if (type === 'math') {
      const q = mathQuestion()
      captcha = { text: String(q.answer), data: mathImage(q) }
    } else captcha = svgCaptcha().create({ size: 4, ignoreChars: '0oO1ilI', noise: 2, ...MATH_SIZE })
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
