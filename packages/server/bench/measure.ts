import autocannon from 'autocannon'

/**
 * Seconds of load before a measured window: long enough at the full size for the pools, caches and
 * JIT to settle; a smoke run (BENCH_SIZE=smoke) only shows each part works, so it warms briefly.
 */
export const WARMUP_SECONDS = process.env.BENCH_SIZE === 'smoke' ? 0.25 : 2

export interface LoadResult {
  p50: number
  p99: number
  perSecond: number
  count: number
  errors: number
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

function summarize(latencies: number[], seconds: number, errors: number): LoadResult {
  const sorted = Float64Array.from(latencies).sort()
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), perSecond: latencies.length / seconds, count: latencies.length, errors }
}

/**
 * One request, sent again and again by `connections` keep-alive clients; only requests sent in the
 * steady state count: from `warmup` seconds after the start, and not before every client has had an
 * answer (a server busy with the first connections accepts the last ones only a round at a time, so
 * their first requests wait for seconds), for `seconds`. Latencies come from autocannon's
 * per-response timings (sub-millisecond, unlike its histogram), so the HTTP and the bare figures share
 * the same percentile code.
 */
export async function httpLoad(o: {
  url: string
  method: 'POST' | 'GET'
  headers: Record<string, string>
  body?: string
  connections: number
  warmup: number
  seconds: number
  /** Called when the measured window opens and when it closes (to read a counter over it). */
  window?: { open(): void; close(): void }
}): Promise<LoadResult & { warmup: number }> {
  const latencies: number[] = []
  let bad = 0
  const started = performance.now()
  const answered = new Set<unknown>()
  let from = Infinity
  let last = 0
  let closed = false
  let instance!: autocannon.Instance
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      { url: o.url, method: o.method, headers: o.headers, body: o.body, connections: o.connections, duration: o.warmup + o.seconds + 60 },
      (err: unknown, result: autocannon.Result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
    )
  })
  instance.on('response', (client, status, _bytes, ms) => {
    const now = performance.now()
    if (from === Infinity) {
      answered.add(client)
      if (answered.size === o.connections) {
        from = Math.max(started + o.warmup * 1000, now + 500)
        if (o.window) setTimeout(() => o.window!.open(), from - now)
      }
      return
    }
    if (now - ms < from) return
    if (now >= from + o.seconds * 1000) {
      if (!closed) o.window?.close()
      closed = true
      instance.stop()
      return
    }
    last = now
    if (status >= 200 && status < 300) latencies.push(ms)
    else bad++
  })
  const result = await done
  if (from === Infinity || last === 0) throw new Error(`not every client was answered in ${o.warmup + o.seconds + 60} s`)
  return { ...summarize(latencies, (last - from) / 1000, bad + result.errors), warmup: (from - started) / 1000 }
}

/** `workers` loops each running `once` back to back for `seconds`. */
export async function loopLoad(o: { workers: number; seconds: number; once: () => Promise<unknown> | unknown }): Promise<LoadResult> {
  const latencies: number[] = []
  let errors = 0
  const started = performance.now()
  const end = started + o.seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now()
      try {
        await o.once()
        latencies.push(performance.now() - t)
      } catch {
        errors++
      }
    }
  }
  await Promise.all(Array.from({ length: o.workers }, worker))
  return summarize(latencies, (performance.now() - started) / 1000, errors)
}

export interface ProbeResult {
  longest: number
  p99: number
  count: number
  failed: number
}

/**
 * Runs `fn` while another client sends `ask` every `everyMs` (a pause after each answer, so a stalled
 * server is not flooded), and answers how long those requests waited: a long wait means `fn` holds
 * the event loop or a lock every user needs. `ask` answers whether the request succeeded.
 */
export async function whileProbing<T>(ask: () => Promise<boolean>, fn: () => Promise<T>, everyMs = 100): Promise<{ result: T; probe: ProbeResult }> {
  // One request first, not counted: a cold route's first answer (JIT, statement preparation) is not what this measures.
  await ask().catch(() => false)
  const waits: number[] = []
  let failed = 0
  let running = true
  const prober = (async () => {
    while (running) {
      const t = performance.now()
      const good = await ask().catch(() => false)
      waits.push(performance.now() - t)
      if (!good) failed++
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  try {
    const result = await fn()
    // The request in flight when `fn` ends waited during it: it counts.
    running = false
    await prober
    return { result, probe: probeResult(waits, failed) }
  } finally {
    running = false
    await prober
  }
}

function probeResult(waits: number[], failed: number): ProbeResult {
  const sorted = Float64Array.from(waits).sort()
  return { longest: sorted.at(-1) ?? NaN, p99: percentile(sorted, 99), count: waits.length, failed }
}
