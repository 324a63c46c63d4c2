import type { Language } from '@velo/shared'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { AppError, type FieldIssue } from './errors'
import { isOk } from './envelope'
import { type MessageKey, pickLanguage, t } from './i18n'
import { localizeIssue } from './i18n/zod-messages'

export function languageOf(req: FastifyRequest): Language {
  return pickLanguage(req.headers.currentlanguage)
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route answers another system in that system's format (EMQX's hooks), not in the envelope. */
    envelope?: false
  }
}

/** Wraps every JSON answer of the API in the envelope, with the success message in the caller's language. */
export function envelopeHook(req: FastifyRequest, _reply: FastifyReply, payload: unknown) {
  if (req.routeOptions.config.envelope === false) return Promise.resolve(payload)
  const lang = languageOf(req)
  if (isOk(payload)) return Promise.resolve({ code: 200, msg: t(lang, payload.messageKey, payload.params), data: payload.data ?? null })
  return Promise.resolve({ code: 200, msg: t(lang, 'ok'), data: payload ?? null })
}

const STATUS_MESSAGES: Partial<Record<number, MessageKey>> = {
  413: 'error.bodyTooLarge',
  429: 'error.rateLimited',
}

function send(reply: FastifyReply, status: number, code: number, msg: string, data: unknown = null) {
  return reply.status(status).type('application/json; charset=utf-8').send(JSON.stringify({ code, msg, data }))
}

export function errorHandler(this: FastifyInstance, err: FastifyError | AppError | Error, req: FastifyRequest, reply: FastifyReply) {
  const lang = languageOf(req)
  if (err instanceof AppError) {
    if (err.status >= 500) req.log.error({ err }, 'server error')
    return send(reply, err.status, err.code, t(lang, err.messageKey, err.params), err.data)
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const where = (err as FastifyError).validationContext
    const errors: FieldIssue[] = err.validation.map((v) => {
      const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.')
      return { field: path || String(where ?? ''), message: localizeIssue({ code: v.keyword, path, message: v.message ?? "", params: v.params }, lang) }
    })
    return send(reply, 400, 400, t(lang, 'error.validation', { details: errors.map((e) => e.message).join('; ') }), { errors })
  }
  // A unique index refused what the checks before it let through: another request wrote the same
  // value between this one's check and its write (two staff fitting one device to two bikes at once).
  if (isUniqueViolation(err)) {
    req.log.warn({ err: (err as Error).message }, 'unique index refused a write')
    return send(reply, 409, 409, t(lang, 'error.raced'))
  }
  const status = (err as FastifyError).statusCode
  if (status && status >= 400 && status < 500) {
    const key = STATUS_MESSAGES[status]
    return send(reply, status, status, key ? t(lang, key) : err.message)
  }
  req.log.error({ err, requestId: req.id }, 'unhandled error')
  return send(reply, 500, 500, t(lang, 'error.unknown', { requestId: req.id }))
}

/** PostgreSQL's unique_violation, or SQLite's UNIQUE constraint. */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/** Far deeper than any body the API takes (the deepest, IoT command parameters, nest 3 levels). */
export const MAX_JSON_DEPTH = 32

/** Whether arrays and objects in JSON text nest deeper than `limit`, counting brackets outside strings only. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

/**
 * The API's JSON parser. An empty body is no body: many clients send the content type on a bare
 * POST or DELETE. Nesting is bounded before parsing, so that nothing after it (validation, the
 * operation log) ever walks a value thousands of levels deep. Fastify's own parser does the rest,
 * refusing __proto__ and constructor.prototype keys as it does by default.
 */
export function installJsonParser(api: FastifyInstance) {
  const parse = api.getDefaultJsonParser('error', 'error')
  api.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(new AppError(400, 'error.bodyTooDeep', { max: MAX_JSON_DEPTH }), undefined)
    parse(req, text, (err, value) => done(err ? new AppError(400, 'error.badJson') : null, value))
  })
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  return send(reply, 404, 404, t(languageOf(req), 'error.notFound', { url: req.url.split('?')[0] ?? '' }))
}
