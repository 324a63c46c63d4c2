import Fastify from 'fastify'
import { requireResponseSchemas } from '../src/platform/responses'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SESSION_END_CODES } from '@velo/shared'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import type { FieldIssue } from '../src/platform/errors'
import { ADMIN_PASSWORD, addUser, createTestApp, freshDatabase, type Refusal, type TestApp } from './harness'

const here = dirname(fileURLToPath(import.meta.url))
const webIndex = resolve(here, '../../web/dist/index.html')
const SPA_MARKER = '<title>Own test build</title>'

let t: TestApp
let token: string

/** An app built by hand, with routes that fail on purpose and a web build of its own. */
let own: FastifyInstance
let ownDir: string
let dropOwn: () => Promise<void>
let ownToken: string
const requestIds: string[] = []

beforeAll(async () => {
  t = await createTestApp()
  token = await t.login()

  ownDir = mkdtempSync(join(tmpdir(), 'velo-envelope-'))
  const web = join(ownDir, 'web')
  mkdirSync(web)
  writeFileSync(join(web, 'index.html'), `<!doctype html><html><head>${SPA_MARKER}</head><body><div id="root"></div></body></html>`)
  writeFileSync(join(web, 'robots.txt'), 'User-agent: *')
  const database = await freshDatabase(ownDir)
  dropOwn = database.drop
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_DIR: join(ownDir, 'files'),
    WEB_DIR: web,
    ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  })
  own = await buildApp(config, { logger: false })
  own.addHook('onRequest', async (req) => {
    requestIds.push(String(req.id))
  })
  own.get('/api-test/boom', { config: { permission: 'public' } }, async () => {
    throw new Error('secret detail')
  })
  own.get('/api-test/boom-5xx', { config: { permission: 'public' } }, async () => {
    throw Object.assign(new Error('upstream secret detail'), { statusCode: 502 })
  })
  own.get('/api-test/boom-later', { config: { permission: 'public' } }, async () => {
    await new Promise((r) => setTimeout(r, 1))
    throw new TypeError("Cannot read properties of undefined (reading 'secret detail')")
  })
  await own.ready()
  ownToken = JSON.parse((await own.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: ADMIN_PASSWORD } })).body).data.token
})

afterAll(async () => {
  await t.close()
  await own.close()
  await dropOwn()
  rmSync(ownDir, { recursive: true, force: true })
})

const envelopeOf = (body: string) => JSON.parse(body) as { code: number; msg: string; data: unknown }

describe('not found', () => {
  it('an unknown API route answers a 404 envelope naming the path without its query', async () => {
    for (const [method, url] of [
      ['GET', '/api/nope?x=1'],
      ['POST', '/api/system/nope'],
      ['DELETE', '/api/system/dict'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization: token } })
      expect(res.statusCode).toBe(404)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.json()).toEqual({ code: 404, msg: `Not found: ${url.split('?')[0]}`, data: null })
    }
    const zh = await t.call({ url: '/api/nope', token, lang: 'zh_CN' })
    expect(zh.msg).toBe('未找到：/api/nope')
  })

  it('an unknown API route answers 404 to a signed-in user who is not admin', async () => {
    await addUser(t, { userName: 'lost404', roleKeys: ['common'] })
    const res = await t.call({ url: '/api/nope', token: await t.login('lost404', 'secret12') })
    expect(res.status).toBe(404)
  })

  it('an unknown API route answers 404 to an anonymous caller', async () => {
    const res = await t.call({ url: '/api/nope' })
    expect(res.status).toBe(404)
  })

  it('an unknown page outside the API gets the web app when it is built, else a 404 envelope', async () => {
    const res = await t.app.inject({ url: '/system/dict/some/deep/link' })
    if (existsSync(webIndex)) {
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.body).toContain('<div id="root"></div>')
      expect(res.body).toContain('<title>Velo Admin</title>')
    } else {
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ code: 404, msg: 'Not found: /system/dict/some/deep/link', data: null })
    }
    // Only GETs are pages.
    const post = await t.app.inject({ method: 'POST', url: '/system/dict/some/deep/link' })
    expect(post.statusCode).toBe(404)
    expect(post.json().code).toBe(404)
  })

  it('with a web build, serves its files and its index for unknown pages, but never for the API', async () => {
    const page = await own.inject({ url: '/monitor/operlog?page=2' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.body).toContain(SPA_MARKER)
    const file = await own.inject({ url: '/robots.txt' })
    expect(file.statusCode).toBe(200)
    expect(file.body).toBe('User-agent: *')
    const api = await own.inject({ url: '/api/no/such/route', headers: { authorization: ownToken } })
    expect(api.statusCode).toBe(404)
    expect(api.json()).toEqual({ code: 404, msg: 'Not found: /api/no/such/route', data: null })
    const post = await own.inject({ method: 'POST', url: '/monitor/operlog' })
    expect(post.statusCode).toBe(404)
    expect(post.body).not.toContain(SPA_MARKER)
  })
})

