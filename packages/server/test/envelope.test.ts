import { afterAll, beforeAll, it } from 'vitest'
import { createTestApp, type TestApp } from './harness'

let t: TestApp
beforeAll(async () => { t = await createTestApp() })
afterAll(() => t.close())

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
function multipart(files: { field: string; name: string; bytes: Buffer; type?: string }[]) {
  const boundary = '----velotest' + Math.random().toString(16).slice(2)
  const parts: Buffer[] = []
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: ${f.type ?? 'application/octet-stream'}\r\n\r\n`))
    parts.push(f.bytes, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

it("probe", async () => {
  { const tk = await t.login(); const r = await t.app.inject({ url: "/api/system/config/configKey/sys.account.captchaType", headers: { authorization: tk } }); console.log("RAW", r.statusCode, r.headers["content-type"], JSON.stringify(r.body)); }
  const tok = await t.login()
  const log = (l: string, r: any) => console.log(l, r.status, r.code, r.msg, JSON.stringify(r.data)?.slice(0, 300))
  let m = multipart([{ field: 'file', name: 'a.png', bytes: PNG }, { field: 'file', name: 'b.png', bytes: PNG }])
  log('two', await t.call({ method: 'POST', url: '/api/common/upload', token: tok, ...m }))
  m = multipart([{ field: 'file', name: 'a.png', bytes: PNG }])
  log('one', await t.call({ method: 'POST', url: '/api/common/upload', token: tok, ...m }))
  log('nofile', await t.call({ method: 'POST', url: '/api/common/upload', token: tok, payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--x--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=x' } }))
  log('json', await t.call({ method: 'POST', url: '/api/common/upload', token: tok, body: {a:1} }))
  log('unknownkey', await t.call({ method: 'POST', url: '/api/system/dict/list', token: tok, body: { foo: 1 } }))
  log('unknownkey zh', await t.call({ method: 'POST', url: '/api/system/dict/list', token: tok, lang: 'zh_CN', body: { foo: 1 } }))
  log('missing', await t.call({ method: 'POST', url: '/api/system/dict', token: tok, body: { dictType: 'abc' } }))
  log('missing zh', await t.call({ method: 'POST', url: '/api/system/dict', token: tok, lang: 'zh_CN', body: { dictType: 'Abc' } }))
  log('badjson', await t.call({ method: 'POST', url: '/api/system/dict', token: tok, payload: '{bad', headers: { 'content-type': 'application/json' } }))
  log('textplain', await t.call({ method: 'POST', url: '/api/system/dict', token: tok, payload: 'x', headers: { 'content-type': 'text/plain' } }))
  const d = await t.app.inject({ url: '/api/docs' }); console.log('docs', d.statusCode, d.headers['content-type'], d.headers.location, d.body.slice(0, 100))
  const j = await t.app.inject({ url: '/api/docs/json' }); console.log('json', j.statusCode, Object.keys(j.json().paths).slice(0, 50), j.json().openapi)
  const w = await t.app.inject({ url: '/some/page' }); console.log('web', w.statusCode, w.headers['content-type'], w.body.slice(0, 60))
  log('dl', await t.call({ url: '/api/common/download?fileName=a%00b', token: tok }))
  log('get bad id', await t.call({ url: '/api/system/dict/abc', token: tok }))
  log('sort', await t.call({ method: 'POST', url: '/api/system/dict/list', token: tok, body: { orderByColumn: 'password' } }))
  log('cfgkey', await t.call({ url: '/api/system/config/configKey/sys.account.captchaType', token: tok }))
  log('range', await t.call({ method: 'POST', url: '/api/system/dict/list', token: tok, body: { createTime: ['2000-01-01', new Date().toISOString().slice(0,10)] } }))
  log('large', await t.call({ method: 'POST', url: '/api/system/dict', token: tok, body: { dictName: 'x'.repeat(3_000_000) } }))
})
