import { allEntities, defineEntity, GEN_PERMISSIONS, genTableConfigSchema, type GenTableConfig, type Language } from '@velo/shared'
import { strToU8, zipSync } from 'fflate'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { BusinessType, type BusinessTypeCode } from '../../../platform/audit/operation-log'
import { attachment } from '../../../platform/crud/excel'
import { badRequest, notFound } from '../../../platform/errors'
import { languageOf } from '../../../platform/http'
import { t } from '../../../platform/i18n'
import { caller } from '../../../platform/rbac/guard'
import { envelope, fileAnswer } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { configIssues, defaultConfig, syncConfig, withStoredFacts, type GenIssue } from './config'
import { foreignTables, readColumns } from './introspect'
import { definitionOf, migrationStamp, renderModule } from './render'
import { GENERATED_MIGRATION_TABLE } from '../../../db/migrate'
import { dynamicDb } from '../../../db/database'

const tags = ['Code generation']
const MODULE = 'Code generation'
const QUERY_PERMISSION = 'tool:gen:query'
const ZIP_TYPE = 'application/zip'

const audit = (businessType: BusinessTypeCode) => ({ module: MODULE, businessType })
const idParams = z.object({ id: z.coerce.number().int().positive() })
const tableAnswer = z.object({ tableId: z.number(), tableName: z.string(), tableComment: z.string(), config: genTableConfigSchema })
const fileSchema = z.object({ path: z.string(), language: z.enum(['typescript', 'markdown']), content: z.string() })

interface GenRow {
  tableId: number
  tableName: string
  tableComment: string
  config: string
}

/**
 * Tool system › Code generation (docs/tools.md): the database's own tables offered for import, each
 * imported table's settings (edited, checked, brought up to the table again), and the files of its
 * module, previewed or zipped. Nothing is written into the server's tree and nothing from a table or
 * a request is run: names and labels only ever become string literals in the files.
 */
