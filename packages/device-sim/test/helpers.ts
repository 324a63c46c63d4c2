import { createServer, type Server } from 'node:net'
import { Aedes } from 'aedes'
import { downTopic, PROTOCOL_VERSION } from '@velo/shared'

export interface Seen {
  topic: string
  payload: Record<string, unknown>
  retain: boolean
  qos: number
  /** The client that published it (a last will too is published as its client's). */
  clientId: string | null
  at: number
}

/** Every device's secret in these tests. */
export const secretOf = (sn: string) => `secret-${sn}`

/**
 * A real aedes broker on a free port that lets a device in with its SN as user name and
 * secretOf(sn) as password (CONNACK 5 otherwise), and records every message under velo/.
 */
export async function startBroker() {
  /** SNs refused from now on (a device deleted, its secret reset). */
  const denied = new Set<string>()
  const clients = new Map<string, { close: () => void }>()
  const aedes = await Aedes.createBroker({
    authenticate: (client, username, password, done) => {
      const ok = username === client.id && password?.toString() === secretOf(client.id) && !denied.has(client.id)
      if (ok) return done(null, true)
      done(Object.assign(new Error('not authorized'), { returnCode: 5 as const }), false)
    },
  })
  aedes.on('clientReady', (client) => clients.set(client.id, client))
  const seen: Seen[] = []
  aedes.on('publish', (packet, client) => {
    if (!packet.topic.startsWith('velo/')) return
    let payload: Record<string, unknown> = {}
    try {
      payload = JSON.parse(packet.payload.toString())
    } catch {
      payload = { raw: packet.payload.toString() }
    }
    seen.push({ topic: packet.topic, payload, retain: packet.retain, qos: packet.qos, clientId: client?.id ?? null, at: Date.now() })
  })
  const server: Server = createServer(aedes.handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    aedes,
    url: `mqtt://127.0.0.1:${port}`,
    seen,
    /** Messages on one topic (optionally from one publisher). */
    on: (topic: string) => seen.filter((m) => m.topic === topic),
    /** The server's side: a command to one device. */
    command(sn: string, command: { id: string; name: string; params?: Record<string, unknown>; expiresAt?: number }) {
      const payload = Buffer.from(JSON.stringify({ v: PROTOCOL_VERSION, params: {}, ...command }))
      return new Promise<void>((resolve, reject) =>
        aedes.publish({ cmd: 'publish', topic: downTopic(sn, 'command'), payload, qos: 1, retain: false, dup: false }, (err) => (err ? reject(err) : resolve())),
      )
    },
    /** Refuses a device from now on and closes its connection, as a secret reset does. */
    revoke(sn: string) {
      denied.add(sn)
      clients.get(sn)?.close()
    },
    close: () => new Promise<void>((resolve) => aedes.close(() => server.close(() => resolve()))),
  }
}
export type TestBroker = Awaited<ReturnType<typeof startBroker>>

/** Waits until `check` answers something truthy (checked every 10 ms). */
export async function waitFor<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = check()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** A free TCP port nothing listens on. */
export async function closedPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address() as { port: number }
  await new Promise((r) => s.close(r))
  return port
}
