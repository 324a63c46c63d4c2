import { DASHBOARDS, type DashboardAnswer, type DashboardDef } from '@velo/shared'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType } from '../../platform/audit/operation-log'
import { attachment, XLSX_TYPE } from '../../platform/crud/excel'
import { badRequest } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { caller, SIGNED_IN } from '../../platform/rbac/guard'
import { envelope, fileAnswer } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { bikeStatsDashboard } from './bike-stats'
import { mayOf, type ComputedDashboard, type DashboardCompute } from './context'
import { engagementDashboard } from './engagement'
import { dashboardWorkbook } from './export'
import { homeDashboard } from './home'
import { performanceDashboard } from './performance'
import { dashboardQuerySchema, RangeError400, resolveQuery, type DashboardQueryInput } from './query'
import { rollupRefresh } from './rollups'
import { satisfactionDashboard } from './satisfaction'
import { resolveRowScope } from '../../platform/rbac/data-scope'
import { countryScopeOf } from './scope'

const tags = ['Dashboards']

/** Each dashboard's figures, computed per request (docs/dashboards.md says which read rollups). */
const COMPUTE: Record<DashboardDef['key'], DashboardCompute> = {
  home: homeDashboard,
  engagement: engagementDashboard,
  performance: performanceDashboard,
  satisfaction: satisfactionDashboard,
  bikeStats: bikeStatsDashboard,
}

const value = z.union([z.string(), z.number(), z.null()])
const answerSchema = z.object({
  key: z.string(),
  query: z.object({
    from: z.string(),
    to: z.string(),
    countryId: z.number().optional(),
    modelId: z.number().optional(),
    platform: z.enum(['ios', 'android']).optional(),
  }),
  figures: z.array(z.object({ key: z.string(), rows: z.array(z.array(value)), marks: z.array(z.object({ at: z.string(), label: z.string() })).optional() })),
  refreshedAt: z.string().nullable(),
})

/**
 * GET /analytics/{key} (the figures) and GET /analytics/{key}/export (the same figures as .xlsx, one
 * sheet per figure) for the home page and the five dashboards. Reading needs `dashboard:{key}:list`,
 * downloading `dashboard:{key}:export`; the home page needs a sign-in, and each of its cards the
 * right to the list it opens. Every figure counts only the caller's countries (scope.ts).
 */
export function registerDashboards(app: FastifyInstance, services: Services, clock: () => Date = () => new Date()) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  // The rollups' background refresh (rollups.ts).
  services.jobs.every(rollupRefresh(services.db, services.dialect))

  const inFlight = new Map<string, Promise<ComputedDashboard>>()

  async function answer(def: DashboardDef, req: FastifyRequest, input: DashboardQueryInput): Promise<DashboardAnswer> {
    const auth = caller(req)
    const now = clock()
    let query
    try {
      query = resolveQuery(def, input, now)
    } catch (err) {
      if (err instanceof RangeError400) throw badRequest(err.key)
      throw err
    }
    const rows = await resolveRowScope(services.db, auth)
    const scope = countryScopeOf(rows)
    const may = mayOf(auth)
    const lang = languageOf(req)
    // Identical requests at the same moment (a team opening the same view on Monday morning) share
    // one computation: same dashboard, query, countries, language and rights of its columns. Nothing
    // is kept after it answers, so no answer is older than the requests it serves.
    const rights = def.figures.flatMap((f) => f.columns.flatMap((c) => (c.permission ? [may(c.permission) ? 1 : 0] : []))).join('')
    const shareKey = JSON.stringify([def.key, query, rows, lang, rights])
    let computing = inFlight.get(shareKey)
    if (!computing) {
      computing = COMPUTE[def.key]({ services, db: services.db, dialect: services.dialect, def, query, scope, rows, auth, lang, now, may })
      inFlight.set(shareKey, computing)
      void computing.then(
        () => inFlight.delete(shareKey),
        () => inFlight.delete(shareKey),
      )
    }
    const computed = await computing
    // A column whose right the caller lacks is blanked whatever the figure's code did.
    const figures = computed.figures.map((f) => {
      const columns = def.figures.find((d) => d.key === f.key)?.columns ?? []
      const hidden = columns.flatMap((c, i) => (c.permission && !may(c.permission) ? [i] : []))
      return hidden.length ? { ...f, rows: f.rows.map((r) => r.map((v, i) => (hidden.includes(i) ? null : v))) } : f
    })
    return { key: def.key, query, figures, refreshedAt: computed.refreshedAt }
  }

  for (const def of Object.values(DASHBOARDS)) {
    const title = def.title.en_US
    api.get(
      `/analytics/${def.key}`,
      {
        config: { permission: def.permission ? `${def.permission}:list` : SIGNED_IN, audit: false },
        schema: {
          tags,
          summary: `${title}: the figures for a date range (from, to: YYYY-MM-DD, UTC days) and filters (${def.filters.join(', ') || 'none'})`,
          querystring: dashboardQuerySchema,
          response: { 200: envelope(answerSchema) },
        },
      },
      async (req) => answer(def, req, req.query),
    )
    api.get(
      `/analytics/${def.key}/export`,
      {
        config: {
          permission: def.permission ? `${def.permission}:export` : SIGNED_IN,
          audit: { module: 'Dashboards', businessType: BusinessType.export },
        },
        schema: {
          tags,
          summary: `${title} as .xlsx: one sheet per figure, the rows the dashboard shows`,
          querystring: dashboardQuerySchema,
          response: { 200: fileAnswer(XLSX_TYPE, 'The figures as a workbook') },
        },
      },
      async (req, reply) => {
        const result = await answer(def, req, req.query)
        const lang = languageOf(req)
        const bytes = await dashboardWorkbook(def, result, lang, mayOf(caller(req)))
        const name = `${def.key}_${result.query.from}_${result.query.to}.xlsx`
        return reply.type(XLSX_TYPE).header('Content-Disposition', attachment(name)).send(bytes)
      },
    )
  }
}
