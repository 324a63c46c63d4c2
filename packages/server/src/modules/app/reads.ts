import { stat } from 'node:fs/promises'
import { extname } from 'node:path'
import { allEntities, APP_LANGUAGES, type AppRead, entityByKey, type FieldDef, type ResolvedEntity, storedColumns } from '@velo/shared'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { type Expression, type SqlBool } from 'kysely'
import { z } from 'zod'
import { badRequest, notFound } from '../../platform/errors'
import { sendFile } from '../../platform/files/send'
import { isJobsFolderName } from '../../platform/jobs/output'
import { PUBLIC } from '../../platform/rbac/guard'
import { sanitizeRichTextForRead } from '../../platform/rich-text'
import { envelope, rangedFileAnswer } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { matchesEtag, PUBLIC_CACHE_CONTROL } from './caching'
import { APP_TAGS } from './tables'
import { type Db, type DynamicEb, dynamicDb } from '../../db/database'

// The engine reads any table its definition names; identifiers only ever come from definitions.
type AnyEb = DynamicEb
type Row = Record<string, unknown>

/** An entity the riders' app reads (its definition's `app`). */
export type AppEntity = ResolvedEntity & { app: AppRead }

/** At most this many rows per read: the app shows lists, never pages through thousands. */
export const APP_READ_LIMIT = 500

export const appEntities = (): AppEntity[] => allEntities().filter((e): e is AppEntity => !!e.app)

/** A code of sys_country, as `?country=` gives it. */
export const countryCodeQuery = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/)
  .transform((v) => v.toUpperCase())

const STORED_NAME = z.string().min(1).max(255)

/** The id of the country with this code; 400 for a code no country has. */
export async function countryIdOf(db: Db, code: string): Promise<number> {
  const found = await db.selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirst()
  if (!found) throw badRequest('app.unknownCountry', { code }, { errors: [{ field: 'country' }] })
  return Number(found.countryId)
}

/** Rows the app may see now: published, and within their time window (an empty start or end is open). */
export function shownNow(e: AppEntity, eb: AnyEb, now: string): Expression<SqlBool> {
  const { published, window } = e.app
  const conditions: Expression<SqlBool>[] = []
  if (published) conditions.push(eb(published.field, 'in', [...published.is]))
  if (window) {
    conditions.push(eb.or([eb(window.start, 'is', null), eb(window.start, '<=', now)]))
    conditions.push(eb.or([eb(window.end, 'is', null), eb(window.end, '>', now)]))
  }
  return eb.and(conditions)
}

function valueType(f: FieldDef): z.ZodType {
  switch (f.kind) {
    case 'number':
    case 'money':
    case 'reference':
    case 'treeParent':
      return z.number()
    case 'boolean':
      return z.boolean()
    default:
      return z.string()
  }
}

const rowSchemas = new Map<string, z.ZodObject>()

/**
 * One row as the app reads it: the id and the declared fields, nothing else (no status, remark, who
 * wrote it, other languages), each reference with its row's name beside it (`functionIdLabel`).
 * The serializer writes from it, so a value it does not name never leaves the server.
 */
export function appRowSchema(e: AppEntity): z.ZodObject {
  const kept = rowSchemas.get(e.key)
  if (kept) return kept
  const nullable = new Map(storedColumns(e).map((c) => [c.name, c.nullable]))
  const shape: Record<string, z.ZodType> = { [e.idField]: z.number() }
  for (const name of e.app.fields) {
    const f = e.fieldMap.get(name)!
    const value = valueType(f)
    shape[name] = nullable.get(name) ? value.nullable() : value
    if (f.kind === 'reference') shape[`${name}Label`] = z.string().nullable()
  }
  const schema = z.strictObject(shape).meta({ id: `App${e.key[0]!.toUpperCase()}${e.key.slice(1)}` })
  rowSchemas.set(e.key, schema)
  return schema
}

/** A value of a filter the app may pass (`?type=video`), by the kind of its field. */
function filterValue(f: FieldDef): z.ZodType {
  switch (f.kind) {
    case 'enum':
      return z.enum(f.options.map((o) => o.value) as [string, ...string[]])
    case 'reference':
      return z.coerce.number().int().positive()
    case 'boolean':
      // Bound as 1/0: SQLite binds no booleans, PostgreSQL casts the parameter.
      return z.enum(['true', 'false']).transform((v) => (v === 'true' ? 1 : 0))
    case 'number':
      return z.coerce.number()
    default:
      return z.string().trim().min(1).max(200)
  }
}

