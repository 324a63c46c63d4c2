import { describe, expect, it } from 'vitest'
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
