import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Db } from '../../db/database'
import { maskSecrets } from './mask'

export const BusinessType = {
  other: '0',
  insert: '1',
  update: '2',
  delete: '3',
  grant: '4',
  export: '5',
  import: '6',
  forceLogout: '7',
  clean: '9',
} as const
export type BusinessTypeCode = (typeof BusinessType)[keyof typeof BusinessType]

export interface AuditConfig {
  /** Module title in the log; defaults to the first segment of the path. */
  module?: string
  businessType?: BusinessTypeCode
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: not a mutation (queries sent as POST, sign-in which has its own log). */
    audit?: false | AuditConfig
  }
  interface FastifyRequest {
    auditResult?: string
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
// A GET that changes something (RuoYi-style unlock) says so with an audit config of its own.
const audited = (req: FastifyRequest) => MUTATING.has(req.method) || !!req.routeOptions.config.audit
const MAX_TEXT = 2000

function defaultType(method: string): BusinessTypeCode {
  if (method === 'PUT' || method === 'PATCH') return BusinessType.update
  if (method === 'DELETE') return BusinessType.delete
  return BusinessType.insert
}

function truncate(text: string) {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text
}

function paramsOf(req: FastifyRequest): string {
  const parts: Record<string, unknown> = {}
  if (req.params && Object.keys(req.params).length) parts.params = req.params
  if (req.query && Object.keys(req.query).length) parts.query = req.query
  if (req.body !== undefined && !req.isMultipart()) parts.body = req.body
  if (req.isMultipart()) parts.body = '(file upload)'
  return truncate(JSON.stringify(maskSecrets(parts)))
}

/** Every mutating API request, good or bad, lands in sys_oper_log once its answer is sent. */
export function installOperationLog(api: FastifyInstance, db: Db, apiPrefix: string) {
  api.addHook('onSend', async (req, _reply, payload) => {
    if (audited(req) && typeof payload === 'string') req.auditResult = payload
    return payload
  })

  api.addHook('onResponse', async (req, reply) => {
    const audit = req.routeOptions.config.audit
    if (!audited(req) || audit === false || !req.routeOptions.url) return
    let status = reply.statusCode >= 400 ? '1' : '0'
    let errorMsg = ''
    let jsonResult = req.auditResult ?? ''
    try {
      const body = JSON.parse(jsonResult) as { code?: number; msg?: string; data?: unknown }
      if (body.code !== undefined && body.code !== 200) {
        status = '1'
        errorMsg = body.msg ?? ''
      }
      // Answers carry secrets too (a device secret is shown once): the log keeps them masked.
      if (body.data !== undefined) jsonResult = JSON.stringify({ ...body, data: maskSecrets(body.data) })
    } catch {
      jsonResult = jsonResult ? '(binary)' : ''
    }
    const path = req.routeOptions.url.slice(apiPrefix.length)
    try {
      await db
        .insertInto('sysOperLog')
        .values({
          title: (audit?.module ?? path.split('/')[1] ?? '').slice(0, 64),
          businessType: audit?.businessType ?? defaultType(req.method),
          method: `${req.method} ${req.routeOptions.url}`.slice(0, 255),
          requestMethod: req.method,
          operName: req.auth?.userName ?? '',
          deptName: req.auth?.deptName ?? '',
          operUrl: req.url.split('?')[0]!.slice(0, 500),
          operIp: req.ip,
          operParam: paramsOf(req),
          jsonResult: truncate(jsonResult),
          status,
          errorMsg: truncate(errorMsg),
          operTime: new Date().toISOString(),
          costTime: Math.round(reply.elapsedTime),
          requestId: String(req.id),
        })
        .execute()
    } catch (err) {
      req.log.error({ err }, 'could not write the operation log')
    }
  })
}