/**
 * `lang` (required when the entity has a language), `country` and the declared filters. `lang` and
 * `country` are taken on every read, so the app may send them to all alike; any other name is refused.
 */
export function appQuerySchema(e: AppEntity) {
  const filters = Object.fromEntries((e.app.filters ?? []).map((name) => [name, filterValue(e.fieldMap.get(name)!).optional()]))
  return z.strictObject({
    lang: e.app.language ? z.enum(APP_LANGUAGES) : z.enum(APP_LANGUAGES).optional(),
    country: countryCodeQuery.optional(),
    ...filters,
  })
}

export interface AppReadQuery {
  lang?: string
  country?: string
  [filter: string]: unknown
}

/** Each reference's label as a column of the statement itself: one lookup by key per row. */
function labelsOf(e: AppEntity, eb: AnyEb) {
  return e.app.fields
    .map((name) => e.fieldMap.get(name)!)
    .filter((f): f is FieldDef & { kind: 'reference' } => f.kind === 'reference')
    .map((f, i) => {
      const target = entityByKey(f.entity)
      const ref = `ref${i}`
      return eb.selectFrom(`${target.table} as ${ref}`).select(`${ref}.${target.labelField}`).whereRef(`${ref}.${target.idField}`, '=', `${e.table}.${f.name}`).as(`${f.name}Label`)
    })
}

/**
 * Stored values as JSON has them, whatever the dialect answered (SQLite 1/0, PostgreSQL decimal
 * strings); rich text sanitized by today's rules (platform/rich-text.ts), however old the row.
 */
export function presentAppRow(e: AppEntity, row: Row): Row {
  const out: Row = { [e.idField]: Number(row[e.idField]) }
  for (const name of e.app.fields) {
    const f = e.fieldMap.get(name)!
    const v = row[name]
    out[name] =
      v === null || v === undefined
        ? null
        : f.kind === 'boolean'
          ? Boolean(v)
          : f.kind === 'money' || f.kind === 'reference'
            ? Number(v)
            : f.kind === 'richText' && typeof v === 'string'
              ? sanitizeRichTextForRead(v)
              : v
    if (f.kind === 'reference') out[`${name}Label`] = (row[`${name}Label`] as string | null | undefined) ?? null
  }
  return out
}

/** The rows of an app read: shown now, of the language, of the country or of none, filtered, in order. */
export async function readAppRows(
  db: Db,
  e: AppEntity,
  query: AppReadQuery,
  o: { where?: (eb: AnyEb) => Expression<SqlBool>; limit?: number | null } = {},
): Promise<Row[]> {
  const { app } = e
  const now = new Date().toISOString()
  const countryId = app.country && query.country ? await countryIdOf(db, query.country) : undefined
  const sort = app.sort ?? e.defaultSort
  const limit = o.limit === undefined ? APP_READ_LIMIT : o.limit
  let statement = dynamicDb(db)
    .selectFrom(e.table)
    .select([e.idField, ...app.fields])
    .select((eb) => labelsOf(e, eb))
    .where((eb) => {
      const conditions = [shownNow(e, eb, now)]
      if (app.language) conditions.push(eb(app.language, '=', query.lang))
      if (app.country && countryId !== undefined) conditions.push(eb.or([eb(app.country, '=', countryId), eb(app.country, 'is', null)]))
      for (const name of app.filters ?? []) if (query[name] !== undefined) conditions.push(eb(name, '=', query[name]))
      if (o.where) conditions.push(o.where(eb))
      return eb.and(conditions)
    })
    .orderBy(sort.field, sort.order)
    .orderBy(e.idField, 'asc')
  if (limit !== null) statement = statement.limit(limit)
  return (await statement.execute()).map((r) => presentAppRow(e, r))
}

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' }

function inline(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/"/g, '')
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
}

