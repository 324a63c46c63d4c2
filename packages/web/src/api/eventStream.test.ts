import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import Cookies from 'js-cookie'
import { sseResponse, type SseHandle } from '../test/sse'

const feedback = vi.hoisted(() => ({ showError: vi.fn(), confirmSessionEnd: vi.fn() }))
vi.mock('./feedback', () => feedback)

import { backoffDelay, DEFAULT_BACKOFF, runEventStream, type StreamStatus } from './eventStream'

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
const FAST = { initialMs: 1, maxMs: 4, jitter: 0 }

describe('event stream', () => {
  const fetchMock = vi.fn<typeof fetch>()
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    Cookies.set('Admin-Token#', 'tok')
    localStorage.setItem('user_lang', 'zh_CN')
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    feedback.confirmSessionEnd.mockReset()
    Cookies.remove('Admin-Token#')
    localStorage.clear()
  })

  it('sends the API headers, delivers events, and reconnects after the server closes the stream', async () => {
    const streams: SseHandle[] = []
    fetchMock.mockImplementation(async (_url, init) => {
      const s = sseResponse(init?.signal)
      streams.push(s)
      return s.response
    })
    const controller = new AbortController()
    const events: string[] = []
    const statuses: StreamStatus[] = []
    const opens: boolean[] = []
    const done = runEventStream({
      url: '/iot/stream',
      params: { deviceId: 7 },
      signal: controller.signal,
      backoff: FAST,
      onEvent: (e) => events.push(`${e.event}:${e.data}`),
      onStatus: (s) => statuses.push(s),
      onOpen: (again) => opens.push(again),
    })
    await vi.waitFor(() => expect(streams).toHaveLength(1))
    const [url, init] = fetchMock.mock.calls[0]!
    expect(url).toBe('/api/iot/stream?deviceId=7')
    const headers = init!.headers as Headers
    expect(headers.get('Authorization')).toBe('tok')
    expect(headers.get('currentLanguage')).toBe('zh_CN')
    expect(headers.get('Accept')).toBe('text/event-stream')

    streams[0]!.push(': connected\n\nevent: device\nda')
    streams[0]!.push('ta: {"deviceId":7}\n\n')
    await vi.waitFor(() => expect(events).toEqual(['device:{"deviceId":7}']))
    streams[0]!.close()
    await vi.waitFor(() => expect(streams).toHaveLength(2))
    streams[1]!.send('command', { commandId: 1 })
    await vi.waitFor(() => expect(events).toHaveLength(2))
    expect(events[1]).toBe('command:{"commandId":1}')

    controller.abort()
    await done
    expect(opens).toEqual([false, true])
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'open'])
    expect(fetchMock).toHaveBeenCalledTimes(2)
  })

  it('retries network failures and server errors with a growing pause', async () => {
    fetchMock
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(json(503, { code: 503, msg: 'Restarting', data: null }))
      .mockImplementation(async (_url, init) => sseResponse(init?.signal).response)
    const controller = new AbortController()
    const statuses: StreamStatus[] = []
    const done = runEventStream({ url: '/iot/stream', signal: controller.signal, backoff: FAST, onEvent: () => {}, onStatus: (s) => statuses.push(s) })
    await vi.waitFor(() => expect(statuses.at(-1)).toBe('open'))
    expect(statuses).toEqual(['connecting', 'reconnecting', 'reconnecting', 'open'])
    controller.abort()
    await done

    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, { ...DEFAULT_BACKOFF, jitter: 0 }))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000])
    // With jitter the pause stays within its share either way.
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 0)).toBe(800)
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 1)).toBe(1200)
  })

  it('stops for good when refused, and offers to sign in again when the session ended', async () => {
    fetchMock.mockResolvedValue(json(403, { code: 403, msg: 'No permission', data: null }))
    const statuses: [StreamStatus, string | undefined][] = []
    await runEventStream({ url: '/iot/stream', signal: new AbortController().signal, backoff: FAST, onEvent: () => {}, onStatus: (s, e) => statuses.push([s, e?.message]) })
    expect(statuses).toEqual([
      ['connecting', undefined],
      ['closed', 'No permission'],
    ])
    expect(fetchMock).toHaveBeenCalledTimes(1)
    expect(feedback.confirmSessionEnd).not.toHaveBeenCalled()

    fetchMock.mockResolvedValue(json(401, { code: 50014, msg: 'Session expired', data: null }))
    await runEventStream({ url: '/iot/stream', signal: new AbortController().signal, backoff: FAST, onEvent: () => {} })
    expect(feedback.confirmSessionEnd).toHaveBeenCalledTimes(1)
    expect(fetchMock).toHaveBeenCalledTimes(2)
  })

  it('ends quietly when aborted during the pause before a retry', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'))
    const controller = new AbortController()
    const statuses: StreamStatus[] = []
    const done = runEventStream({ url: '/iot/stream', signal: controller.signal, backoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 }, onEvent: () => {}, onStatus: (s) => statuses.push(s) })
    await vi.waitFor(() => expect(statuses).toEqual(['connecting', 'reconnecting']))
    controller.abort()
    await done
    expect(fetchMock).toHaveBeenCalledTimes(1)
  })
})
