import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config'

describe('configuration', () => {
  it('has working defaults: SQLite under ./data, port 8080, API under /api', () => {
    const c = loadConfig({})
    expect(c.port).toBe(8080)
    expect(c.apiPrefix).toBe('/api')
    expect(c.database).toEqual({ dialect: 'sqlite', file: expect.stringMatching(/\/data\/velo\.db$/) })
    expect(c.mqttPort).toBe(1883)
    expect(c.captchaEnabled).toBeUndefined()
    expect(c.sessionTtlMinutes).toBe(30)
  })

  it('reads PostgreSQL, Redis and MQTT urls', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', REDIS_URL: 'redis://h:6379', MQTT_URL: 'mqtt://h:1883', CAPTCHA_ENABLED: 'false' })
    expect(c.database).toEqual({ dialect: 'postgres', url: 'postgres://u@h:5432/db' })
    expect(c.redisUrl).toBe('redis://h:6379')
    expect(c.captchaEnabled).toBe(false)
  })

  it.each([
    [{ PORT: 'eighty' }, /^Invalid configuration: PORT="eighty" must be a port number$/],
    [{ PORT: '70000' }, /^Invalid configuration: PORT="70000"/],
    [{ DATABASE_URL: 'mysql://x' }, /^Invalid configuration: DATABASE_URL="mysql:\/\/x" must be postgres/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL="localhost:6379" must start with redis:\/\//],
    [{ CAPTCHA_ENABLED: 'maybe' }, /CAPTCHA_ENABLED="maybe" must be true or false/],
    [{ ADMIN_PASSWORD: 'abc' }, /ADMIN_PASSWORD="abc" must be 6 to 20/],
    [{ API_PREFIX: 'api/' }, /API_PREFIX="api\/" must start with \//],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL="loud"/],
  ])('stops on %o with a one-line explanation', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    try {
      loadConfig(env)
    } catch (e) {
      expect((e as Error).message).toMatch(message)
      expect((e as Error).message).not.toContain('\n')
    }
  })
})

describe('start with bad configuration', () => {
  it('exits 1 printing one line, before touching anything', async () => {
    const { spawnSync } = await import('node:child_process')
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, DATABASE_URL: 'sqlite:/nonexistent/never.db', PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 20_000,
    })
    expect(res.status).toBe(1)
    expect(res.stderr.trim()).toBe('Invalid configuration: PORT="not-a-port" must be a port number')
  })
})

describe('the data folder', () => {
  /** The repository's root: where ./data means, whoever starts the server from wherever. */
  const root = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '')
  const dir = mkdtempSync(join(tmpdir(), 'velo-config-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const places = (c: ReturnType<typeof loadConfig>) => ({ dataDir: c.dataDir, database: c.database, storageDir: c.storageDir, mailDir: c.mailDir, backupDir: c.backupDir })

  it('is ./data of the repository by default, not of the working directory, and holds the database, files, mails and backups', () => {
    expect(places(loadConfig({}))).toEqual({
      dataDir: join(root, 'data'),
      database: { dialect: 'sqlite', file: join(root, 'data', 'velo.db') },
      storageDir: join(root, 'data', 'files'),
      mailDir: join(root, 'data', 'mail'),
      backupDir: join(root, 'data', 'backups'),
    })
    // The same from another working directory (a service's, npm's for a workspace script).
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
    const config = pathToFileURL(fileURLToPath(new URL('../src/config.ts', import.meta.url))).href
    const res = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', `const { loadConfig } = await import(${JSON.stringify(config)}); const c = loadConfig({}); console.log(JSON.stringify([c.database, c.storageDir, c.mailDir, c.backupDir]))`], {
      cwd: dir,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 20_000,
    })
    expect(res.stderr).toBe('')
    expect(JSON.parse(res.stdout)).toEqual([{ dialect: 'sqlite', file: join(root, 'data', 'velo.db') }, join(root, 'data', 'files'), join(root, 'data', 'mail'), join(root, 'data', 'backups')])
  })

  it('DATA_DIR moves all four; each set on its own wins', () => {
    const data = join(dir, 'velo-data')
    expect(places(loadConfig({ DATA_DIR: data }))).toEqual({
      dataDir: data,
      database: { dialect: 'sqlite', file: join(data, 'velo.db') },
      storageDir: join(data, 'files'),
      mailDir: join(data, 'mail'),
      backupDir: join(data, 'backups'),
    })
    const files = join(dir, 'elsewhere', 'files')
    const own = loadConfig({ DATA_DIR: data, STORAGE_DIR: files })
    expect(own.storageDir).toBe(files)
    expect([own.database, own.mailDir, own.backupDir]).toEqual([{ dialect: 'sqlite', file: join(data, 'velo.db') }, join(data, 'mail'), join(data, 'backups')])
    const each = loadConfig({ DATA_DIR: data, DATABASE_URL: 'postgres://u@h/db', MAIL_DIR: join(dir, 'm'), BACKUP_DIR: join(dir, 'b') })
    expect([each.database, each.mailDir, each.backupDir]).toEqual([{ dialect: 'postgres', url: 'postgres://u@h/db' }, join(dir, 'm'), join(dir, 'b')])
    // A relative path is the repository's too.
    expect(loadConfig({ DATA_DIR: 'some/where' }).storageDir).toBe(join(root, 'some', 'where', 'files'))
  })

  it('stops on a place that cannot be, with a one-line explanation', () => {
    const aFile = join(dir, 'a-file')
    writeFileSync(aFile, 'not a folder')
    mkdirSync(join(dir, 'a-folder'), { recursive: true })
    const cases: [Record<string, string>, RegExp][] = [
      [{ DATA_DIR: aFile }, /^Invalid configuration: DATA_DIR=".*a-file" is a file, not a folder$/],
      [{ DATA_DIR: dir, STORAGE_DIR: aFile }, /^Invalid configuration: STORAGE_DIR=".*a-file" is a file, not a folder$/],
      [{ DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'a-folder')}` }, /^Invalid configuration: DATABASE_URL="sqlite:.*a-folder" is a folder, not a database file$/],
      // STORAGE_DIR's files download by name: nothing private goes inside it.
      [{ DATA_DIR: dir, STORAGE_DIR: dir }, /^Invalid configuration: MAIL_DIR \(default .*\) is inside STORAGE_DIR=.*: any signed-in user could download the mails/],
      [{ DATA_DIR: dir, STORAGE_DIR: join(dir, 's'), BACKUP_DIR: join(dir, 's', 'backups') }, /^Invalid configuration: BACKUP_DIR=.* is inside STORAGE_DIR=.*: a backup would copy itself/],
      [{ DATA_DIR: dir, STORAGE_DIR: join(dir, 's'), DATABASE_URL: `sqlite:${join(dir, 's', 'velo.db')}` }, /^Invalid configuration: DATABASE_URL=.* is inside STORAGE_DIR=.*: any signed-in user could download the database/],
    ]
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError)
      try {
        loadConfig(env)
      } catch (e) {
        expect((e as Error).message).toMatch(message)
        expect((e as Error).message).not.toContain('\n')
      }
    }
  })
})
