import { createHmac } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registrationSigningText, statusPayload, upTopic } from '@velo/shared'
import { demoBehaviour, Fleet, FleetAbort, givenCredentials, Registrar, registrationRequest, SecretStore, snFor } from '../src'
import { closedPort, secretOf, startBroker, type TestBroker, waitFor } from './helpers'

let broker: TestBroker
let dir: string

beforeAll(async () => {
  broker = await startBroker()
  dir = mkdtempSync(join(tmpdir(), 'velo-sim-test-'))
})
afterAll(async () => {
  await broker.close()
  rmSync(dir, { recursive: true, force: true })
})

const KEY = 'test-registration-key'

/**
 * The server's POST /iot/register as docs/iot-protocol.md describes it, in miniature: checks the
 * signature, refuses a nonce it has seen (409), issues secretOf(sn) (the test broker's secret) or a bad one for SNs in `badSecret`,
 * and answers 429 to the first `limited` requests.
 */
async function registrationServer(o: { brokerPort: number; limited?: number; badSecret?: Set<string> }) {
  const calls: string[] = []
  const nonces = new Set<string>()
  let limited = o.limited ?? 0
  let brokerPort = o.brokerPort
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(json))
      }
      if (req.method === 'GET' && req.url === '/api/iot/broker') return send(200, { code: 200, msg: 'ok', data: { port: brokerPort } })
      if (req.url !== '/api/iot/register') return send(404, { code: 404, msg: 'Not found' })
      if (limited > 0) {
        limited--
        return send(429, { code: 429, msg: 'Too many requests' }, { 'retry-after': '1' })
      }
      const { productId, sn, timestamp, nonce, sign } = JSON.parse(body) as { productId: string; sn: string; timestamp: number; nonce: string; sign: string }
      const expected = createHmac('sha256', KEY).update(registrationSigningText({ productId, sn, timestamp, nonce })).digest('hex')
      if (productId !== 'VELO-4G' || !nonce || sign !== expected) return send(401, { code: 401, msg: 'The registration signature is wrong' })
      if (nonces.has(nonce)) return send(409, { code: 409, msg: 'This registration request was already used' })
      nonces.add(nonce)
      calls.push(sn!)
      send(200, { code: 200, msg: 'ok', data: { sn, secret: o.badSecret?.has(sn!) ? 'wrong' : secretOf(sn!), mqtt: { port: brokerPort } } })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    api: `http://127.0.0.1:${(server.address() as { port: number }).port}/api`,
    calls,
    /** The server restarted and its embedded broker took another port. */
    moveBroker: (port: number) => {
      brokerPort = port
    },
    close: () => new Promise((r) => server.close(r)),
  }
}

const brokerPort = () => Number(new URL(broker.url).port)

