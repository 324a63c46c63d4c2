import type { ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from './errors'
import { stillAuthorized } from './rbac/guard'
import type { Services } from './services'
import { repeat } from './jobs/schedule'

export interface EventStream {
  /** Sends one server-sent event; the data is JSON. False once the client has gone. */
  send(event: string, data: unknown): boolean
  /** Runs when the client goes away (or the server closes). */
  onClose(fn: () => void): void
}

const KEEPALIVE_MS = 15_000
/** How often a stream asks whether its session and right still stand (SSE_RECHECK_MS in tests). */
const RECHECK_MS = Number(process.env.SSE_RECHECK_MS) || 2_000

/** Open streams per app (keyed by its services), so closing one app ends its streams and no other's. */
const openStreams = new WeakMap<object, Set<ServerResponse>>()

/** An app's open streams (the metrics' event-stream clients). */
export const openEventStreamCount = (services: object): number => openStreams.get(services)?.size ?? 0

/** Ends an app's open streams: the server would otherwise wait for them when closing. */
export function closeEventStreams(services: object) {
  for (const res of openStreams.get(services) ?? []) res.end()
  openStreams.delete(services)
}

/** Open streams of an app by session (token) and by user. */
interface StreamHolders {
  bySession: Map<string, number>
  byUser: Map<number, number>
}
const holders = new WeakMap<object, StreamHolders>()

const bump = <K>(counts: Map<K, number>, key: K, by: number) => {
  const n = (counts.get(key) ?? 0) + by
  if (n > 0) counts.set(key, n)
  else counts.delete(key)
}

/**
 * Counts one more open stream against the caller's session and account, or throws 429 when either
 * holds its cap already (SSE_MAX_PER_SESSION, SSE_MAX_PER_USER: a stream costs a socket and its
 * buffers for as long as it stays open). Answers the release, which runs once.
 */
function claimStream(services: Services, req: FastifyRequest): () => void {
  let held = holders.get(services)
  if (!held) holders.set(services, (held = { bySession: new Map(), byUser: new Map() }))
  const { bySession, byUser } = held
  const session = req.token
  const user = req.auth?.userId
  const { sseMaxPerSession, sseMaxPerUser } = services.config
  if (session !== null && (bySession.get(session) ?? 0) >= sseMaxPerSession) throw new AppError(429, 'sse.perSession', { max: sseMaxPerSession })
  if (user !== undefined && (byUser.get(user) ?? 0) >= sseMaxPerUser) throw new AppError(429, 'sse.perUser', { max: sseMaxPerUser })
  if (session !== null) bump(bySession, session, 1)
  if (user !== undefined) bump(byUser, user, 1)
  let released = false
  return () => {
    if (released) return
    released = true
    if (session !== null) bump(bySession, session, -1)
    if (user !== undefined) bump(byUser, user, -1)
  }
}

/**
 * Turns a GET into a server-sent event stream. The browser reads it with fetch (so the token travels
 * in the Authorization header like every other call, not in the URL where logs would keep it).
 * A comment line every 15 s keeps proxies from closing an idle stream. Every stream route opens its
 * stream here, so the caps of streams per session and per user hold for all of them: over a cap it
 * throws 429 (a plain answer, before anything is written) and the caller's route answers that.
 */
export function openEventStream(req: FastifyRequest, reply: FastifyReply): EventStream {
  const services = req.server.services
  const release = claimStream(services, req)
  reply.hijack()
  const res = reply.raw
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx buffers responses unless told not to.
    'x-accel-buffering': 'no',
  })
  res.write(': connected\n\n')
  let open = true
  const closers: (() => void)[] = []
  const stopKeepalive = repeat(KEEPALIVE_MS, () => res.write(': keepalive\n\n'))
  let checking = false
  const stopRecheck = repeat(RECHECK_MS, () => {
    if (checking) return
    checking = true
    stillAuthorized(services, req)
      .then((allowed) => {
        if (!allowed) res.end()
      })
      .catch(() => res.end())
      .finally(() => (checking = false))
  })
  const close = () => {
    if (!open) return
    open = false
    stopKeepalive()
    stopRecheck()
    release()
    for (const fn of closers) fn()
  }
  req.raw.on('close', close)
  res.on('close', close)
  const streams = openStreams.get(services) ?? new Set()
  openStreams.set(services, streams)
  streams.add(res)
  closers.push(() => streams.delete(res))
  return {
    send(event, data) {
      if (!open) return false
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      return true
    },
    onClose(fn) {
      if (open) closers.push(fn)
      else fn()
    },
  }
}
