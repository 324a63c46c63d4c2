import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import { ADMIN_PASSWORD, freshDatabase } from './harness'

// The built web app as the browser gets it: the build's compressed copies, kept for good when hashed.
let app: FastifyInstance
let dir: string
let drop: () => Promise<void>
const chunk = `export const page = ${JSON.stringify('x'.repeat(5000))}\n`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'velo-web-assets-'))
  const web = join(dir, 'web')
  mkdirSync(join(web, 'assets'), { recursive: true })
  writeFileSync(join(web, 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>')
  writeFileSync(join(web, 'assets', 'page-AbC123.js'), chunk)
  writeFileSync(join(web, 'assets', 'page-AbC123.js.br'), brotliCompressSync(chunk))
  writeFileSync(join(web, 'assets', 'page-AbC123.js.gz'), gzipSync(chunk))
  const database = await freshDatabase(dir)
  drop = database.drop
  app = await buildApp(
    loadConfig({ DATABASE_URL: database.url, DATA_DIR: dir, STORAGE_DIR: join(dir, 'files'), WEB_DIR: web, ADMIN_PASSWORD, LOG_LEVEL: 'silent', ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) }),
    { logger: false },
  )
  await app.ready()
})

afterAll(async () => {
  await app.close()
  await drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the web app’s files', () => {
  it('sends a chunk Brotli- or gzip-compressed as the build wrote it, to a browser that takes it', async () => {
    const br = await app.inject({ url: '/assets/page-AbC123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } })
    expect(br.statusCode).toBe(200)
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.rawPayload.length).toBeLessThan(200)
    expect(br.headers['content-type']).toMatch(/javascript/)
    const gz = await app.inject({ url: '/assets/page-AbC123.js', headers: { 'accept-encoding': 'gzip' } })
    expect(gz.headers['content-encoding']).toBe('gzip')
    const plain = await app.inject({ url: '/assets/page-AbC123.js' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body).toBe(chunk)
  })

  it('lets a browser keep hashed chunks for good and ask for the page again each time', async () => {
    expect((await app.inject({ url: '/assets/page-AbC123.js' })).headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect((await app.inject({ url: '/' })).headers['cache-control']).toBe('no-cache')
    expect((await app.inject({ url: '/system/user' })).headers['cache-control']).toBe('no-cache')
  })
})
