import type { AccountFeatures } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config'
import { createTestApp, useTestApp } from './harness'

// Issue 36: the navbar's source-code and API documentation links (SPEC §2) are the operator's
// configuration, SOURCE_URL and API_DOCS_URL: GET /common/features, which the console reads, names
// them only when they are set, and the console shows a link only when it is named.
const t = useTestApp()

describe('the navbar links in GET /common/features', () => {
  it('are absent by default', async () => {
    const res = await t.call<AccountFeatures>({ url: '/api/common/features' })
    expect(res.status).toBe(200)
    expect(res.data).not.toHaveProperty('sourceUrl')
    expect(res.data).not.toHaveProperty('apiDocsUrl')
    expect(Object.keys(res.data).sort()).toEqual(['captchaEnabled', 'forgetPasswordEnabled', 'registerEnabled'])
  })

  it('are the configured addresses when set, each on its own', async () => {
    const both = await createTestApp({ SOURCE_URL: 'https://git.example.com/velo/admin', API_DOCS_URL: '/api/docs' })
    try {
      const res = await both.call({ url: '/api/common/features' })
      expect(res.data).toMatchObject({ sourceUrl: 'https://git.example.com/velo/admin', apiDocsUrl: '/api/docs' })
    } finally {
      await both.close()
    }
    const docsOnly = await createTestApp({ API_DOCS_URL: 'https://developer.example.com/velo' })
    try {
      const res = await docsOnly.call<AccountFeatures>({ url: '/api/common/features' })
      expect(res.data.apiDocsUrl).toBe('https://developer.example.com/velo')
      expect(res.data).not.toHaveProperty('sourceUrl')
    } finally {
      await docsOnly.close()
    }
  })
})

describe('SOURCE_URL and API_DOCS_URL', () => {
  it('take web addresses, and for the documentation a path on this server', () => {
    expect(loadConfig({})).toMatchObject({ sourceUrl: undefined, apiDocsUrl: undefined })
    expect(loadConfig({ SOURCE_URL: '', API_DOCS_URL: '' })).toMatchObject({ sourceUrl: undefined, apiDocsUrl: undefined })
    expect(loadConfig({ SOURCE_URL: 'http://git.local/velo', API_DOCS_URL: '/api/docs' })).toMatchObject({ sourceUrl: 'http://git.local/velo', apiDocsUrl: '/api/docs' })
  })

  it.each([
    [{ SOURCE_URL: 'git.example.com/velo' }, /^Invalid configuration: SOURCE_URL="git.example.com\/velo" must be an http:\/\/ or https:\/\/ address$/],
    [{ SOURCE_URL: 'javascript:alert(1)' }, /SOURCE_URL="javascript:alert\(1\)" must be/],
    [{ API_DOCS_URL: 'javascript:alert(1)' }, /API_DOCS_URL="javascript:alert\(1\)" must be/],
    [{ API_DOCS_URL: '//evil.example.com' }, /API_DOCS_URL="\/\/evil.example.com" must be/],
    // A link to the page the server was told not to serve would answer 404.
    [{ API_DOCS: 'off', API_DOCS_URL: '/api/docs' }, /API_DOCS_URL="\/api\/docs" is the OpenAPI page API_DOCS=off does not serve/],
    [{ API_DOCS: 'off', API_PREFIX: '/v1', API_DOCS_URL: '/v1/docs/' }, /API_DOCS_URL="\/v1\/docs\/" is the OpenAPI page/],
  ])('stops on %o with a one-line explanation', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  it('may name another documentation while this server serves none', () => {
    expect(loadConfig({ API_DOCS: 'off', API_DOCS_URL: 'https://developer.example.com/velo' }).apiDocsUrl).toBe('https://developer.example.com/velo')
    expect(loadConfig({ API_DOCS: 'off', API_DOCS_URL: '/api/docsite' }).apiDocsUrl).toBe('/api/docsite')
  })
})
