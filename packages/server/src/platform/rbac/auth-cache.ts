import { randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { hashToken, type Session, type SessionLookup, type SessionStore } from '../auth/session-store'
import type { AuthContext } from './auth-context'
import type { RowScope } from './data-scope'

// Who is calling, kept in memory: the guard would otherwise read the session, the user, their roles
// and their permissions (and a list its data scope) on every request, four or five statements
// before the one the caller asked for. Nothing is kept that could outlive a change to it:
//
// - Every change to what a signed-in context is made of (a role, a menu, a department, a user, a
//   session ending) is announced after its commit, by the code that made it (AuthCache.changed).
// - One instance (no Redis): the session and the context are kept together; an announcement drops
//   them before the request that made the change is answered, in every app of the process.
// - Several instances (Redis): the session is read from Redis on every request as before, and in the
//   same round trip a stamp that every announced change of rights renews. A context is kept with
//   the stamp it was read under and serves only while the stamp is the same, so a change made on
//   any instance is seen by every instance on its very next request: no message that could arrive
//   late or be lost while a connection is down. A session that ends is seen at once the same way,
//   being read afresh each time.
// - A load that was running when a change came serves its own request only and is not kept.
// - Whatever is kept is read again after REVALIDATE_MS anyway: that bounds a change nobody announced
//   (a row edited by hand in the database) and, without Redis, slides the session's expiry as before.

/** How long a kept context serves before it is read again, announced changes or not. */
export const REVALIDATE_MS = 5_000
/** Entries kept between two sweeps of the stale ones, so sessions that stopped calling do not pile up. */
const SWEEP_EVERY = 1_000

/** What changed: everyone's rights, some users' rights, or some sessions (by token hash). */
export type AuthChange = { all: true } | { users: readonly number[] } | { sessions: readonly string[] }

/** The signed-in caller of a valid session; why there is none; or 'gone' when its user is disabled or deleted. */
export type SignedIn = { state: 'valid'; session: Session; auth: AuthContext } | { state: Exclude<SessionLookup['state'], 'valid'> } | { state: 'gone' }

/** The apps of one process hear each other's announcements (tests run several on one database). */
const inProcess = new EventEmitter().setMaxListeners(0)

interface Entry {
  tokenHash: string
  userId: number
  session: Session
  auth: AuthContext
  /** The rights stamp it was read under (Redis), '' without Redis. */
  stamp: string
  /** When it was read; it serves until REVALIDATE_MS after, and never past the session's expiry. */
  readAt: number
  expiresAt: number
}

/** Contexts this cache handed out, each with its data scope once asked for: dropped with the context. */
const scopes = new WeakMap<AuthContext, Promise<RowScope> | null>()

export interface AuthCacheOptions {
  /** The session store itself (not the announcing one: a lookup ends nothing). */
  sessions: SessionStore
  /** The context of a user; undefined when disabled or deleted. */
  context: (userId: number) => Promise<AuthContext | undefined>
  sessionTtlMinutes: number
  /** With Redis: where the rights stamp is kept (the Redis session store reads it beside each session). */
  redis?: { client: Redis; stampKey: string }
  revalidateMs?: number
}

/** Signed-in contexts by token hash, with their data scope. Contexts handed out are frozen: requests share them. */
export class AuthCache {
  private readonly entries = new Map<string, Entry>()
  /** Loads under way, so fifty requests of one session that find nothing kept read the database once. */
  private readonly loading = new Map<string, { key: string; promise: Promise<SignedIn> }>()
  /** Counts announcements heard: a load that saw it change while it ran is not kept. */
  private generation = 0
  private keptSinceSweep = 0
  private readonly revalidateMs: number
  private readonly listener = (change: AuthChange) => this.forget(change)
  /** Where a stamp that could not be renewed is reported (the app's log). */
  onError: (err: unknown) => void = () => {}

  constructor(private readonly options: AuthCacheOptions) {
    this.revalidateMs = options.revalidateMs ?? REVALIDATE_MS
    if (!options.redis) inProcess.on('change', this.listener)
  }

  /**
   * Announces a change, after its commit. Without Redis every app of the process drops what it kept
   * at once; with Redis a change of rights renews the stamp that every instance, this one too, reads
   * with its next session (and a session's end is read with the session itself).
   */
  async changed(change: AuthChange): Promise<void> {
    const redis = this.options.redis
    if (!redis) {
      inProcess.emit('change', change)
      return
    }
    if ('sessions' in change) return
    this.generation++
    // The change is committed whatever Redis answers: its caller is not told otherwise. Should Redis
    // not take the stamp, its sessions are out of reach too, and what is kept is reread within REVALIDATE_MS.
    await redis.client.set(redis.stampKey, randomBytes(12).toString('base64url')).catch(this.onError)
  }

  /** The signed-in caller of a token: kept, else read (once for concurrent callers). */
  async signedIn(token: string): Promise<SignedIn> {
    const tokenHash = hashToken(token)
    const kept = this.entries.get(tokenHash)
    const now = Date.now()
    const fresh = kept && now - kept.readAt < this.revalidateMs && now < kept.expiresAt ? kept : undefined
    if (!this.options.redis) {
      if (fresh) return { state: 'valid', session: fresh.session, auth: fresh.auth }
      return this.once(tokenHash, '', () => this.load(token, tokenHash))
    }
    // The session afresh, with the stamp in the same round trip; the context kept while the stamp holds.
    const found = await this.options.sessions.lookup(token, this.options.sessionTtlMinutes)
    if (found.state !== 'valid') {
      this.entries.delete(tokenHash)
      return found
    }
    const stamp = found.stamp ?? ''
    if (fresh && fresh.stamp === stamp && fresh.userId === found.session.userId) return { state: 'valid', session: found.session, auth: fresh.auth }
    return this.once(tokenHash, stamp, () => this.loadContext(tokenHash, found.session, stamp))
  }

  private once(tokenHash: string, stamp: string, load: () => Promise<SignedIn>): Promise<SignedIn> {
    const key = `${this.generation}|${stamp}`
    const running = this.loading.get(tokenHash)
    if (running?.key === key) return running.promise
    const promise = load().finally(() => {
      if (this.loading.get(tokenHash)?.promise === promise) this.loading.delete(tokenHash)
    })
    this.loading.set(tokenHash, { key, promise })
    return promise
  }

  /** Without Redis: the session (sliding its expiry) and then the context. */
  private async load(token: string, tokenHash: string): Promise<SignedIn> {
    const generation = this.generation
    const found = await this.options.sessions.lookup(token, this.options.sessionTtlMinutes)
    if (found.state !== 'valid') {
      this.entries.delete(tokenHash)
      return found
    }
    return this.loadContext(tokenHash, found.session, '', generation)
  }

  private async loadContext(tokenHash: string, session: Session, stamp: string, generation = this.generation): Promise<SignedIn> {
    const readAt = Date.now()
    const loaded = await this.options.context(session.userId)
    if (!loaded) {
      this.entries.delete(tokenHash)
      return { state: 'gone' }
    }
    const auth = freezeContext({ ...loaded, session: tokenHash })
    scopes.set(auth, null)
    // Kept only when no announcement came while it was read.
    if (generation === this.generation) {
      this.entries.set(tokenHash, { tokenHash, userId: session.userId, session, auth, stamp, readAt, expiresAt: Date.parse(session.expiresAt) })
      if (++this.keptSinceSweep >= SWEEP_EVERY) this.sweep()
    }
    return { state: 'valid', session, auth }
  }

  /**
   * The caller's data scope: kept with a context this cache handed out (the changes that alter a
   * scope, roles, departments and the user's own, all drop the context), else resolved each time.
   */
  rowScope(auth: AuthContext, resolve: () => Promise<RowScope>): Promise<RowScope> {
    if (!scopes.has(auth)) return resolve()
    let scope = scopes.get(auth)
    if (!scope) {
      scope = resolve()
      scopes.set(auth, scope)
      scope.catch(() => scopes.set(auth, null))
    }
    return scope
  }

  /** Drops the entries past revalidation: a session that made no request since would be read again anyway. */
  private sweep() {
    this.keptSinceSweep = 0
    const stale = Date.now() - this.revalidateMs
    for (const [hash, entry] of this.entries) if (entry.readAt < stale) this.entries.delete(hash)
  }

  private forget(change: AuthChange) {
    this.generation++
    if ('all' in change) this.entries.clear()
    else if ('users' in change) {
      const users = new Set(change.users.map(Number))
      for (const [hash, entry] of this.entries) if (users.has(entry.userId)) this.entries.delete(hash)
    } else for (const hash of change.sessions) this.entries.delete(hash)
  }

  close() {
    inProcess.off('change', this.listener)
    this.entries.clear()
  }
}

/** A context shared by concurrent requests must not be changed by one of them. */
function freezeContext(auth: AuthContext): AuthContext {
  for (const r of auth.roles) Object.freeze(r)
  Object.freeze(auth.roles)
  Object.freeze(auth.roleKeys)
  Object.freeze(auth.permissions)
  return Object.freeze(auth)
}