describe('Fleet', () => {
  it('connects many devices with bounded concurrency, sums their counters, and closes them all cleanly', async () => {
    const fleet = new Fleet({ count: 40, prefix: 'FA', concurrency: 8, credentials: givenCredentials(broker.url, secretOf), behaviour: { heartbeatSeconds: 0 } })
    const stats = await fleet.start()
    expect(stats).toMatchObject({ total: 40, started: 40, connected: 40, failed: 0, registered: 0 })
    expect(fleet.devices.map((d) => d.sn).sort()).toEqual(Array.from({ length: 40 }, (_, i) => snFor('FA', i + 1)))

    await Promise.all(fleet.devices.slice(0, 5).map((d) => broker.command(d.sn, { id: `p-${d.sn}`, name: 'ping' })))
    await waitFor(() => fleet.stats().commandsAnswered === 5, '5 answers')
    expect(fleet.stats()).toMatchObject({ commandsReceived: 5, commandsAnswered: 5, commandsFailed: 0 })

    await fleet.closeAll()
    expect(fleet.stats().connected).toBe(0)
    for (const d of fleet.devices) {
      const presence = broker.on(upTopic(d.sn, 'presence'))
      expect(presence.at(-1)!.payload).toMatchObject({ state: 'offline', reason: 'shutdown' })
    }
  })

  it('counts devices the broker refuses, with their reason, and goes on with the others', async () => {
    const fleet = new Fleet({ count: 6, prefix: 'FB', credentials: givenCredentials(broker.url, (sn) => (sn.endsWith('3') ? 'wrong' : secretOf(sn))) })
    const stats = await fleet.start()
    expect(stats).toMatchObject({ started: 5, failed: 1 })
    expect([...stats.failures]).toEqual([['connect: the broker refused the secret (CONNACK 5)', 1]])
    await fleet.closeAll()
  })

  it('counts devices the broker refuses after they were connected (a secret reset)', async () => {
    const fleet = new Fleet({ count: 3, prefix: 'FG', credentials: givenCredentials(broker.url, secretOf), mqtt: { reconnectPeriod: 50 } })
    await fleet.start()
    broker.revoke('FG000002')
    await waitFor(() => fleet.stats().refused === 1, 'the refused reconnect')
    expect(fleet.stats()).toMatchObject({ connected: 2, refused: 1, drops: 1 })
    await fleet.closeAll()
  })

  it('aborts when nothing listens where the broker should be', async () => {
    const fleet = new Fleet({ count: 3, prefix: 'FC', credentials: givenCredentials(`mqtt://127.0.0.1:${await closedPort()}`, secretOf) })
    await expect(fleet.start()).rejects.toThrow(FleetAbort)
    await expect(fleet.start()).rejects.toThrow(/Cannot reach the MQTT broker/)
    await fleet.closeAll()
  })

  it('registers, keeps the secrets, and reuses them on a rerun; a refused secret is registered again', async () => {
    const server = await registrationServer({ brokerPort: brokerPort(), badSecret: new Set(['FD000002']) })
    const file = join(dir, 'nested', 'secrets.json')
    try {
      const run = async () => {
        const store = new SecretStore(file, `${server.api} VELO-4G`)
        const fleet = new Fleet({ count: 3, prefix: 'FD', credentials: new Registrar({ api: server.api, productId: 'VELO-4G', key: KEY, store }) })
        const stats = await fleet.start()
        store.save()
        await fleet.closeAll()
        return stats
      }
      // This server hands FD000002 a secret the broker refuses: a fresh secret is not registered again.
      const first = await run()
      expect(first).toMatchObject({ started: 2, failed: 1, registered: 3 })
      expect(server.calls.sort()).toEqual(['FD000001', 'FD000002', 'FD000003'])
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).servers[`${server.api} VELO-4G`]).sort()).toEqual(['FD000001', 'FD000002', 'FD000003'])

      server.calls.length = 0
      const second = await run()
      // FD000001 and 3 reuse their secrets; FD000002's stored one is refused, so it registers again (and is refused again).
      expect(server.calls).toEqual(['FD000002'])
      expect(second).toMatchObject({ registered: 1, failed: 1 })
    } finally {
      await server.close()
    }
  })

  it('finds the broker on its new port after a server restart: stored secrets connect where the server says now', async () => {
    let before = await startBroker()
    const server = await registrationServer({ brokerPort: Number(new URL(before.url).port) })
    const file = join(dir, 'moved', 'secrets.json')
    const run = async () => {
      const store = new SecretStore(file, `${server.api} VELO-4G`)
      const fleet = new Fleet({ count: 2, prefix: 'FH', credentials: new Registrar({ api: server.api, productId: 'VELO-4G', key: KEY, store }) })
      try {
        return await fleet.start()
      } finally {
        store.save()
        await fleet.closeAll()
      }
    }
    try {
      expect(await run()).toMatchObject({ started: 2, registered: 2 })
      // The restart: the old port is gone, the broker listens elsewhere (MQTT_PORT was taken).
      await before.close()
      const after = await startBroker()
      before = after
      server.moveBroker(Number(new URL(after.url).port))
      server.calls.length = 0
      expect(await run()).toMatchObject({ started: 2, registered: 0, failed: 0 })
      expect(server.calls).toEqual([])
      expect(after.on(upTopic('FH000001', 'presence')).length).toBeGreaterThan(0)
    } finally {
      await before.close()
      await server.close()
    }
  })

  it('signs a fresh nonce into every registration request, so none can be sent twice', () => {
    const a = registrationRequest('VELO-4G', KEY, 'FG000001', 1763600000000)
    const b = registrationRequest('VELO-4G', KEY, 'FG000001', 1763600000000)
    expect(a.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(b.nonce).not.toBe(a.nonce)
    expect(b.sign).not.toBe(a.sign)
    expect(a.sign).toBe(createHmac('sha256', KEY).update(`VELO-4G:FG000001:1763600000000:${a.nonce}`).digest('hex'))
  })

  it('waits out a 429 and goes on', async () => {
    const server = await registrationServer({ brokerPort: brokerPort(), limited: 1 })
    try {
      const waits: number[] = []
      const registrar = new Registrar({ api: server.api, productId: 'VELO-4G', key: KEY, store: new SecretStore(null, 'x') })
      registrar.onRateLimited = (ms) => waits.push(ms)
      const fleet = new Fleet({ count: 2, prefix: 'FE', concurrency: 1, credentials: registrar })
      expect(await fleet.start()).toMatchObject({ started: 2, registered: 2 })
      expect(waits).toEqual([1000])
      await fleet.closeAll()
    } finally {
      await server.close()
    }
  })

  it('aborts with a clear message when the key is refused or the server is unreachable', async () => {
    const server = await registrationServer({ brokerPort: brokerPort() })
    try {
      const refused = new Fleet({ count: 2, prefix: 'FF', credentials: new Registrar({ api: server.api, productId: 'VELO-4G', key: 'wrong', store: new SecretStore(null, 'x') }) })
      await expect(refused.start()).rejects.toThrow(/refused the registration key of VELO-4G .*IoT models/)
    } finally {
      await server.close()
    }
    const api = `http://127.0.0.1:${await closedPort()}/api`
    const unreachable = new Fleet({ count: 2, prefix: 'FF', credentials: new Registrar({ api, productId: 'VELO-4G', key: KEY, store: new SecretStore(null, 'x') }) })
    await expect(unreachable.start()).rejects.toThrow(/Cannot reach the server at .*ECONNREFUSED/)
  })

  it('demo profiles are stable per SN, valid, and activate about the asked share', async () => {
    const sns = Array.from({ length: 1000 }, (_, i) => snFor('VL', i + 1))
    expect(demoBehaviour('VL000007', { activated: 0.5 })).toEqual(demoBehaviour('VL000007', { activated: 0.5 }))
    const share = sns.filter((sn) => demoBehaviour(sn, { activated: 0.3 }).activated).length / sns.length
    expect(share).toBeGreaterThan(0.25)
    expect(share).toBeLessThan(0.35)
    for (const sn of sns.slice(0, 50)) {
      const b = demoBehaviour(sn, { activated: 1 })
      statusPayload.parse({ v: 1, firmwareVersion: b.firmwareVersion, activated: b.activated, sim: { iccid: b.iccid, usedMb: b.simUsedMb, limitMb: b.simLimitMb } })
    }
  })
})
