import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { openEventStreamCount } from '../src/platform/sse'
import { useTestApp } from './harness'
import { openStream, waitFor } from './iot-helpers'

// Every event stream route opens its stream through platform/sse.ts, which counts them per session
// and per user: 3 and 5 here (SSE_MAX_PER_SESSION, SSE_MAX_PER_USER), 8 and 20 by default.
const t = useTestApp({ SSE_MAX_PER_SESSION: '3', SSE_MAX_PER_USER: '5' })

/** A GET as a browser's fetch sends it, for a refusal's envelope (openStream keeps only events). */
async function refused(url: string, token: string, lang: 'en_US' | 'zh_CN' = 'en_US') {
  const { port } = t.app.server.address() as AddressInfo
  const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { authorization: token, currentlanguage: lang } })
  const body = (await res.json()) as { code: number; msg: string }
  return { status: res.status, ...body }
}

const open = () => openEventStreamCount(t.app.services)

describe('event streams per session and per user', () => {
  it('defaults to 8 per session and 20 per user', () => {
    const config = loadConfig({})
    expect(config.sseMaxPerSession).toBe(8)
    expect(config.sseMaxPerUser).toBe(20)
    expect(() => loadConfig({ SSE_MAX_PER_SESSION: '0' })).toThrow(/SSE_MAX_PER_SESSION/)
  })

  it('refuses the stream past a session’s cap on any stream route with 429, in both languages, and opens one again once one closes', async () => {
    const streams = [
      await openStream(t.app, '/api/monitor/job/stream', t.admin),
      await openStream(t.app, '/api/iot/stream', t.admin),
      await openStream(t.app, '/api/monitor/job/stream/all', t.admin),
    ]
    for (const s of streams) expect(s.status).toBe(200)
    expect(open()).toBe(3)

    const jobs = await refused('/api/monitor/job/stream', t.admin)
    expect(jobs).toMatchObject({ status: 429, code: 429 })
    expect(jobs.msg).toBe('Too many live views open in this session: at most 3; close one (in another tab or page) and try again')
    const zh = await refused('/api/iot/stream', t.admin, 'zh_CN')
    expect(zh.status).toBe(429)
    expect(zh.msg).toBe('本会话打开的实时视图过多：最多 3 个，请关闭一个（在其他标签页或页面中）后再试')
    // The message-queue debugger subscribes before it opens its stream: refused, it answers all the same.
    expect((await refused('/api/iot/mqDebug/stream?topic=%23', t.admin)).status).toBe(429)
    expect(open()).toBe(3)

    await streams[0]!.close()
    await waitFor(() => open() === 2, 'the closed stream to be counted off')
    const again = await openStream(t.app, '/api/monitor/job/stream', t.admin)
    expect(again.status).toBe(200)
    expect(open()).toBe(3)
    for (const s of [...streams.slice(1), again]) await s.close()
    await waitFor(() => open() === 0, 'every stream to be counted off')
  })

  it('refuses the stream past a user’s cap over all their sessions', async () => {
    const first = await t.login()
    const second = await t.login()
    const streams = []
    for (const token of [first, first, first, second, second]) {
      const s = await openStream(t.app, '/api/monitor/job/stream', token)
      expect(s.status).toBe(200)
      streams.push(s)
    }
    // The second session holds 2 of its 3, but the user holds 5 of 5.
    const over = await refused('/api/monitor/job/stream', second)
    expect(over.status).toBe(429)
    expect(over.msg).toBe('Too many live views open for your account: at most 5 over all your sessions; close one and try again')
    await streams[0]!.close()
    await waitFor(() => open() === 4, 'the closed stream to be counted off')
    const again = await openStream(t.app, '/api/monitor/job/stream', second)
    expect(again.status).toBe(200)
    for (const s of [...streams.slice(1), again]) await s.close()
    await waitFor(() => open() === 0, 'every stream to be counted off')
  })
})