describe('validation errors', () => {
  it('name each field in data.errors, for a body', async () => {
    const res = await t.call<{ errors: FieldIssue[] }>({ method: 'POST', url: '/api/system/dict', token, body: { dictType: 'Not Valid' } })
    expect(res.status).toBe(400)
    expect(res.code).toBe(400)
    expect(res.data.errors).toEqual([
      { field: 'dictName', message: 'Dictionary name is required' },
      { field: 'dictType', message: 'Dictionary type must start with a letter and use lower-case letters, digits and _' },
    ])
    expect(res.msg).toBe(`Invalid request: ${res.data.errors.map((e: { message: string }) => e.message).join('; ')}`)
  })

  it('name each field for a query string and for path parameters', async () => {
    const query = await t.call<Refusal>({ url: '/api/common/download?delete=maybe', token })
    expect(query.status).toBe(400)
    expect(query.data.errors.map((e: { field: string }) => e.field).sort()).toEqual(['delete', 'fileName'])
    const path = await t.call<Refusal>({ url: '/api/system/config/x1', token })
    expect(path.status).toBe(400)
    expect(path.data.errors.map((e: { field: string }) => e.field)).toEqual(['id'])
  })

  it('refuses a malformed JSON body with a 400 envelope and changes nothing', async () => {
    const before = await t.app.services.db.selectFrom('sysDictType').selectAll().execute()
    const res = await t.app.inject({ method: 'POST', url: '/api/system/dict', headers: { authorization: token, 'content-type': 'application/json' }, payload: '{"dictName": "Broken", "dictType": "broken_json",' })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = envelopeOf(res.body)
    expect(body.code).toBe(400)
    expect(body.msg).toMatch(/not valid JSON/)
    expect(body.data).toBeNull()
    const empty = await t.app.inject({ method: 'POST', url: '/api/system/dict', headers: { authorization: token, 'content-type': 'application/json' }, payload: '' })
    expect(empty.statusCode).toBe(400)
    expect(envelopeOf(empty.body).code).toBe(400)
    expect(await t.app.services.db.selectFrom('sysDictType').selectAll().execute()).toEqual(before)
  })
})

describe('languages', () => {
  const notSignedIn = (headers: Record<string, string>) => t.call({ method: 'POST', url: '/api/system/dict/list', body: {}, headers })

  it('speaks en_US by default and for en_US', async () => {
    expect((await notSignedIn({})).msg).toBe('Please sign in first')
    expect((await notSignedIn({ currentLanguage: 'en_US' })).msg).toBe('Please sign in first')
  })

  it('speaks zh_CN when the currentLanguage header asks for it, in any header case or with a dash', async () => {
    expect((await notSignedIn({ currentLanguage: 'zh_CN' })).msg).toBe('请先登录')
    expect((await notSignedIn({ currentlanguage: 'zh_CN' })).msg).toBe('请先登录')
    expect((await notSignedIn({ currentLanguage: 'zh-CN' })).msg).toBe('请先登录')
  })

  it('falls back to en_US for a language it does not have', async () => {
    for (const lang of ['fr_FR', 'zh', 'ZH_cn', '']) expect((await notSignedIn({ currentLanguage: lang })).msg, lang).toBe('Please sign in first')
  })

  it('localizes success messages and field errors too', async () => {
    expect((await t.call({ url: '/api/common/features' })).msg).toBe('Operation successful')
    expect((await t.call({ url: '/api/common/features', lang: 'zh_CN' })).msg).toBe('操作成功')
    const zh = await t.call<Refusal>({ method: 'POST', url: '/api/system/dict', token, lang: 'zh_CN', body: { dictType: 'ok_type' } })
    expect(zh.data.errors).toEqual([{ field: 'dictName', message: '字典名称不能为空' }])
  })
})

