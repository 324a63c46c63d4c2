import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { MEMBER, PUBLIC } from '../../platform/rbac/guard'

/** How long a phone or a proxy may reuse a public answer without asking again. */
export const PUBLIC_MAX_AGE_SECONDS = 60
export const PUBLIC_CACHE_CONTROL = `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`

/** Whether an If-None-Match header names this entity tag (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  const wanted = opaque(etag)
  return [header]
    .flat()
    .flatMap((h) => h.split(','))
    .some((tag) => tag.trim() === '*' || opaque(tag) === wanted)
}

/**
 * Within the app API: every public JSON answer of a GET carries a weak ETag (a hash of the body as
 * sent) and may be cached for a minute by the phone and any proxy; asked again with that ETag in
 * If-None-Match, it is answered 304 with no body, so an unchanged list of banners costs a few bytes.
 * The message of the envelope is in the caller's language, hence Vary. Member answers are nobody
 * else's: no store may keep them.
 */
export function installAnswerCaching(app: FastifyInstance) {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'GET') return payload
    const permission = req.routeOptions.config.permission
    if (permission === MEMBER) {
      reply.header('Cache-Control', 'private, no-store')
      return payload
    }
    // Files stream with their own validators (reads.ts); errors are never cached.
    if (permission !== PUBLIC || reply.statusCode !== 200 || typeof payload !== 'string') return payload
    const etag = `W/"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`
    reply.header('ETag', etag).header('Cache-Control', PUBLIC_CACHE_CONTROL).header('Vary', 'currentLanguage')
    if (!matchesEtag(req.headers['if-none-match'], etag)) return payload
    reply.code(304).removeHeader('Content-Type').removeHeader('Content-Length')
    return ''
  })
}