export function registerGen(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db

  const importedNames = async () => new Set((await db.selectFrom('toolGenTable').select('tableName').execute()).map((r) => String(r.tableName)))

  async function rowOf(id: number): Promise<GenRow> {
    const row = await db.selectFrom('toolGenTable').select(['tableId', 'tableName', 'tableComment', 'config']).where('tableId', '=', id).executeTakeFirst()
    if (!row) throw notFound()
    return { tableId: Number(row.tableId), tableName: String(row.tableName), tableComment: String(row.tableComment ?? ''), config: String(row.config) }
  }

  const storedConfig = (row: GenRow): GenTableConfig => genTableConfigSchema.parse(JSON.parse(row.config))
  const answerOf = (row: GenRow, config: GenTableConfig) => ({ tableId: row.tableId, tableName: row.tableName, tableComment: row.tableComment, config })

  /** Refuses settings that would make no working module: 400 naming each setting, in the caller's language. */
  async function check(row: GenRow, config: GenTableConfig, stored: GenTableConfig | null, lang: Language) {
    const dictTypes = new Set((await db.selectFrom('sysDictType').select('dictType').execute()).map((r) => String(r.dictType)))
    const issues: GenIssue[] = configIssues(row.tableName, config, dictTypes, stored)
    let words = issues.map((i) => ({ field: i.field, message: t(lang, i.key, i.params) }))
    if (!issues.length) {
      try {
        defineEntity(definitionOf(row.tableName, config))
      } catch (err) {
        words = [{ field: '', message: t(lang, 'gen.badDefinition', { reason: (err as Error).message.slice(0, 300) }) }]
      }
    }
    if (words.length) throw badRequest('gen.invalidConfig', { first: words[0]!.message }, { errors: words })
  }

  async function save(row: GenRow, config: GenTableConfig, userName: string) {
    await db
      .updateTable('toolGenTable')
      .set({ entityKey: config.entityKey, area: config.area, template: config.template, config: JSON.stringify(config), updateBy: userName, updateTime: new Date().toISOString() })
      .where('tableId', '=', row.tableId)
      .execute()
  }

  async function filesOf(id: number, lang: Language) {
    const row = await rowOf(id)
    const config = storedConfig(row)
    await check(row, config, null, lang)
    // Kysely's own migration table (of the generated modules' migrations): no table of the Database.
    const latest = await dynamicDb(db).withoutPlugins().selectFrom(GENERATED_MIGRATION_TABLE).select('name').orderBy('name', 'desc').executeTakeFirst()
    return { config, ...(await renderModule(row.tableName, config, migrationStamp(new Date(), latest ? String(latest.name) : undefined))) }
  }

  api.get(
    '/tool/gen/tables',
    {
      config: { permission: GEN_PERMISSIONS.import, audit: false },
      schema: {
        tags,
        summary: 'Tables of the database that no definition covers and no import holds, with their comments',
        response: { 200: envelope(z.array(z.object({ tableName: z.string(), comment: z.string(), columns: z.number() }))) },
      },
    },
    async () => foreignTables(db, services.dialect, await importedNames()),
  )

  api.post(
    '/tool/gen/import',
    {
      config: { permission: GEN_PERMISSIONS.import, audit: audit(BusinessType.import) },
      schema: {
        tags,
        summary: 'Imports tables (names from GET /tool/gen/tables) with default settings read from their columns',
        body: z.object({ tables: z.array(z.string().min(1).max(128)).min(1).max(20) }),
        response: { 200: envelope(z.object({ imported: z.number() })) },
      },
    },
    async (req) => {
      const offered = new Map((await foreignTables(db, services.dialect, await importedNames())).map((t) => [t.tableName, t]))
      const names = [...new Set(req.body.tables)]
      if (names.some((n) => !offered.has(n))) throw badRequest('gen.unknownTable', {}, { errors: [{ field: 'tables', message: t(languageOf(req), 'gen.unknownTable') }] })
      const taken = new Set([...allEntities().map((e) => e.key), ...(await db.selectFrom('toolGenTable').select('entityKey').execute()).map((r) => String(r.entityKey))])
      const rows: GenTableConfig[] = []
      for (const name of names) {
        const config = defaultConfig(name, offered.get(name)!.comment, await readColumns(db, services.dialect, name), taken)
        // A table beyond what the settings hold (over 200 columns, a name over 128 characters) is not taken.
        if (!genTableConfigSchema.safeParse(config).success) {
          throw badRequest('gen.unsupportedTable', {}, { errors: [{ field: 'tables', message: t(languageOf(req), 'gen.unsupportedTable') }] })
        }
        taken.add(config.entityKey)
        rows.push(config)
      }
      const by = caller(req).userName
      const now = new Date().toISOString()
      await db.transaction().execute(async (tx) => {
        for (const [i, config] of rows.entries()) {
          await tx
            .insertInto('toolGenTable')
            .values({
              tableName: names[i]!,
              tableComment: offered.get(names[i]!)!.comment.slice(0, 500),
              entityKey: config.entityKey,
              area: config.area,
              template: config.template,
              config: JSON.stringify(config),
              createBy: by,
              createTime: now,
              updateBy: '',
              updateTime: null,
              remark: '',
            })
            .execute()
        }
      })
      return { imported: rows.length }
    },
  )

  api.get(
    '/tool/gen/:id/config',
    {
      config: { permission: QUERY_PERMISSION },
      schema: { tags, summary: "An imported table's generation settings", params: idParams, response: { 200: envelope(tableAnswer) } },
    },
    async (req) => {
      const row = await rowOf(req.params.id)
      return answerOf(row, storedConfig(row))
    },
  )

  api.put(
    '/tool/gen/:id/config',
    {
      config: { permission: GEN_PERMISSIONS.edit, audit: audit(BusinessType.update) },
      schema: {
        tags,
        summary: "Saves an imported table's settings, checked whole (400 naming each setting that makes no working module)",
        params: idParams,
        body: genTableConfigSchema,
        response: { 200: envelope(tableAnswer) },
      },
    },
    async (req) => {
      const row = await rowOf(req.params.id)
      const stored = storedConfig(row)
      const config = withStoredFacts(req.body, stored)
      await check(row, config, stored, languageOf(req))
      await save(row, config, caller(req).userName)
      return answerOf(row, config)
    },
  )

  api.post(
    '/tool/gen/:id/sync',
    {
      config: { permission: GEN_PERMISSIONS.edit, audit: audit(BusinessType.update) },
      schema: {
        tags,
        summary: "Reads the table's columns again: edits of the columns still there are kept, new ones added, gone ones dropped",
        params: idParams,
        response: { 200: envelope(tableAnswer) },
      },
    },
    async (req) => {
      const row = await rowOf(req.params.id)
      const columns = await readColumns(db, services.dialect, row.tableName)
      if (!columns.length) throw badRequest('gen.tableGone')
      const config = syncConfig(storedConfig(row), columns)
      await save(row, config, caller(req).userName)
      return answerOf(row, config)
    },
  )

  api.get(
    '/tool/gen/:id/preview',
    {
      config: { permission: GEN_PERMISSIONS.preview },
      schema: {
        tags,
        summary: 'The files the module needs (definition, migration, both lists, instructions), formatted, without writing any',
        params: idParams,
        response: { 200: envelope(z.object({ files: z.array(fileSchema) })) },
      },
    },
    async (req) => ({ files: (await filesOf(req.params.id, languageOf(req))).files }),
  )

  api.get(
    '/tool/gen/:id/download',
    {
      config: { permission: GEN_PERMISSIONS.download, audit: audit(BusinessType.other) },
      schema: { tags, summary: "The preview's files as a zip, paths from the checkout's root", params: idParams, response: { 200: fileAnswer(ZIP_TYPE, 'The files of the module') } },
    },
    async (req, reply) => {
      const { entity, files } = await filesOf(req.params.id, languageOf(req))
      const zip = zipSync(Object.fromEntries(files.map((f) => [f.path, strToU8(f.content)])))
      return reply.type(ZIP_TYPE).header('Content-Disposition', attachment(`${entity.key}.zip`)).send(Buffer.from(zip))
    },
  )
}