describe('unexpected errors', () => {
  it('answer 500 with a generic message holding the request id, and no detail or stack', async () => {
    for (const url of ['/api-test/boom', '/api-test/boom-5xx', '/api-test/boom-later']) {
      const res = await own.inject({ url })
      expect(res.statusCode).toBe(500)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      const id = requestIds.at(-1)!
      expect(envelopeOf(res.body)).toEqual({ code: 500, msg: `The server could not complete the request (request id ${id})`, data: null })
      expect(res.body).not.toContain('secret detail')
      expect(res.body).not.toContain('at ')
      expect(res.body).not.toContain('Error')
    }
    const zh = await own.inject({ url: '/api-test/boom', headers: { currentLanguage: 'zh_CN' } })
    expect(envelopeOf(zh.body).msg).toBe(`服务器未能完成请求（请求编号 ${requestIds.at(-1)}）`)
  })

  it('do not stop the app: the next request is served', async () => {
    await own.inject({ url: '/api-test/boom' })
    const res = await own.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: ADMIN_PASSWORD } })
    expect(res.statusCode).toBe(200)
    expect(envelopeOf(res.body).code).toBe(200)
  })
})

describe('status and code', () => {
  it('every error answers an envelope whose code is the HTTP status (session ends: 401 with their own code)', async () => {
    await t.app.services.db.updateTable('sysConfig').set({ configValue: 'false' }).where('configKey', '=', 'sys.account.registerUser').execute()
    await addUser(t, { userName: 'envreader', roleKeys: ['common'] })
    const reader = await t.login('envreader', 'secret12')
    const cases: [string, InjectOptions, FastifyInstance?][] = [
      ['validation', { method: 'POST', url: '/api/system/dict', headers: { authorization: token }, payload: {} }],
      ['malformed JSON', { method: 'POST', url: '/api/system/dict', headers: { authorization: token, 'content-type': 'application/json' }, payload: '{' }],
      ['no token', { method: 'POST', url: '/api/system/dict/list', payload: {} }],
      ['unknown token', { method: 'POST', url: '/api/system/dict/list', headers: { authorization: 'Bearer not-a-token' }, payload: {} }],
      ['forbidden', { method: 'DELETE', url: '/api/system/dict/1', headers: { authorization: reader } }],
      ['unknown route', { method: 'GET', url: '/api/unknown', headers: { authorization: token } }],
      ['unknown record', { method: 'GET', url: '/api/system/dict/99999', headers: { authorization: token } }],
      ['conflict', { method: 'POST', url: '/api/system/dict', headers: { authorization: token }, payload: { dictName: 'x', dictType: 'sys_yes_no' } }],
      ['body too large', { method: 'POST', url: '/api/system/dict', headers: { authorization: token, 'content-type': 'application/json' }, payload: JSON.stringify({ dictName: 'x'.repeat(2_200_000) }) }],
      ['unsupported media type', { method: 'POST', url: '/api/system/dict', headers: { authorization: token, 'content-type': 'application/xml' }, payload: '<dict/>' }],
      ['bad credentials', { method: 'POST', url: '/api/login', payload: { username: 'admin', password: 'wrong-password' } }],
      ['switched off', { method: 'POST', url: '/api/register', payload: { username: 'someone1', password: 'Secret123', confirmPassword: 'Secret123' } }],
      ['server error', { method: 'GET', url: '/api-test/boom' }, own],
    ]
    const seen = new Set<number>()
    for (const [label, opts, app] of cases) {
      const res = await (app ?? t.app).inject(opts)
      expect(res.statusCode, label).toBeGreaterThanOrEqual(400)
      expect(res.headers['content-type'], label).toMatch(/^application\/json/)
      const body = envelopeOf(res.body)
      expect(Object.keys(body).sort(), label).toEqual(['code', 'data', 'msg'])
      expect(body.msg.length, label).toBeGreaterThan(0)
      if (res.statusCode === 401) expect(SESSION_END_CODES, label).toContain(body.code)
      else expect(body.code, label).toBe(res.statusCode)
      seen.add(res.statusCode)
    }
    expect([...seen].sort()).toEqual([400, 401, 403, 404, 409, 413, 415, 500])
  })

  it('too many requests answer 429 with code 429', async () => {
    const body = { username: 'flooder1', password: 'Secret123', confirmPassword: 'Secret123' }
    let last
    for (let i = 0; i < 11; i++) last = await t.call({ method: 'POST', url: '/api/register', body })
    expect(last!.status).toBe(429)
    expect(last!.code).toBe(429)
    expect(last!.msg).toBe('Too many requests, please try again later')
  })

  it('a success answers HTTP 200 with code 200 and the data', async () => {
    const res = await t.call<{ dictType: string }>({ url: '/api/system/dict/1', token })
    expect(res.status).toBe(200)
    expect(res.code).toBe(200)
    expect(res.msg).toBe('Operation successful')
    expect(res.data.dictType).toBe('sys_normal_disable')
  })
})

