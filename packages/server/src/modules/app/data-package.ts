import { stat } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { attachment } from '../../platform/crud/excel'
import { ok } from '../../platform/envelope'
import { AppError, conflict, notFound } from '../../platform/errors'
import { sendFile } from '../../platform/files/send'
import { fileExpiry, type JobRow, SYSTEM_USER_ID } from '../../platform/jobs'
import { isPackageLanguage, PACKAGE_LANGUAGES, type PackageLanguage, riderPackageJob } from '../../platform/privacy/data-package'
import { MEMBER } from '../../platform/rbac/guard'
import { envelope, rangedFileAnswer } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { appLanguageOf } from './feedback'
import { signedInMember } from './members'
import { APP_TAGS, MEMBER_SECURITY } from './tables'

/** A rider may ask for one package a day: enough for anyone who wants their data, not a way to keep the server busy. */
export const PACKAGE_EVERY_MS = 24 * 3600_000

/** Requests per member and minute, whatever they answer: a retrying app must not hammer the check. */
const REQUESTS_PER_MEMBER = { max: 10, timeWindow: '1 minute' } as const

export const PACKAGE_STATES = ['none', 'queued', 'running', 'ready', 'expired', 'failed'] as const
type PackageState = (typeof PACKAGE_STATES)[number]

const packageAnswer = z.object({
  state: z.enum(PACKAGE_STATES),
  requestedAt: z.string().nullable(),
  readyAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  size: z.number().nullable(),
  nextRequestAt: z.string().nullable(),
})
type PackageAnswer = z.infer<typeof packageAnswer>

/** Who asked, as the job keeps it (createBy of a system job): the member's requests are found by it. */
const requester = (memberId: number) => `member:${memberId}`

/**
 * The member's latest package request, of these states. A cancelled one counts as never asked for:
 * a request that stood down for another made at the same moment, or one staff stopped.
 */