/**
 * GET /{app.path} for every entity the app reads (the list of its rows), and
 * GET /files/{app.path}/{field}/{stored name} for each of its image and file fields: the stored file
 * of a row the app may see now, public (a video player or an <img> sends no token), with one byte
 * range answered 206 so a player seeks. A name no such row holds is not found, drafts' files included.
 */
export function registerAppReads(app: FastifyInstance, services: Services, reserved: ReadonlySet<string>) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const db = services.db
  for (const e of appEntities()) {
    if (reserved.has(e.app.path)) throw new Error(`${e.key}: app.path ${e.app.path} is a route of the app API itself`)
    const filters = (e.app.filters ?? []).join(', ')
    api.get(
      `/${e.app.path}`,
      {
        config: { permission: PUBLIC },
        schema: {
          tags: APP_TAGS,
          summary: `${e.label.en_US} the app shows: published${e.app.window ? ', within their time window' : ''}${e.app.language ? ', in ?lang' : ''}${e.app.country ? ', of ?country or of none' : ''}${filters ? `; filters ${filters}` : ''} (at most ${APP_READ_LIMIT})`,
          security: [],
          querystring: appQuerySchema(e),
          response: { 200: envelope(z.object({ rows: z.array(appRowSchema(e)) })) },
        },
      },
      async (req) => ({ rows: await readAppRows(db, e, req.query as AppReadQuery) }),
    )

    for (const name of e.app.fields) {
      const f = e.fieldMap.get(name)!
      if (f.kind !== 'image' && f.kind !== 'file') continue
      api.get(
        `/files/${e.app.path}/${f.name}/*`,
        {
          config: { permission: PUBLIC },
          exposeHeadRoute: true,
          schema: {
            tags: APP_TAGS,
            summary: `The ${f.label.en_US} of a ${e.singular.en_US} the app shows, by its stored name; one byte range (Range: bytes=a-b) answers 206`,
            security: [],
            params: z.object({ '*': STORED_NAME }),
            response: rangedFileAnswer('application/octet-stream', 'The file, with its content type; ETag validates it'),
          },
        },
        async (req, reply) => {
          const fileName = req.params['*']
          const full = services.storage.resolve(fileName)
          // A job's file is never a row's to show, whatever a field holds (GET /monitor/job/:id/file alone serves it).
          if (!full || isJobsFolderName(services.storage, fileName)) throw notFound('download.missing')
          const now = new Date().toISOString()
          const held = await dynamicDb(db)
            .selectFrom(e.table)
            .select(e.idField)
            .where(f.name, '=', fileName)
            .where((eb) => shownNow(e, eb, now))
            .limit(1)
            .executeTakeFirst()
          if (!held) throw notFound('download.missing')
          const size = await stat(full).then((s) => (s.isFile() ? { bytes: s.size, modified: s.mtimeMs } : undefined), () => undefined)
          if (!size) throw notFound('download.missing')
          let file: { contentType: string; originalName: string; etag: string }
          if (f.kind === 'file') {
            const stored = await services.db
              .selectFrom('sysFile')
              .select(['contentType', 'originalName', 'sha256'])
              .where('fileName', '=', fileName)
              .where('entity', '=', e.key)
              .where('field', '=', f.name)
              .executeTakeFirst()
            if (!stored) throw notFound('download.missing')
            file = { contentType: stored.contentType, originalName: stored.originalName, etag: stored.sha256 }
          } else {
            // Images come from /common/upload, which keeps no digest: the size and time of the file name it.
            file = { contentType: IMAGE_TYPES[extname(fileName).toLowerCase()] ?? 'application/octet-stream', originalName: fileName.split('/').pop()!, etag: `${size.bytes.toString(16)}-${Math.floor(size.modified).toString(16)}` }
          }
          if (matchesEtag(req.headers['if-none-match'], `"${file.etag}"`)) {
            // Not an answer the route declares (it has no body to declare): typed as any reply's.
            return (reply as FastifyReply).code(304).header('ETag', `"${file.etag}"`).header('Cache-Control', PUBLIC_CACHE_CONTROL).send()
          }
          return sendFile(req, reply, { path: full, size: size.bytes, contentType: file.contentType, disposition: inline(file.originalName), etag: file.etag, cacheControl: PUBLIC_CACHE_CONTROL })
        },
      )
    }
  }
}