describe('API documentation', () => {
  it('GET /api/docs/json is an OpenAPI 3 document of the API', async () => {
    const res = await t.app.inject({ url: '/api/docs/json', headers: { authorization: token } })
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toMatch(/^3\./)
    expect(doc.info.title).toBe('Velo Admin API')
    expect(doc.paths['/api/login'].post).toBeTruthy()
    expect(doc.paths['/api/system/dict/list'].post).toBeTruthy()
    expect(doc.paths['/api/system/dict/{id}'].get).toBeTruthy()
    expect(doc.paths['/api/system/config/configKey/{key}'].get).toBeTruthy()
    // The body schema comes from the same definitions the server validates with.
    const body = doc.paths['/api/system/dict'].post.requestBody.content['application/json'].schema
    expect(body.required).toEqual(expect.arrayContaining(['dictName', 'dictType']))
  })

  it('documents every answer: an entity list answers its rows as the definition gives them, and every reference resolves', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/json', headers: { authorization: token } })).json()
    const list = doc.paths['/api/system/dict/list'].post.responses['200'].content['application/json'].schema
    expect(list.properties.data.properties.rows.items.$ref).toBe('#/components/schemas/DictTypeRow')
    const row = doc.components.schemas.DictTypeRow
    expect(Object.keys(row.properties)).toEqual(expect.arrayContaining(['dictId', 'dictName', 'dictType', 'status']))
    // Nothing is named and left undefined.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(10)
    expect([...new Set(refs)].filter((name) => !doc.components.schemas[name])).toEqual([])
    // Files answer bytes of their type.
    expect(Object.keys(doc.paths['/api/system/dict/export'].post.responses['200'].content)).toEqual(['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'])
  })

  it('refuses at start a route that does not declare its answer', async () => {
    const app = Fastify()
    await app.register(async (api) => {
      requireResponseSchemas(api)
      expect(() => api.get('/undeclared', async () => 'x')).toThrow(/declares no response schema/)
      expect(() => api.get('/declared', { schema: { response: { 200: { type: 'string' } } } }, async () => 'x')).not.toThrow()
    })
    await app.close()
  })

  it('GET /api/docs serves the HTML viewer', async () => {
    const res = await t.app.inject({ url: '/api/docs', headers: { authorization: token } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.body).toMatch(/<html/i)
    expect(res.body.toLowerCase()).toContain('swagger')
  })
})
