import { parseTopic, UP_SCHEMAS, type UpKind } from '@velo/shared'
import type { z } from 'zod'
import type { Gateway, ObservedMessage } from '../../../gateway/types'

/** One message the device under test sent, as the kit saw it on the broker. */
export interface Seen {
  /** Its place in the run: later messages have larger ones. */
  index: number
  kind: UpKind | string
  raw: string
  /** The payload as JSON when it parses, else undefined. */
  json: Record<string, unknown> | undefined
  /** Delivered as retained: what a subscriber joining later is handed (presence). */
  retain: boolean
  at: number
}

export interface ShapeCheck {
  ok: boolean
  issues: string
}

/** Checks a payload against the schema the server itself validates that kind with (gateway.ts). */
export function checkShape(kind: string, raw: string): ShapeCheck {
  const schema = (UP_SCHEMAS as Record<string, z.ZodType | undefined>)[kind]
  if (!schema) return { ok: false, issues: `no schema for ${kind}` }
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { ok: false, issues: 'not JSON' }
  }
  const parsed = schema.safeParse(json)
  if (parsed.success) return { ok: true, issues: '' }
  return {
    ok: false,
    issues: parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
      .join('; '),
  }
}

/**
 * Everything one device publishes, seen through a subscription of the kit's own on its up topics
 * (the gateway's watch client: the broker hands it the retained presence first, which the gateway's
 * shared subscription would not). Clauses read it in order from a mark, so each judges only what
 * came after what it did.
 */
export class DeviceProbe {
  readonly seen: Seen[] = []
  private readonly waiters = new Set<() => void>()
  private stop: (() => Promise<void>) | null = null

  private constructor(readonly sn: string) {}

  static async open(gateway: Pick<Gateway, 'watch'>, sn: string): Promise<DeviceProbe> {
    const probe = new DeviceProbe(sn)
    probe.stop = await gateway.watch(`velo/v1/${sn}/up/#`, (m) => probe.take(m))
    return probe
  }

  private take(m: ObservedMessage) {
    const parsed = parseTopic(m.topic)
    // A zero-length retained payload clears the retained presence: nothing was said.
    if (!parsed || parsed.sn !== this.sn || m.payload.length === 0) return
    let json: Record<string, unknown> | undefined
    try {
      const value: unknown = JSON.parse(m.payload)
      if (value && typeof value === 'object' && !Array.isArray(value)) json = value as Record<string, unknown>
    } catch {
      // left undefined: the clause reading it says the shape is wrong
    }
    this.seen.push({ index: this.seen.length, kind: parsed.kind, raw: m.payload, json, retain: m.retain, at: Date.now() })
    for (const wake of [...this.waiters]) wake()
  }

  /** Where the next message will be: a clause reads from here on. */
  mark(): number {
    return this.seen.length
  }

  /**
   * The first message from `from` on that matches, waiting for it until `timeoutMs` (or the signal)
   * has passed: null then.
   */
  async find(from: number, match: (s: Seen) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<Seen | null> {
    const deadline = Date.now() + timeoutMs
    let i = from
    for (;;) {
      for (; i < this.seen.length; i++) if (match(this.seen[i]!)) return this.seen[i]!
      const left = deadline - Date.now()
      if (left <= 0 || signal?.aborted) return null
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          this.waiters.delete(done)
          signal?.removeEventListener('abort', done)
          resolve()
        }
        const timer = setTimeout(done, left)
        this.waiters.add(done)
        signal?.addEventListener('abort', done, { once: true })
      })
    }
  }

  /** Every message from `from` on that matches, without waiting. */
  all(from: number, match: (s: Seen) => boolean): Seen[] {
    return this.seen.slice(from).filter(match)
  }

  async close(): Promise<void> {
    for (const wake of [...this.waiters]) wake()
    await this.stop?.().catch(() => {})
    this.stop = null
  }
}

export const isPresence = (state: string, reason?: string) => (s: Seen) => s.kind === 'presence' && s.json?.state === state && (reason === undefined || s.json?.reason === reason)
