import type { Operation, ResolvedEntity } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { BusinessType } from '../audit/operation-log'
import { ok } from '../envelope'
import { languageOf } from '../http'
import { caller } from '../rbac/guard'
import { resolveRowScope } from '../rbac/data-scope'
import type { Services } from '../services'
import { attachment, streamWorkbook, XLSX_TYPE } from './excel'
import { EntityRepository, dictLabels, sortColumn, type EntityHooks } from './repository'
import { addSchema, editSchema, idParam, idsParam, listSchema } from './schemas'

const ACTION: Record<Operation, string> = { list: 'list', get: 'query', add: 'add', edit: 'edit', remove: 'remove', export: 'export' }

/**
 * Registers the standard routes of one entity from its definition (DESIGN.md API conventions):
 * POST path/list, GET path/:id, POST path, PUT path, DELETE path/:ids, POST path/export.
 * Custom behaviour comes in as hooks; custom endpoints are added beside, not by copying this.
 */
export function registerEntityRoutes(app: FastifyInstance, services: Services, e: ResolvedEntity, hooks: EntityHooks = {}) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const repo = new EntityRepository(services.db, e, hooks)
  const can = (op: Operation) => e.operations.includes(op)
  const perm = (op: Operation) => `${e.permission}:${ACTION[op]}`
  const module = e.label.en_US
  const tags = [e.label.en_US]
  const scopeOf = (req: Parameters<typeof caller>[0]) => resolveRowScope(services.db, caller(req))

  if (can('list')) {
    api.post(
      `${e.path}/list`,
      { config: { permission: perm('list'), audit: false }, schema: { tags, summary: `List ${e.label.en_US} (filtered, paged)`, body: listSchema(e) } },
      async (req) => repo.list(req.body as never, await scopeOf(req)),
    )
  }
  if (can('export')) {
    api.post(
      `${e.path}/export`,
      {
        config: { permission: perm('export'), audit: { module, businessType: BusinessType.export } },
        schema: { tags, summary: `Export ${e.label.en_US} as .xlsx (same filters as list, every matching row)`, body: listSchema(e) },
      },
      async (req, reply) => {
        const body = req.body as Record<string, unknown>
        sortColumn(e, body.orderByColumn as string | undefined)
        const lang = languageOf(req)
        const dictTypes = e.exported.flatMap((f) => (f.kind === 'dict' ? [f.dict] : []))
        const stream = streamWorkbook({
          sheetName: e.label[lang],
          fields: e.exported,
          lang,
          dicts: await dictLabels(services.db, dictTypes, lang),
          batches: repo.stream(body, await scopeOf(req)),
        })
        const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')
        return reply.type(XLSX_TYPE).header('Content-Disposition', attachment(`${e.key}_${stamp}.xlsx`)).send(stream)
      },
    )
  }
  if (can('get')) {
    api.get(
      `${e.path}/:id`,
      { config: { permission: perm('get') }, schema: { tags, summary: `One ${e.label.en_US} by id`, params: idParam } },
      async (req) => repo.get(req.params.id, await scopeOf(req)),
    )
  }
  if (can('add')) {
    api.post(
      e.path,
      { config: { permission: perm('add'), audit: { module, businessType: BusinessType.insert } }, schema: { tags, summary: `Add ${e.label.en_US}`, body: addSchema(e) } },
      async (req) => ok(await repo.create(req.body as Record<string, unknown>, caller(req))),
    )
  }
  if (can('edit')) {
    api.put(
      e.path,
      { config: { permission: perm('edit'), audit: { module, businessType: BusinessType.update } }, schema: { tags, summary: `Modify ${e.label.en_US}`, body: editSchema(e) } },
      async (req) => {
        const body = req.body as Record<string, unknown>
        return ok(await repo.update(body[e.idField] as number, body, caller(req), await scopeOf(req)))
      },
    )
  }
  if (can('remove')) {
    api.delete(
      `${e.path}/:ids`,
      { config: { permission: perm('remove'), audit: { module, businessType: BusinessType.delete } }, schema: { tags, summary: `Delete ${e.label.en_US} by ids (comma-separated)`, params: idsParam } },
      async (req) => ok({ deleted: await repo.remove(req.params.ids, caller(req), await scopeOf(req)) }),
    )
  }
  return repo
}
