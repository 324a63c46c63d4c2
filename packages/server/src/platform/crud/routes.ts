import { allEntities, apiRowSchema, dashboardPickerPermissions, entityByKey, type FieldDef, type Operation, PICKER_LIMIT, relatedListsOf, type ResolvedEntity, scopeProblems, withinOf, personalDataRight } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { BusinessType } from '../audit/operation-log'
import { ok } from '../envelope'
import { languageOf } from '../http'
import { forbidden } from '../errors'
import { hasPermission } from '../rbac/auth-context'
import { caller, SIGNED_IN } from '../rbac/guard'
import { callerScope } from '../rbac/entity-scope'
import type { Services } from '../services'
import { z } from 'zod'
import { readOneFile } from '../uploads'
import { jobInfo, registerExportSource, type ExportJobParams } from '../jobs'
import { registerFileRoutes } from '../files/routes'
import { attachment, streamWorkbookRows, templateWorkbook, XLSX_TYPE } from './excel'
import { checkWorkbookFile, importWorkbook, updateSupportField } from './import'
import { registerImportJobRoute } from './import-routes'
import { EntityRepository, dictLabels, sortColumn, type EntityHooks } from './repository'
import { addSchema, atFirstUse, confirmedQuery, editSchema, idParam, idsParam, listSchema } from './schemas'
import { registerSummaryRoute } from './summary'
import { registerWorkflowRoutes, type WorkflowHandlers } from './workflow'
import { envelope, fileAnswer, pageOf, rowOf } from '../responses'
import { countedRows, countImported } from '../observability/metrics'
import { jobInfoSchema } from '../jobs/schema'
import { exactSearchFields, hiddenFields, labelHidden, maskOptions, maskRow, maskRowArrays, maskRows, privacyViewOf } from '../privacy/masking'
import { registerRevealRoute } from '../privacy/reveal'
import { riderProblems } from '../privacy/rider-rows'

/** Entities whose routes an app has, so the rest can be served as plain definitions. */
const registered = new WeakMap<Services, Set<string>>()

/**
 * Serves every defined entity that no module registered with its own hooks: a simple module is a
 * definition, a migration and a menu row, with no route code at all.
 */
export function registerDefinedEntities(app: FastifyInstance, services: Services) {
  const done = registered.get(services) ?? new Set<string>()
  for (const e of allEntities()) if (!done.has(e.key)) registerEntityRoutes(app, services, e)
}

const OPTIONS_LIMIT = PICKER_LIMIT

const dictTypesOf = (fields: readonly FieldDef[]) => fields.flatMap((f) => (f.kind === 'dict' ? [f.dict] : []))
const stamp = () => new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')

const ACTION: Record<Operation, string> = { list: 'list', get: 'query', add: 'add', edit: 'edit', remove: 'remove', export: 'export', import: 'import' }

export interface EntityAnswers {
  /** Values an add answers beyond the row: an IoT device's secret, shown once. */
  addedFields?: z.ZodRawShape
}

/**
 * Registers the standard routes of one entity from its definition (DESIGN.md API conventions):
 * POST path/list, GET path/:id, POST path, PUT path, DELETE path/:ids, POST path/export.
 * Custom behaviour comes in as hooks; custom endpoints are added beside, not by copying this.
 */