function latestRequest(services: Services, memberId: number, states: readonly string[] = ['queued', 'running', 'succeeded', 'failed']): Promise<JobRow | undefined> {
  return services.db
    .selectFrom('sysJob')
    .selectAll()
    .where('kind', '=', riderPackageJob.kind)
    .where('createById', '=', SYSTEM_USER_ID)
    .where('createBy', '=', requester(memberId))
    .where('state', 'in', states)
    .orderBy('jobId', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** The file of a succeeded request while it is kept: its path and size; undefined once expired or gone. */
async function readyFile(services: Services, row: JobRow): Promise<{ path: string; size: number } | undefined> {
  const expiry = fileExpiry(row)
  if (row.state !== 'succeeded' || !row.resultFile || (expiry && expiry.getTime() <= Date.now())) return undefined
  const path = services.storage.resolve(row.resultFile)
  if (!path) return undefined
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  )
  return size === undefined ? undefined : { path, size }
}

/** When the member may ask again: a day after their last package that was made, or null (now). */
async function nextRequestAt(services: Services, memberId: number): Promise<Date | null> {
  const made = await latestRequest(services, memberId, ['succeeded'])
  const next = made ? Date.parse(made.createTime) + PACKAGE_EVERY_MS : 0
  return next > Date.now() ? new Date(next) : null
}

/** The state of the member's latest request, as GET /me/export answers it. */
async function packageState(services: Services, memberId: number, latest?: JobRow): Promise<PackageAnswer> {
  const row = latest ?? (await latestRequest(services, memberId))
  const next = (await nextRequestAt(services, memberId))?.toISOString() ?? null
  if (!row) return { state: 'none', requestedAt: null, readyAt: null, expiresAt: null, size: null, nextRequestAt: next }
  const file = await readyFile(services, row)
  const state: PackageState =
    row.state === 'queued' || row.state === 'running' ? row.state : row.state === 'succeeded' ? (file ? 'ready' : 'expired') : 'failed'
  return {
    state,
    requestedAt: row.createTime,
    readyAt: row.state === 'succeeded' ? row.finishTime : null,
    expiresAt: row.state === 'succeeded' ? (fileExpiry(row)?.toISOString() ?? null) : null,
    size: file?.size ?? null,
    nextRequestAt: next,
  }
}

/**
 * The package's language: `?lang=` (the app's languages, or zh_CN), else the Accept-Language
 * header's (Chinese when it asks for Chinese first, else the first app language it names), else English.
 */
function packageLanguageOf(req: FastifyRequest): PackageLanguage {
  const asked = (req.query as { lang?: string }).lang
  if (isPackageLanguage(asked)) return asked
  const header = req.headers['accept-language']
  if (/^\s*zh\b/i.test(header ?? '')) return 'zh_CN'
  return appLanguageOf(header) ?? 'en_US'
}

/**
 * A rider's own data package (GDPR Art. 15, 20; docs/app-api.md › Data package): asked for here,
 * made by a system job (platform/privacy/data-package.ts), followed and downloaded here with the
 * member's token only, for DATA_PACKAGE_DAYS. One at a time (409) and one a day (429).
 */
export function registerAppDataPackage(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db

  api.post(
    '/me/export',
    {
      config: {
        permission: MEMBER,
        audit: false,
        rateLimit: { ...REQUESTS_PER_MEMBER, keyGenerator: (req) => `app-export:${req.member?.memberId ?? req.ip}` },
      },
      schema: {
        tags: APP_TAGS,
        summary: `Ask for a copy of all the member's data (a zip, ready in a few minutes, downloadable for 7 days) in lang (${PACKAGE_LANGUAGES.join('|')}; without it, the Accept-Language header's); 409 while one is being made, 429 within a day of the last`,
        security: MEMBER_SECURITY,
        querystring: z.strictObject({ lang: z.enum(PACKAGE_LANGUAGES).optional() }),
        response: { 200: envelope(packageAnswer) },
      },
    },
    async (req, reply: FastifyReply) => {
      const { memberId } = signedInMember(req)
      const latest = await latestRequest(services, memberId)
      if (latest && (latest.state === 'queued' || latest.state === 'running')) throw conflict('privacy.package.busy')
      const next = await nextRequestAt(services, memberId)
      if (next) {
        reply.header('retry-after', Math.ceil((next.getTime() - Date.now()) / 1000))
        throw new AppError(429, 'privacy.package.tooSoon', { time: next.toISOString().slice(0, 16).replace('T', ' ') }, 429, { nextRequestAt: next.toISOString() })
      }
      const job = await services.jobs.enqueueSystem(riderPackageJob.kind, { memberId, lang: packageLanguageOf(req) }, requester(memberId))
      // Two requests at once both passed the check above: the later one stands down.
      const earlier = await db
        .selectFrom('sysJob')
        .select('jobId')
        .where('kind', '=', riderPackageJob.kind)
        .where('createById', '=', SYSTEM_USER_ID)
        .where('createBy', '=', requester(memberId))
        .where('state', 'in', ['queued', 'running'])
        .where('jobId', '<', job.jobId)
        .executeTakeFirst()
      if (earlier) {
        await services.jobs.cancel(job.jobId).catch(() => undefined)
        throw conflict('privacy.package.busy')
      }
      return ok(await packageState(services, memberId, job), 'privacy.package.requested')
    },
  )

  api.get(
    '/me/export',
    {
      config: { permission: MEMBER },
      schema: {
        tags: APP_TAGS,
        summary: "The member's latest data package request: none, queued, running, ready (with its size and expiry), expired or failed, and when they may ask again",
        security: MEMBER_SECURITY,
        response: { 200: envelope(packageAnswer) },
      },
    },
    async (req) => packageState(services, signedInMember(req).memberId),
  )

  api.get(
    '/me/export/file',
    {
      config: { permission: MEMBER },
      exposeHeadRoute: true,
      schema: {
        tags: APP_TAGS,
        summary: "Download the member's data package while it is ready (404 otherwise); one byte range is honoured",
        security: MEMBER_SECURITY,
        response: rangedFileAnswer('application/zip', 'The data package'),
      },
    },
    async (req, reply) => {
      const { memberId } = signedInMember(req)
      // Only this member's own requests are looked at: another member's package is as absent as none.
      const made = await latestRequest(services, memberId, ['succeeded'])
      const file = made && (await readyFile(services, made))
      if (!made || !file) throw notFound('privacy.package.noFile')
      return sendFile(req, reply, { ...file, contentType: 'application/zip', disposition: attachment(made.resultFileName ?? 'data-package.zip') })
    },
  )
}
