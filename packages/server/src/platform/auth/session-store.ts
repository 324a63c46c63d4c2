import { createHash, hash, randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Db } from '../../db/database'
import type { SessionTable } from '../../db/schema'

export type Session = SessionTable

export type SessionLookup =
  /** `stamp`: the stamp of everyone's rights, read with the session (Redis; see rbac/auth-cache.ts). */
  | { state: 'valid'; session: Session; stamp?: string }
  | { state: 'expired' | 'revoked' | 'displaced' | 'forced' | 'unknown' }

/** Why a session ended: signed out, displaced by a newer sign-in, or signed out by an administrator. */
export type EndReason = 'revoked' | 'displaced' | 'forced'

export interface NewSession {
  userId: number
  userName: string
  ipaddr: string
  browser: string
  os: string
}

/** Opaque tokens: 32 random bytes to the client, only their SHA-256 kept on our side. */
export function newToken(): string {
  return randomBytes(32).toString('base64url')
}
export function hashToken(token: string): string {
  // The one-shot digest: every signed-in request hashes its token, and a Hash object per call cost twice as much.
  return hash('sha256', token)
}
/** The id a session is listed and ended by (online users): neither the token nor its hash leaves the server. */
export function sessionIdOf(s: Pick<Session, 'tokenHash'>): string {
  return createHash('sha256').update(`session-id:${s.tokenHash}`).digest('hex').slice(0, 32)
}

// Sliding expiry rewrites a session at most this often, not on every request.
const TOUCH_EVERY_MS = 60_000
// Ended and expired sessions are kept this long so the client hears why (50012/50014), not just 50008.
const KEEP_ENDED_MS = 7 * 24 * 3600_000

export interface SessionStore {
  create(token: string, session: NewSession, ttlMinutes: number): Promise<void>
  /** Finds the session and, when valid, slides its expiry forward. */
  lookup(token: string, ttlMinutes: number): Promise<SessionLookup>
  /** Finds the session without sliding it (an open event stream is no activity of the user's). */
  peek(token: string): Promise<SessionLookup>
  revoke(token: string): Promise<void>
  /** Ends every other live session of the user: displaced by a single sign-in, or revoked by a password change. */
  displaceOthers(userId: number, keepToken: string, reason?: EndReason): Promise<void>
  /** Ends every live session of the user (password reset, disabled account). */
  revokeUser(userId: number): Promise<void>
  /** Ends one session by its token hash, keeping the reason for the client's next call. */
  end(tokenHash: string, reason: EndReason): Promise<void>
  /** Live sessions, newest sign-in first: everyone's, or one user's (read from that user's own index). */
  listActive(userId?: number): Promise<Session[]>
}

/** Force logout: ends the live session with this public id; false when there is none. */
export async function forceEnd(store: SessionStore, sessionId: string): Promise<boolean> {
  const session = (await store.listActive()).find((s) => sessionIdOf(s) === sessionId)
  if (session) await store.end(session.tokenHash, 'forced')
  return !!session
}

function freshSession(token: string, s: NewSession, ttlMinutes: number): Session {
  const now = new Date()
  return {
    ...s,
    tokenHash: hashToken(token),
    loginTime: now.toISOString(),
    lastSeen: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMinutes * 60_000).toISOString(),
    endedReason: '',
  }
}

function classify(session: Session | undefined, now: Date): SessionLookup {
  if (!session) return { state: 'unknown' }
  if (session.endedReason === 'displaced') return { state: 'displaced' }
  if (session.endedReason === 'forced') return { state: 'forced' }
  if (session.endedReason) return { state: 'revoked' }
  if (session.expiresAt <= now.toISOString()) return { state: 'expired' }
  return { state: 'valid', session }
}

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: Db) {}

  async create(token: string, s: NewSession, ttlMinutes: number) {
    await this.db.insertInto('sysSession').values(freshSession(token, s, ttlMinutes)).execute()
    await this.db
      .deleteFrom('sysSession')
      .where('expiresAt', '<', new Date(Date.now() - KEEP_ENDED_MS).toISOString())
      .execute()
  }

  async lookup(token: string, ttlMinutes: number) {
    const tokenHash = hashToken(token)
    const session = await this.db.selectFrom('sysSession').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst()
    const now = new Date()
    const found = classify(session, now)
    if (found.state === 'valid' && now.getTime() - Date.parse(found.session.lastSeen) > TOUCH_EVERY_MS) {
      const expiresAt = new Date(now.getTime() + ttlMinutes * 60_000).toISOString()
      await this.db
        .updateTable('sysSession')
        .set({ lastSeen: now.toISOString(), expiresAt })
        .where('tokenHash', '=', tokenHash)
        .execute()
      found.session.lastSeen = now.toISOString()
      found.session.expiresAt = expiresAt
    }
    return found
  }

  async peek(token: string) {
    return classify(await this.db.selectFrom('sysSession').selectAll().where('tokenHash', '=', hashToken(token)).executeTakeFirst(), new Date())
  }

  async revoke(token: string) {
    await this.end(hashToken(token), 'revoked')
  }

  async end(tokenHash: string, reason: EndReason) {
    await this.db.updateTable('sysSession').set({ endedReason: reason }).where('tokenHash', '=', tokenHash).execute()
  }

  async displaceOthers(userId: number, keepToken: string, reason: EndReason = 'displaced') {
    await this.db
      .updateTable('sysSession')
      .set({ endedReason: reason })
      .where('userId', '=', userId)
      .where('endedReason', '=', '')
      .where('tokenHash', '<>', hashToken(keepToken))
      .execute()
  }

  async revokeUser(userId: number) {
    await this.db
      .updateTable('sysSession')
      .set({ endedReason: 'revoked' })
      .where('userId', '=', userId)
      .where('endedReason', '=', '')
      .execute()
  }

  listActive(userId?: number) {
    return this.db
      .selectFrom('sysSession')
      .selectAll()
      .$if(userId !== undefined, (q) => q.where('userId', '=', userId!))
      .where('endedReason', '=', '')
      .where('expiresAt', '>', new Date().toISOString())
      .orderBy('loginTime', 'desc')
      .execute()
  }
}

