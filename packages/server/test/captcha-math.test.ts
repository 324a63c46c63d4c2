import { describe, expect, it } from 'vitest'
import { Captchas, MemoryCaptchaStore } from '../src/platform/auth/captcha'

describe('math captcha', () => {
  it('never asks for a negative answer', async () => {
    const store = new MemoryCaptchaStore()
    const captchas = new Captchas(store)
    const answers: number[] = []
    for (let i = 0; i < 400; i++) {
      const { uuid, img } = await captchas.issue('math')
      expect(img.startsWith('data:image/svg+xml;base64,')).toBe(true)
      const answer = await store.get(`captcha:${uuid}`)
      expect(answer).toMatch(/^\d+$/)
      answers.push(Number(answer))
    }
    expect(Math.min(...answers)).toBeGreaterThanOrEqual(0)
    // Both sums and differences are asked: a difference of 0 and a sum above 9 both turn up in 400.
    expect(answers).toContain(0)
    expect(Math.max(...answers)).toBeGreaterThan(9)
  })

  it('draws the operator as solid bars, not the font’s hairline hyphen', async () => {
    const store = new MemoryCaptchaStore()
    const captchas = new Captchas(store)
    const { img } = await captchas.issue('math')
    const svg = Buffer.from(img.split(',')[1]!, 'base64').toString()
    expect(svg).toMatch(/<rect x="[\d.]+" y="[\d.]+" width="16" height="3"/)
  })
})
