import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { describe, expect, it } from 'vitest'
import { createTestApp } from './harness'

function connect(port: number, options: mqtt.IClientOptions = {}): Promise<{ ok: boolean; code?: number }> {
  return new Promise((resolve) => {
    const client = mqtt.connect(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0, connectTimeout: 5000, ...options })
    client.once('connect', () => {
      client.end(true)
      resolve({ ok: true })
    })
    client.once('error', (err: Error & { code?: number }) => {
      client.end(true)
      resolve({ ok: false, code: err.code })
    })
  })
}

describe('embedded MQTT broker', () => {
  it('starts with the app when no MQTT_URL is set, and refuses devices nobody registered', async () => {
    // MQTT_PORT chosen: the embedded broker even when the suite runs on an external one (TEST_MQTT_URL).
    const t = await createTestApp({ MQTT_PORT: '0' })
    try {
      const broker = t.app.broker!
      expect(broker.port).toBeGreaterThan(0)
      expect(await connect(broker.port, { username: 'SN0001', password: 'guess' })).toEqual({ ok: false, code: 5 })
      expect(await connect(broker.port)).toEqual({ ok: false, code: 5 })
    } finally {
      await t.close()
    }
    // Closed with the app.
    expect((await connect(t.app.broker!.port)).ok).toBe(false)
  })

  it('takes a free port when MQTT_PORT is taken, and says which', async () => {
    const holder = createServer()
    await new Promise<void>((r) => holder.listen(0, r))
    const taken = (holder.address() as { port: number }).port
    const t = await createTestApp({ MQTT_PORT: String(taken) })
    try {
      expect(t.app.broker!.requestedPort).toBe(taken)
      expect(t.app.broker!.port).not.toBe(taken)
      expect(await connect(t.app.broker!.port)).toEqual({ ok: false, code: 5 })
    } finally {
      await t.close()
      holder.close()
    }
  })

  it('keeps the port it took across restarts while MQTT_PORT stays taken, and tells devices where it is', async () => {
    const holder = createServer()
    await new Promise<void>((r) => holder.listen(0, r))
    const taken = (holder.address() as { port: number }).port
    const dataDir = mkdtempSync(join(tmpdir(), 'velo-broker-'))
    try {
      const first = await createTestApp({ MQTT_PORT: String(taken), DATA_DIR: dataDir })
      const port = first.app.broker!.port
      await first.close()
      const second = await createTestApp({ MQTT_PORT: String(taken), DATA_DIR: dataDir })
      try {
        expect(second.app.broker!.port).toBe(port)
        // What the simulator asks at each run, signed in or not (GET /iot/broker): the same as a registration answers.
        const answer = await second.call({ url: '/api/iot/broker' })
        expect(answer.code).toBe(200)
        expect(answer.data).toEqual({ port, heartbeatSeconds: 60 })
      } finally {
        await second.close()
      }
    } finally {
      holder.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('is not started when an external broker is configured', async () => {
    const t = await createTestApp({ MQTT_URL: 'mqtt://127.0.0.1:1883' })
    try {
      expect(t.app.broker).toBeNull()
    } finally {
      await t.close()
    }
  })
})