/**
 * Sessions in Redis: one JSON value per token hash, plus a set of token hashes per user. With a
 * `stampKey`, a lookup reads that key in the same round trip and answers it as the session's stamp.
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'velo:session:',
    private readonly stampKey?: string,
  ) {}

  private key(tokenHash: string) {
    return `${this.prefix}${tokenHash}`
  }
  private userKey(userId: number) {
    return `${this.prefix}user:${userId}`
  }
  private async save(session: Session) {
    const ttlMs = Date.parse(session.expiresAt) - Date.now() + KEEP_ENDED_MS
    await this.redis
      .multi()
      .set(this.key(session.tokenHash), JSON.stringify(session), 'PX', Math.max(ttlMs, 1000))
      .sadd(this.userKey(session.userId), session.tokenHash)
      .pexpire(this.userKey(session.userId), Math.max(ttlMs, 1000))
      .exec()
  }
  private async load(tokenHash: string): Promise<Session | undefined> {
    const raw = await this.redis.get(this.key(tokenHash))
    return raw ? (JSON.parse(raw) as Session) : undefined
  }

  async create(token: string, s: NewSession, ttlMinutes: number) {
    await this.save(freshSession(token, s, ttlMinutes))
  }

  async lookup(token: string, ttlMinutes: number) {
    const now = new Date()
    const key = this.key(hashToken(token))
    const [raw, stamp] = this.stampKey ? await this.redis.mget(key, this.stampKey) : [await this.redis.get(key), null]
    const found = classify(raw ? (JSON.parse(raw) as Session) : undefined, now)
    if (found.state === 'valid') found.stamp = stamp ?? ''
    if (found.state === 'valid' && now.getTime() - Date.parse(found.session.lastSeen) > TOUCH_EVERY_MS) {
      found.session.lastSeen = now.toISOString()
      found.session.expiresAt = new Date(now.getTime() + ttlMinutes * 60_000).toISOString()
      await this.save(found.session)
    }
    return found
  }

  async peek(token: string) {
    return classify(await this.load(hashToken(token)), new Date())
  }

  async revoke(token: string) {
    await this.end(hashToken(token), 'revoked')
  }

  async end(tokenHash: string, reason: EndReason) {
    const session = await this.load(tokenHash)
    if (session && !session.endedReason) await this.save({ ...session, endedReason: reason })
  }

  private async userSessions(userId: number) {
    const hashes = await this.redis.smembers(this.userKey(userId))
    return (await Promise.all(hashes.map((h) => this.load(h)))).filter((s): s is Session => !!s)
  }

  async displaceOthers(userId: number, keepToken: string, reason: EndReason = 'displaced') {
    const keep = hashToken(keepToken)
    for (const s of await this.userSessions(userId)) {
      if (s.tokenHash !== keep && !s.endedReason) await this.end(s.tokenHash, reason)
    }
  }

  async revokeUser(userId: number) {
    for (const s of await this.userSessions(userId)) if (!s.endedReason) await this.end(s.tokenHash, 'revoked')
  }

  async listActive(userId?: number) {
    const sessions: Session[] = []
    const now = new Date().toISOString()
    const live = (s: Session) => !s.endedReason && s.expiresAt > now
    if (userId !== undefined) return (await this.userSessions(userId)).filter(live).sort((a, b) => b.loginTime.localeCompare(a.loginTime))
    let cursor = '0'
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 500)
      cursor = next
      for (const key of keys) {
        if (key.startsWith(`${this.prefix}user:`)) continue
        const raw = await this.redis.get(key)
        const s = raw ? (JSON.parse(raw) as Session) : undefined
        if (s && live(s)) sessions.push(s)
      }
    } while (cursor !== '0')
    return sessions.sort((a, b) => b.loginTime.localeCompare(a.loginTime))
  }
}

/**
 * The store, telling `announce` (every instance's signed-in cache) after each session it ends, so no
 * instance keeps serving one from memory.
 */
export function announcingEnds(store: SessionStore, announce: (change: { sessions: string[] } | { users: number[] }) => Promise<void>): SessionStore {
  return {
    create: (token, session, ttlMinutes) => store.create(token, session, ttlMinutes),
    lookup: (token, ttlMinutes) => store.lookup(token, ttlMinutes),
    peek: (token) => store.peek(token),
    listActive: (userId) => store.listActive(userId),
    async revoke(token) {
      await store.revoke(token)
      await announce({ sessions: [hashToken(token)] })
    },
    async end(tokenHash, reason) {
      await store.end(tokenHash, reason)
      await announce({ sessions: [tokenHash] })
    },
    async displaceOthers(userId, keepToken, reason) {
      await store.displaceOthers(userId, keepToken, reason)
      await announce({ users: [userId] })
    },
    async revokeUser(userId) {
      await store.revokeUser(userId)
      await announce({ users: [userId] })
    },
  }
}
