import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { type DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import { type JobInfo, type OtaEvent, upTopic } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { issueSecret } from '../src/gateway/device-auth'
import type { IotEvent } from '../src/gateway/types'
import { newDeviceRow } from '../src/modules/iot/devices'
import { otaPublicKeysOf } from '../src/modules/ota/signing'
import type { TestApp } from './harness'

/** A serial number nobody else uses, even on a broker shared by parallel test files. */
export const randomSn = (prefix = 'VL') => `${prefix}${randomBytes(5).toString('hex').toUpperCase()}`

/** Polls until the check returns something truthy (or throws on the deadline): never a fixed sleep. */
export async function waitFor<T>(check: () => T | Promise<T>, what = 'condition', timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value as NonNullable<T>
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** The broker devices of this app connect to: its embedded one, or the external MQTT_URL. */
export function brokerUrl(app: FastifyInstance): string {
  return app.broker ? `mqtt://127.0.0.1:${app.broker.port}` : app.services.config.mqttUrl!
}

export async function demoModelId(t: TestApp): Promise<number> {
  const row = await t.app.services.db.selectFrom('iotModel').select('modelId').where('productId', '=', 'VELO-4G').executeTakeFirstOrThrow()
  return Number(row.modelId)
}

/** A device of the demo model straight into the database (the API's add is tested on its own). */
export async function insertDevice(t: TestApp, sn = randomSn()): Promise<{ deviceId: number; sn: string; secret: string }> {
  const { secret, secretHash } = issueSecret()
  const row = await t.app.services.db
    .insertInto('iotDevice')
    .values(newDeviceRow({ sn, modelId: await demoModelId(t), secretHash, createBy: 'test' }))
    .returning('deviceId')
    .executeTakeFirstOrThrow()
  return { deviceId: Number(row.deviceId), sn, secret }
}

/** A simulated device of this app that does not reconnect on its own (tests decide when); it trusts the app's OTA keys, as its registration would give them. */
export function simulated(app: FastifyInstance, d: { sn: string; secret: string }, options: Partial<DeviceOptions> = {}): SimulatedDevice {
  return new SimulatedDevice({
    url: brokerUrl(app),
    sn: d.sn,
    secret: d.secret,
    heartbeatSeconds: 0,
    connectTimeout: 5000,
    otaKeys: otaPublicKeysOf(app.services),
    ...options,
    mqtt: { reconnectPeriod: 0, ...options.mqtt },
  })
}

/**
 * Takes a test device's retained presence off the broker: on a shared broker (TEST_MQTT_URL) it would
 * otherwise outlive the test, and every later wildcard subscriber would get it.
 */
export async function clearRetained(app: FastifyInstance, sns: string[]) {
  for (const sn of sns) await app.iot.gateway.publishRaw(upTopic(sn, 'presence'), '', { qos: 1, retain: true })
}

export async function deviceRow(t: TestApp, deviceId: number) {
  return t.app.services.db.selectFrom('iotDevice').selectAll().where('deviceId', '=', deviceId).executeTakeFirstOrThrow()
}

/** One server-sent event as read off the wire: its name, and its data as JSON. */
export interface StreamEvent<D = unknown> {
  event: string
  data: D
}
/** GET /monitor/job/stream and /stream/all: each job as GET /monitor/job/:id answers it (modules/monitor/jobs.ts). */
export type JobStreamEvent = { event: 'job'; data: JobInfo }
/** GET /iot/stream: each IoT event under its type's name (gateway/types.ts, modules/iot/stream.ts). */
export type IotStreamEvent = { [K in IotEvent['type']]: { event: K; data: Extract<IotEvent, { type: K }>['data'] } }[IotEvent['type']]
/** GET /iot/upgrade/stream: the rollout's events (modules/ota/rollout). */
export type OtaStreamEvent = { event: 'ota'; data: OtaEvent }

/**
 * Reads GET {url} as a browser would (a real HTTP request: inject cannot stream) and keeps every event;
 * `next` waits for one that matches. `E` is what the stream sends (unchecked: the server wrote it).
 */
export async function openStream<E extends StreamEvent = StreamEvent>(app: FastifyInstance, url: string, token: string) {
  let address = app.server.address() as AddressInfo | null
  if (!address) {
    await app.listen({ port: 0, host: '127.0.0.1' })
    address = app.server.address() as AddressInfo
  }
  const controller = new AbortController()
  const res = await fetch(`http://127.0.0.1:${address.port}${url}`, { headers: { authorization: token }, signal: controller.signal })
  const events: E[] = []
  const reading = (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event && data !== undefined) events.push({ event, data: JSON.parse(data) } as E)
        }
      }
    } catch {
      // aborted
    }
  })()
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    next: (match: (e: E) => boolean, what = 'a stream event') => waitFor(() => events.find(match), what),
    /** Settles when the server ends the stream (or it is closed here). */
    ended: reading,
    close: async () => {
      controller.abort()
      await reading
    },
  }
}
