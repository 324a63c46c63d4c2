import { randomUUID } from 'node:crypto'
import svgCaptcha from 'svg-captcha'
import type { KeyValueStore } from '../kv-store'

export const CAPTCHA_TTL_SECONDS = 120

export interface IssuedCaptcha {
  uuid: string
  img: string
}

export type CaptchaCheck = 'ok' | 'missing' | 'expired' | 'wrong'

export class Captchas {
  constructor(private readonly store: KeyValueStore) {}

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
