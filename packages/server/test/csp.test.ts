import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './harness'

// A browser told to upgrade insecure requests on a page served over plain HTTP fetches its scripts
// over https, which the server does not speak: the console opened by address stays blank.
const UPGRADE = 'upgrade-insecure-requests'
const csp = (headers: Record<string, unknown>) => String(headers['content-security-policy'] ?? '')

describe('Content-Security-Policy over plain HTTP and over https', () => {
  let direct: TestApp
  let proxied: TestApp

  beforeAll(async () => {
    direct = await createTestApp()
    proxied = await createTestApp({ TRUST_PROXY: 'true' })
  })
  afterAll(async () => {
    await direct?.close()
    await proxied?.close()
  })

  it('leaves out upgrade-insecure-requests on a plain-HTTP request', async () => {
    for (const url of ['/api/common/features', '/login', '/api/docs/']) {
      const res = await direct.call({ url })
      expect(csp(res.headers), url).toContain("default-src 'self'")
      expect(csp(res.headers), url).not.toContain(UPGRADE)
      // The rest of helmet's headers still come with every answer.
      expect(res.headers['x-content-type-options'], url).toBe('nosniff')
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN')
    }
  })

  it('ignores a forwarded https when the proxy is not trusted', async () => {
    const res = await direct.call({ url: '/api/common/features', headers: { 'x-forwarded-proto': 'https' } })
    expect(csp(res.headers)).not.toContain(UPGRADE)
  })

  it('asks for upgrade-insecure-requests behind a trusted proxy that terminated https', async () => {
    for (const url of ['/api/common/features', '/login', '/api/docs/']) {
      const res = await proxied.call({ url, headers: { 'x-forwarded-proto': 'https' } })
      expect(csp(res.headers), url).toContain("default-src 'self'")
      expect(csp(res.headers), url).toContain(UPGRADE)
    }
    const plain = await proxied.call({ url: '/api/common/features', headers: { 'x-forwarded-proto': 'http' } })
    expect(csp(plain.headers)).not.toContain(UPGRADE)
  })
})
