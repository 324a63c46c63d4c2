import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react'
import { createSseParser, readEventStream, type SseEvent } from '../lib/sse'
import { ApiError, interpretResponse } from './errors'
import { confirmSessionEnd } from './feedback'
import { apiHeaders, buildUrl, type Query } from './http'

// A live stream of server-sent events (GET /iot/stream, /iot/mqDebug/stream) read with fetch, so it
// carries the same token and language headers as every other call. It reconnects with a growing
// pause when the connection drops and stops for good when the server refuses it (no permission,
// signed out) or the caller aborts.

/** connecting: the first attempt; open: events flow; reconnecting: waiting or retrying after a drop; closed: refused, not retried. */
export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'closed'

export interface Backoff {
  /** The first pause after a drop (a `retry:` line from the server replaces it). */
  initialMs: number
  /** The pause doubles after each failed attempt up to this. */
  maxMs: number
  /** Share of the pause added or taken at random so many browsers do not come back at once (0 to 1). */
  jitter: number
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000, jitter: 0.2 }

export interface EventStreamOptions {
  /** Path under the API prefix. */
  url: string
  params?: Query
  onEvent: (event: SseEvent) => void
  onStatus?: (status: StreamStatus, error?: ApiError) => void
  /** Each time the stream opens; `again` after a reconnect (events may have been missed meanwhile). */
  onOpen?: (again: boolean) => void
  signal: AbortSignal
  backoff?: Partial<Backoff>
}

/** The pause before attempt `n` (0-based) of reconnecting. */
export function backoffDelay(n: number, backoff: Backoff, random = Math.random): number {
  const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** n)
  return Math.max(0, Math.round(base * (1 + backoff.jitter * (random() * 2 - 1))))
}

/** Failures that may pass by themselves: the network, a timeout, a busy or restarting server (HTTP 429, 5xx). */
const retryable = (error: ApiError, httpStatus = 0) =>
  error.kind !== 'session' && (error.kind === 'network' || error.kind === 'timeout' || httpStatus === 429 || httpStatus >= 500)

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done)
  })

async function refusal(response: Response): Promise<ApiError> {
  const type = response.headers.get('Content-Type') ?? ''
  const body: unknown = type.includes('json') ? await response.json().catch(() => null) : await response.text().catch(() => null)
  const result = interpretResponse<unknown>(response.status, body)
  return result.ok ? new ApiError(`Not an event stream (${response.status})`, 'http', response.status) : result.error
}

/** Runs the stream until `signal` aborts or the server refuses it; never rejects. */
export async function runEventStream(options: EventStreamOptions): Promise<void> {
  const { url, params, onEvent, onStatus, onOpen, signal } = options
  const backoff: Backoff = { ...DEFAULT_BACKOFF, ...options.backoff }
  let attempt = 0
  let opened = false
  onStatus?.('connecting')
  while (!signal.aborted) {
    let error: ApiError | undefined
    try {
      const response = await fetch(buildUrl(url, params), {
        headers: apiHeaders('text/event-stream'),
        credentials: 'omit',
        cache: 'no-store',
        signal,
      })
      const type = response.headers.get('Content-Type') ?? ''
      if (!response.ok || !type.includes('text/event-stream') || !response.body) {
        error = await refusal(response)
        if (error.kind === 'session') confirmSessionEnd()
        if (!retryable(error, response.status)) {
          if (!signal.aborted) onStatus?.('closed', error)
          return
        }
      } else {
        attempt = 0
        onStatus?.('open')
        onOpen?.(opened)
        opened = true
        const parser = createSseParser(onEvent, (ms) => {
          backoff.initialMs = ms
        })
        await readEventStream(response.body, parser)
      }
    } catch (failure) {
      if (signal.aborted) return
      error = failure instanceof ApiError ? failure : new ApiError(failure instanceof Error ? failure.message : 'Network Error', 'network', 0)
    }
    if (signal.aborted) return
    onStatus?.('reconnecting', error)
    await sleep(backoffDelay(attempt++, backoff), signal)
  }
}

export interface UseEventStreamOptions {
  params?: Query
  /** False closes the stream (and keeps it closed). */
  enabled?: boolean
  onEvent: (event: SseEvent) => void
  onOpen?: (again: boolean) => void
  backoff?: Partial<Backoff>
}

export interface EventStreamState {
  status: StreamStatus
  /** Why the stream is closed or reconnecting, when the server or the network said. */
  error?: ApiError
}

/**
 * Keeps a stream open while the component is mounted (and shown: a hidden tab's effects are cleaned
 * up, which closes it) and `enabled`; a change of url or params opens a new one.
 */
export function useEventStream(url: string, options: UseEventStreamOptions): EventStreamState {
  const { params, enabled = true, backoff } = options
  const [state, setState] = useState<EventStreamState>({ status: enabled ? 'connecting' : 'closed' })
  const onEvent = useEffectEvent((event: SseEvent) => options.onEvent(event))
  const onOpen = useEffectEvent((again: boolean) => options.onOpen?.(again))
  const paramsKey = JSON.stringify(params ?? {})
  const backoffKey = JSON.stringify(backoff ?? {})

  useEffect(() => {
    if (!enabled) return
    const controller = new AbortController()
    void runEventStream({
      url,
      params: JSON.parse(paramsKey) as Query,
      backoff: JSON.parse(backoffKey) as Partial<Backoff>,
      signal: controller.signal,
      onEvent: (event) => onEvent(event),
      onOpen: (again) => onOpen(again),
      onStatus: (status, error) => setState({ status, error }),
    })
    return () => controller.abort()
  }, [url, paramsKey, backoffKey, enabled])

  return enabled ? state : CLOSED
}

const CLOSED: EventStreamState = { status: 'closed' }

/** The JSON of an event's data, or null when it is not JSON. */
export function eventData<T>(event: SseEvent): T | null {
  try {
    return JSON.parse(event.data) as T
  } catch {
    return null
  }
}

/**
 * A call made at most once per `ms` however often it is asked for (a storm of live events is one
 * refetch a second): the first ask starts the wait, the call then runs once; dropped when the
 * component goes.
 */
export function useThrottled(call: () => void, ms: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const latest = useRef(call)
  latest.current = call
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current)
    },
    [],
  )
  return useCallback(() => {
    timer.current ??= setTimeout(() => {
      timer.current = null
      latest.current()
    }, ms)
  }, [ms])
}
