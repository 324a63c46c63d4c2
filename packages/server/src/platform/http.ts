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
  const status = (err as FastifyError).statusCode
  if (status && status >= 400 && status < 500) {
    const key = STATUS_MESSAGES[status]
    return send(reply, status, status, key ? t(lang, key) : err.message)
  }
  req.log.error({ err, requestId: req.id }, 'unhandled error')
  return send(reply, 500, 500, t(lang, 'error.unknown', { requestId: req.id }))
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  return send(reply, 404, 404, t(languageOf(req), 'error.notFound', { url: req.url.split('?')[0] ?? '' }))
}
