import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createTestApp, useTestApp } from './harness'

// API_DOCS: the OpenAPI page and document list every route, so by default only signed-in staff get
// them, by the Authorization header or by the console's session cookie (what a browser sends when
// the navbar's link opens the page); `public` serves them to anyone, `off` not at all.
const t = useTestApp()

const DOCS = ['/api/docs', '/api/docs/', '/api/docs/json', '/api/docs/yaml', '/api/docs/static/swagger-initializer.js']

describe('GET /api/docs with API_DOCS=staff (the default)', () => {
  it('is the default', () => {
    expect(loadConfig({}).apiDocs).toBe('staff')
    expect(() => loadConfig({ API_DOCS: 'everyone' })).toThrow(/API_DOCS/)
  })

  it('refuses anyone not signed in, in both languages', async () => {
    for (const url of DOCS) {
      const res = await t.call({ url })
      expect(res.status, url).toBe(401)
      expect(res.msg, url).toBe('Please sign in first')
      expect(res.raw.toString(), url).not.toContain('/api/system/user')
    }
    expect((await t.call({ url: '/api/docs/json', lang: 'zh_CN' })).msg).toBe('请先登录')
    expect((await t.call({ url: '/api/docs/json', token: 'not-a-token' })).status).toBe(401)
    expect((await t.call({ url: '/api/docs/json', headers: { cookie: 'Admin-Token#=not-a-token' } })).status).toBe(401)
  })

  it('serves the page and the document to a signed-in user, by header or by the console’s cookie', async () => {
    const byHeader = await t.call({ url: '/api/docs/json', token: t.admin })
    expect(byHeader.status).toBe(200)
    expect(JSON.parse(byHeader.raw.toString()).paths['/api/system/user/list']).toBeTruthy()
    const page = await t.call({ url: '/api/docs', token: t.admin })
    expect(page.status).toBe(200)
    expect(page.raw.toString().toLowerCase()).toContain('swagger')
    // As js-cookie writes it (the console's token cookie), beside other cookies.
    const cookie = `sidebarStatus=1; Admin-Token#=${encodeURIComponent(t.admin)}; size=middle`
    for (const url of DOCS) expect((await t.call({ url, headers: { cookie } })).status, url).toBeLessThan(400)
    expect((await t.call({ url: '/api/docs/json', headers: { cookie } })).status).toBe(200)
    expect((await t.call({ url: '/api/docs/json', headers: { cookie: `Admin-Token%23=${t.admin}` } })).status).toBe(200)
  })

  it('refuses a session that has ended', async () => {
    const token = await t.login()
    expect((await t.call({ url: '/api/docs/json', headers: { cookie: `Admin-Token#=${token}` } })).status).toBe(200)
    expect((await t.call({ method: 'POST', url: '/api/logout', token })).status).toBe(200)
    expect((await t.call({ url: '/api/docs/json', headers: { cookie: `Admin-Token#=${token}` } })).status).toBe(401)
    expect((await t.call({ url: '/api/docs/json', token })).status).toBe(401)
  })

  it('reads the cookie only for the documentation: the API still wants the header', async () => {
    const res = await t.call({ url: '/api/getUserInfo', headers: { cookie: `Admin-Token#=${t.admin}` } })
    expect(res.status).toBe(401)
  })
})

describe('the document', () => {
  // The engine's bodies (list, add, modify, counts, summary) are made at a route's first request
  // (crud/schemas.ts atFirstUse): the document still names their fields.
  it('names the fields of the engine\'s bodies, made at first use', async () => {
    const doc = JSON.parse((await t.call({ url: '/api/docs/json', token: t.admin })).raw.toString()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>
    }
    const fields = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema.properties ?? {})
    expect(fields('/api/system/user/list', 'post')).toEqual(expect.arrayContaining(['pageNum', 'pageSize', 'userName']))
    expect(fields('/api/system/user', 'post')).toEqual(expect.arrayContaining(['userName', 'nickName']))
    expect(fields('/api/system/user', 'put')).toEqual(expect.arrayContaining(['userId', 'nickName']))
    expect(fields('/api/system/user/summary', 'post')).toEqual(expect.arrayContaining(['time', 'bucket']))
  })

  // Routes keep their answers by status class for Fastify (responses.ts declareAnswersByClass): the
  // document says the statuses the routes declared, and only the ranged downloads answer HEAD.
  it('says 200 where a route declared 200, and HEAD only for downloads that answer byte ranges', async () => {
    const doc = JSON.parse((await t.call({ url: '/api/docs/json', token: t.admin })).raw.toString()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }> }>>
    }
    const statuses = Object.values(doc.paths).flatMap((methods) => Object.values(methods).flatMap((op) => Object.keys(op.responses)))
    expect(statuses.filter((s) => /xx$/i.test(s))).toEqual([])
    expect(Object.keys(doc.paths['/api/system/user/list']!.post!.responses)).toContain('200')
    expect(doc.paths['/api/system/user/list']!.post!.responses['200']!.content!['application/json']!.schema!.properties).toHaveProperty('data')
    expect(Object.keys(doc.paths['/api/monitor/job/{id}/file']!.get!.responses)).toEqual(expect.arrayContaining(['200', '206']))
    // (The documentation's own static files, served by @fastify/static, answer HEAD as files do.)
    const heads = t.app.routeTable.filter((r) => [r.method].flat().includes('HEAD') && r.url.startsWith('/api/') && !r.url.startsWith('/api/docs')).map((r) => r.url)
    expect(heads).toContain('/api/monitor/job/:id/file')
    expect(heads.filter((url) => !('206' in ((t.app.routeTable.find((r) => r.url === url && r.method === 'GET')?.schema?.response as object) ?? {})))).toEqual([])
    // The answer a client gets is the same: a 200 written by the route's 2xx serializer.
    const listed = await t.call<{ rows: unknown[]; total: number }>({ method: 'POST', url: '/api/system/user/list', token: t.admin, body: { pageSize: 1 } })
    expect([listed.status, listed.code, listed.data.rows.length]).toEqual([200, 200, 1])
    expect(listed.data.total).toBeGreaterThan(0)
  })
})

describe('API_DOCS=public and off', () => {
  it('public: anyone gets the page and the document', async () => {
    const open = await createTestApp({ API_DOCS: 'public' })
    try {
      expect((await open.call({ url: '/api/docs/json' })).status).toBe(200)
      expect((await open.call({ url: '/api/docs' })).status).toBe(200)
    } finally {
      await open.close()
    }
  })

  it('off: not served, signed in or not', async () => {
    const off = await createTestApp({ API_DOCS: 'off' })
    try {
      const token = await off.login()
      for (const url of ['/api/docs', '/api/docs/json']) {
        expect((await off.call({ url })).status, url).toBe(404)
        expect((await off.call({ url, token })).status, url).toBe(404)
      }
    } finally {
      await off.close()
    }
  })
})