export function registerEntityRoutes(app: FastifyInstance, services: Services, e: ResolvedEntity, hooks: EntityHooks & WorkflowHandlers & EntityAnswers = {}) {
  const done = registered.get(services) ?? new Set<string>()
  registered.set(services, done)
  if (done.has(e.key)) throw new Error(`entity ${e.key} is registered twice`)
  done.add(e.key)
  // Every entity is registered by now: a related list naming a missing entity or a field that cannot
  // filter its list fails the start, not the first details drawer that shows it.
  relatedListsOf(e, entityByKey)
  // Whose rows these are is declared, or the start fails: a module cannot forget its data scope.
  const scopeProblem = scopeProblems(e, (key) => allEntities().find((x) => x.key === key))
  if (scopeProblem.length) throw new Error(scopeProblem.join('\n'))
  // So is how its rows belong to a rider, where they can: their data package and erasure read it.
  const riderProblem = riderProblems(e)
  if (riderProblem.length) throw new Error(riderProblem.join('\n'))
  const api = app.withTypeProvider<ZodTypeProvider>()
  const repo = new EntityRepository(services.db, e, hooks)
  const can = (op: Operation) => e.operations.includes(op)
  const perm = (op: Operation) => `${e.permission}:${ACTION[op]}`
  const module = e.label.en_US
  // Bodies that name a personal field (an add, a modify, an export's search) are logged without its value.
  const personal = new Set(e.fields.flatMap((f) => (f.personal ? [f.name] : [])))
  const tags = [e.label.en_US]
  const row = rowOf(e)
  const listBody = atFirstUse(() => listSchema(e))
  // Kept with the caller's signed-in context, and dropped with it when roles or departments change.
  const scopeOf = (req: Parameters<typeof caller>[0]) => callerScope(services, caller(req))

  if (can('list')) {
    api.post(
      `${e.path}/list`,
      { config: { permission: perm('list'), audit: false }, schema: { tags, summary: `List ${e.label.en_US} (filtered, paged)`, body: listBody, response: { 200: envelope(pageOf(row)) } } },
      async (req) => {
        // Personal values the caller has no right to leave as masks, and are searched whole only.
        const view = privacyViewOf(caller(req))
        const page = await repo.list(req.body as never, await scopeOf(req), languageOf(req), exactSearchFields(e, view))
        maskRows(e, page.rows, view)
        return page
      },
    )
    registerSummaryRoute(app, services, e, repo, scopeOf)
  }
  if (can('export')) {
    api.post(
      `${e.path}/export`,
      {
        config: { permission: perm('export'), audit: { module, businessType: BusinessType.export, personal } },
        schema: {
          tags,
          summary: `Export ${e.label.en_US} as .xlsx (same filters as list, every matching row)`,
          body: listBody,
          response: { 200: fileAnswer(XLSX_TYPE, 'The workbook, streamed') },
        },
      },
      async (req, reply) => {
        const body = req.body as Record<string, unknown>
        sortColumn(e, body.orderByColumn as string | undefined)
        const lang = languageOf(req)
        const view = privacyViewOf(caller(req))
        const read = repo.exportRead(body, await scopeOf(req), lang, exactSearchFields(e, view))
        const stream = streamWorkbookRows({
          sheetName: e.label[lang],
          fields: e.exported,
          lang,
          dicts: await dictLabels(services.db, dictTypesOf(e.exported), lang),
          columns: read.columns,
          batches: countedRows(services, e.key, maskRowArrays(e, read.columns, read.pages, view)),
        })
        return reply.type(XLSX_TYPE).header('Content-Disposition', attachment(`${e.key}_${stamp()}.xlsx`)).send(stream)
      },
    )
    // The same export as a job, for more rows than a browser should wait for: the file is kept for
    // download, and the job checks the starter's right and data scope again when it runs.
    registerExportSource(services, { entity: e, repo, permission: perm('export') })
    api.post(
      `${e.path}/export/job`,
      {
        config: { permission: perm('export'), audit: { module, businessType: BusinessType.export, personal } },
        schema: { tags, summary: `Export ${e.label.en_US} as a job (same body as export); answers the job, whose file downloads from GET /monitor/job/:id/file`,
          body: listBody,
          response: { 200: envelope(jobInfoSchema) },
        },
      },
      async (req) => {
        const body = req.body as Record<string, unknown>
        sortColumn(e, body.orderByColumn as string | undefined)
        const params: ExportJobParams = { entity: e.key, body, lang: languageOf(req) }
        const job = await services.jobs.enqueue('export', params, caller(req))
        return ok(jobInfo(job, params.lang), 'job.queued')
      },
    )
  }
  if (can('import')) {
    api.get(
      `${e.path}/importTemplate`,
      {
        config: { permission: perm('import'), audit: false },
        schema: { tags, summary: `Import template for ${e.label.en_US} (.xlsx, headers in the caller's language)`, response: { 200: fileAnswer(XLSX_TYPE, 'The template workbook') } },
      },
      async (req, reply) => {
        const lang = languageOf(req)
        const bytes = await templateWorkbook({
          sheetName: e.label[lang],
          fields: e.imported,
          lang,
          dicts: await dictLabels(services.db, dictTypesOf(e.imported), lang),
        })
        return reply.type(XLSX_TYPE).header('Content-Disposition', attachment(`${e.key}_template.xlsx`)).send(bytes)
      },
    )
    api.post(
      `${e.path}/import`,
      {
        config: { permission: perm('import'), audit: { module, businessType: BusinessType.import } },
        schema: {
          tags,
          summary: `Import ${e.label.en_US} from .xlsx (the template or an export): all rows or none; updateSupport updates the rows matched by ${e.importKey ?? 'the ID column'}`,
          querystring: z.object({ updateSupport: updateSupportField }),
          consumes: ['multipart/form-data'],
          response: { 200: envelope(z.object({ inserted: z.number(), updated: z.number() })) },
        },
      },
      async (req) => {
        const file = await readOneFile(req, services.config.importMaxBytes)
        checkWorkbookFile(file.nameExtension, file.bytes)
        const flag = file.fields.updateSupport ?? req.query.updateSupport
        const result = await importWorkbook({
          repo,
          db: services.db as never,
          bytes: file.bytes,
          updateSupport: flag === 'true' || flag === '1',
          auth: caller(req),
          scope: await scopeOf(req),
          lang: languageOf(req),
        })
        countImported(services, e.key, result)
        return ok(result, 'import.done', { ...result })
      },
    )
    // The same import as a job, for files larger than a browser should wait on (import-routes.ts).
    registerImportJobRoute(app, services, e, repo, { permission: perm('import'), module, tags })
  }
  // Choices for the reference inputs of other entities' forms and search fields: whoever may list
  // this entity, or use a page that refers to it, gets id and name of the rows in their scope.
  const referrers = allEntities().filter((r) => r.fields.some((f) => (f.kind === 'reference' || f.kind === 'referenceMany') && f.entity === e.key))
  // The dashboards' country and model filters pick from these options too.
  const mayPick = [perm('list'), ...referrers.flatMap((r) => ['list', 'add', 'edit'].map((a) => `${r.permission}:${a}`)), ...dashboardPickerPermissions(e.key)]
  // Pickers of fields `within` another (a bike's colour, within its model) ask for the rows of one
  // owner: ?modelId=3. Checked here, so a definition naming a field the other side lacks fails at start.
  for (const f of e.fields) withinOf(e, f)
  const narrowers = [
    ...new Set(
      referrers.flatMap((r) =>
        r.fields.flatMap((f) => {
          const within = f.kind === 'reference' && f.entity === e.key ? withinOf(r, f) : null
          return within ? [within.field] : []
        }),
      ),
    ),
  ]
  api.get(
    `${e.path}/options`,
    {
      config: { permission: SIGNED_IN },
      schema: {
        tags,
        summary: `Id and name of ${e.label.en_US} for pickers (at most ${OPTIONS_LIMIT}; keyword filters by name, id picks one)`,
        querystring: z.object({
          keyword: z.string().max(100).optional(),
          // The one row a form holds, for its name when the first choices do not reach it.
          id: z.coerce.number().int().positive().optional(),
          ...Object.fromEntries(narrowers.map((n) => [n, z.coerce.number().int().positive().optional()])),
        }),
        response: { 200: envelope(z.array(z.object({ value: z.number(), label: z.string(), parentId: z.number().optional() }))) },
      },
    },
    async (req) => {
      const auth = caller(req)
      if (!mayPick.some((p) => hasPermission(auth, p))) throw forbidden('error.forbidden', { permission: perm('list') })
      const query = req.query as Record<string, unknown>
      const equal: Record<string, number> = Object.fromEntries(narrowers.flatMap((n) => (typeof query[n] === 'number' ? [[n, query[n]]] : [])))
      if (req.query.id !== undefined) equal[e.idField] = req.query.id
      // Named by a personal field the caller sees masked (a member by e-mail): masked names, found by the whole name.
      const view = privacyViewOf(auth)
      return maskOptions(e, await repo.options(await scopeOf(req), req.query.keyword, OPTIONS_LIMIT, equal, languageOf(req), labelHidden(e, view)), view)
    },
  )
  if (can('get')) {
    api.get(
      `${e.path}/:id`,
      {
        // An afterGet hook records the opening (feedback marked read): a write, so the operation log has it.
        config: { permission: perm('get'), ...(hooks.afterGet ? { audit: { module, businessType: BusinessType.update } } : {}) },
        schema: { tags, summary: `One ${e.label.en_US} by id`, params: idParam, response: { 200: envelope(row) } },
      },
      async (req) => maskRow(e, await repo.get(req.params.id, await scopeOf(req), caller(req), languageOf(req)), privacyViewOf(caller(req))),
    )
    registerRevealRoute(app, e, repo, scopeOf)
  }
  if (can('add')) {
    api.post(
      e.path,
      { config: { permission: perm('add'), audit: { module, businessType: BusinessType.insert, personal } }, schema: { tags, summary: `Add ${e.label.en_US}`, body: atFirstUse(() => addSchema(e)), querystring: confirmedQuery, response: { 200: envelope(hooks.addedFields ? apiRowSchema(e).extend(hooks.addedFields) : row) } } },
      async (req) => ok(maskRow(e, await repo.create(req.body as Record<string, unknown>, caller(req), req.query.confirmed === 'true', await scopeOf(req)), privacyViewOf(caller(req)))),
    )
  }
  if (can('edit')) {
    api.put(
      e.path,
      { config: { permission: perm('edit'), audit: { module, businessType: BusinessType.update, personal } }, schema: { tags, summary: `Modify ${e.label.en_US}`, body: atFirstUse(() => editSchema(e)), querystring: confirmedQuery, response: { 200: envelope(row) } } },
      async (req) => {
        const body = req.body as Record<string, unknown>
        // A value the caller sees masked is not theirs to overwrite: the form leaves such fields out.
        const view = privacyViewOf(caller(req))
        const scope = await scopeOf(req)
        const hidden = hiddenFields(e, view).find((f) => body[f.name] !== undefined)
        if (hidden) {
          // A row out of scope is one that does not exist (404) before anything is said of its fields.
          await repo.fetchOne(services.db, body[e.idField] as number, scope)
          throw forbidden('privacy.hiddenField', { field: hidden.label[languageOf(req)], permission: personalDataRight(hidden.personal!) })
        }
        return ok(maskRow(e, await repo.update(body[e.idField] as number, body, caller(req), scope, req.query.confirmed === 'true'), view))
      },
    )
  }
  if (can('remove')) {
    api.delete(
      `${e.path}/:ids`,
      { config: { permission: perm('remove'), audit: { module, businessType: BusinessType.delete } }, schema: { tags, summary: `Delete ${e.label.en_US} by ids (comma-separated)`, params: idsParam, response: { 200: envelope(z.object({ deleted: z.number() })) } } },
      async (req) => ok({ deleted: await repo.remove(req.params.ids, caller(req), await scopeOf(req)) }),
    )
  }
  registerWorkflowRoutes(app, services, e, repo, hooks, scopeOf)
  registerFileRoutes(app, services, e)
  return repo
}
