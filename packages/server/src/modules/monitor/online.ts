import { onlineSession } from '@velo/shared'
import { locationOf } from '../../platform/audit/login-log'
import { attachment, streamWorkbook, XLSX_TYPE } from '../../platform/crud/excel'
import { pagingFields } from '../../platform/crud/schemas'
import { languageOf } from '../../platform/http'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { forceEnd, sessionIdOf } from '../../platform/auth/session-store'
import { ok } from '../../platform/envelope'
import { notFound } from '../../platform/errors'
import { done, envelope, fileAnswer, pageOf, rowOf } from '../../platform/responses'
import type { Services } from '../../platform/services'

const tags = ['Online users']
const contains = (value: string, part: string | undefined) => !part || value.toLowerCase().includes(part.trim().toLowerCase())

/**
 * Who is signed in now, from the session store (database or Redis), and force logout. A session is
 * named by an id derived from its token hash: neither the token nor the hash is ever sent.
 */
export function registerOnline(app: FastifyInstance, services: Services) {
  const { db, sessions } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  const filters = { ipaddr: z.string().max(128).optional(), userName: z.string().max(64).optional() }

  /** The live sessions matching the filters, as the list shows them. */
  async function liveRows({ ipaddr, userName }: { ipaddr?: string; userName?: string }) {
    const live = (await sessions.listActive()).filter((s) => contains(s.ipaddr, ipaddr) && contains(s.userName, userName))
    const userIds = [...new Set(live.map((s) => s.userId))]
    const users = userIds.length
      ? await db
          .selectFrom('sysUser as u')
          .leftJoin('sysDept as d', 'd.deptId', 'u.deptId')
          .select(['u.userId', 'u.status', 'd.deptName'])
          .where('u.userId', 'in', userIds)
          .execute()
      : []
    const byId = new Map(users.map((u) => [Number(u.userId), u]))
    // A disabled or deleted user's session dies on its next call: it is not "online".
    return live
      .filter((s) => byId.get(s.userId)?.status === '0')
      .map((s) => ({
        sessionId: sessionIdOf(s),
        userName: s.userName,
        deptName: byId.get(s.userId)?.deptName ?? '',
        ipaddr: s.ipaddr,
        loginLocation: locationOf(s.ipaddr),
        browser: s.browser,
        os: s.os,
        loginTime: s.loginTime,
        lastAccessTime: s.lastSeen,
      }))
  }

  api.post(
    '/monitor/online/list',
    {
      config: { permission: 'monitor:online:list', audit: false },
      schema: {
        tags,
        summary: 'Live sessions, newest sign-in first (filters: ipaddr, userName; paged)',
        body: z.strictObject({ ...pagingFields, ...filters }),
        response: { 200: envelope(pageOf(rowOf(onlineSession))) },
      },
    },
    async (req) => {
      const { pageNum, pageSize } = req.body
      const rows = await liveRows(req.body)
      return { rows: rows.slice((pageNum - 1) * pageSize, pageNum * pageSize), total: rows.length }
    },
  )

  // Every list exports (SPEC §1): the sessions of the list's filters, with its columns.
  api.post(
    '/monitor/online/export',
    {
      config: { permission: 'monitor:online:export', audit: { module: 'Online users', businessType: BusinessType.export } },
      schema: {
        tags,
        summary: 'Live sessions as .xlsx (the list filters, every matching session)',
        body: z.strictObject({ ...pagingFields, ...filters }),
        response: { 200: fileAnswer(XLSX_TYPE, 'The live sessions as a workbook') },
      },
    },
    async (req, reply) => {
      const lang = languageOf(req)
      const rows = await liveRows(req.body)
      async function* batches() {
        yield rows
      }
      const stream = streamWorkbook({ sheetName: onlineSession.label[lang], fields: onlineSession.exported, lang, dicts: new Map(), batches: batches() })
      const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')
      return reply.type(XLSX_TYPE).header('Content-Disposition', attachment(`online_${stamp}.xlsx`)).send(stream)
    },
  )

  api.delete(
    '/monitor/online/:sessionId',
    {
      config: { permission: 'monitor:online:forceLogout', audit: { module: 'Online users', businessType: BusinessType.forceLogout } },
      schema: {
        tags,
        summary: 'Force logout: end a session; its next call answers 50008',
        params: z.object({ sessionId: z.string().regex(/^[0-9a-f]{32}$/) }),
        response: { 200: done },
      },
    },
    async (req) => {
      if (!(await forceEnd(sessions, req.params.sessionId))) throw notFound()
      return ok(null, 'online.forcedOut')
    },
  )
}
