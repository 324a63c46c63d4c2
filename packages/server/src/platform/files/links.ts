import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { KeyValueStore } from '../kv-store'

// A <video> element cannot send the Authorization header, so the console asks for a link to one
// stored file (with the rights and data scope the download checks) and the player fetches that
// link, Range requests and all. The link names the entity, field and stored name it was made for
// and when it ends; a signature over exactly those is what lets it in instead of a token.

/** How long a link works: long enough to start and seek a video, short enough not to be worth sharing. */
export const FILE_LINK_TTL_SECONDS = 600

const DAY_SECONDS = 86_400
// A day's key outlives the links it signed (they end at most TTL seconds into the next day).
const KEY_TTL_SECONDS = 2 * DAY_SECONDS
const KEY_BYTES = 32
// Read again after this, so an instance never signs for long with a key the store no longer has.
const KEY_CACHE_MS = 60_000

export interface FileLinkTarget {
  entity: string
  field: string
  fileName: string
}

export interface FileLinkSignature {
  /** Unix seconds after which the link is refused. */
  exp: number
  sig: string
}

export type FileLinkCheck = 'valid' | 'expired' | 'invalid'

const signingText = (t: FileLinkTarget, exp: number) => [t.entity, t.field, t.fileName, String(exp)].join('\n')
const sign = (key: Buffer, t: FileLinkTarget, exp: number) => createHmac('sha256', key).update(signingText(t, exp)).digest('base64url')
/** The day a link was made, which names the key it was signed with. */
const dayOfLink = (exp: number) => Math.floor((exp - FILE_LINK_TTL_SECONDS) / DAY_SECONDS)

/**
 * Signs and checks file links. The key is random, one per day, kept in the key-value store so every
 * instance signs and checks with the same one (Redis, or the database), and it goes away by itself:
 * no secret to configure, and a leaked key is worth a day.
 */
export class FileLinks {
  private readonly keys = new Map<number, { key: Buffer; readAt: number }>()

  constructor(
    private readonly kv: KeyValueStore,
    private readonly now: () => number = Date.now,
  ) {}

  async sign(target: FileLinkTarget): Promise<FileLinkSignature> {
    const exp = Math.floor(this.now() / 1000) + FILE_LINK_TTL_SECONDS
    const key = await this.keyOf(dayOfLink(exp), true)
    return { exp, sig: sign(key!, target, exp) }
  }

  async check(target: FileLinkTarget, exp: string | undefined, sig: string | undefined): Promise<FileLinkCheck> {
    if (!exp || !sig || !/^[1-9]\d{0,11}$/.test(exp) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return 'invalid'
    const expires = Number(exp)
    const nowSeconds = Math.floor(this.now() / 1000)
    // No link is made to last longer: an exp further away was not ours.
    if (expires > nowSeconds + FILE_LINK_TTL_SECONDS) return 'invalid'
    const key = await this.keyOf(dayOfLink(expires), false)
    if (!key) return expires < nowSeconds ? 'expired' : 'invalid'
    const expected = Buffer.from(sign(key, target, expires))
    const given = Buffer.from(sig)
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid'
    return expires < nowSeconds ? 'expired' : 'valid'
  }

  private async keyOf(day: number, create: boolean): Promise<Buffer | null> {
    const known = this.keys.get(day)
    if (known && this.now() - known.readAt < KEY_CACHE_MS) return known.key
    const name = `files:linkKey:${day}`
    let stored = await this.kv.get(name)
    if (!stored && create) {
      // Of instances making the day's key at once, one wins and all use its key.
      await this.kv.setIfAbsent(name, randomBytes(KEY_BYTES).toString('base64'), KEY_TTL_SECONDS)
      stored = await this.kv.get(name)
    }
    if (!stored) return null
    const key = Buffer.from(stored, 'base64')
    for (const old of this.keys.keys()) if (old < day - 2) this.keys.delete(old)
    this.keys.set(day, { key, readAt: this.now() })
    return key
  }
}

const linksOf = new WeakMap<KeyValueStore, FileLinks>()

/** The links of a server's store, one signer per store so its keys are read once. */
export function fileLinks(kv: KeyValueStore): FileLinks {
  let links = linksOf.get(kv)
  if (!links) linksOf.set(kv, (links = new FileLinks(kv)))
  return links
}
