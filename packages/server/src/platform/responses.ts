import { apiRowSchema, type ResolvedEntity } from '@velo/shared'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance, FastifySerializerCompiler } from 'fastify'
import fastJson from 'fast-json-stringify'
import { ResponseSerializationError } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { Ok } from './envelope'

// Every route declares what it answers (DESIGN.md API conventions): `response: { 200: envelope(x) }`.
// The declaration documents the route in OpenAPI, types what its handler may return (the data, or
// ok(data) with a message), and is what leaves the server: the answer is written by a serializer
// compiled from it (fast-json-stringify), so a value the schema does not name is never sent, and a
// list is written faster than JSON.stringify writes it. With RESPONSE_CHECK (the tests) every answer
// is also checked against the schema, so a route whose answer drifts from its declaration fails
// its tests instead of losing a field unseen.

/**
 * The envelope `{code, msg, data}` around what a route answers. The handler returns the data or
 * `ok(data, messageKey)`; the envelope hook wraps it before the serializer writes it.
 */
export function envelope<S extends z.ZodType>(data: S) {
  // One per data schema (madeOnce): the routes of a definition share it, and so its built serializer.
  let made = envelopes.get(data)
  if (!made) envelopes.set(data, (made = z.object({ code: z.number(), msg: z.string(), data })))
  // Typed as what the handler returns (the type provider checks handlers against the output type).
  return made as unknown as z.ZodType<z.output<S> | Ok<z.output<S>>>
}
const envelopes = new WeakMap<z.ZodType, z.ZodType>()

/** A page of rows: `{rows, total}`, one per row schema. */
export function pageOf<S extends z.ZodType>(row: S) {
  let made = pages.get(row)
  if (!made) pages.set(row, (made = z.object({ rows: z.array(row), total: z.number() })))
  return made as z.ZodObject<{ rows: z.ZodArray<S>; total: z.ZodNumber }>
}
const pages = new WeakMap<z.ZodType, z.ZodType>()

/** A row of an entity as the API answers it (shared/entity/api-row.ts). */
// Typed loosely: the engine's repository reads rows of any entity (the web reads them as ApiRowOf).
export const rowOf = (e: ResolvedEntity) => apiRowSchema(e) as unknown as z.ZodType<Record<string, unknown>>

/**
 * The answer of a route that sends bytes, not an envelope (a workbook, a stored file, an event
 * stream): documented by its content type; nothing of it goes through the serializer.
 */
export function fileAnswer(contentType: string, description: string) {
  // Typed as anything: the handler sends a stream or a buffer; the docs say a binary string.
  const bytes = z.string().meta({ format: 'binary' }) as unknown as z.ZodType<unknown>
  return { description, content: { [contentType]: { schema: bytes } } }
}

/**
 * A download that answers one byte range (206) as well as the whole file. Its route also sets
 * `exposeHeadRoute: true` (a client asks a file's size with HEAD before its ranges; the server adds
 * HEAD only where a route asks, app.ts), which requireResponseSchemas checks.
 */
export function rangedFileAnswer(contentType: string, description: string) {
  return { 200: fileAnswer(contentType, description), 206: fileAnswer(contentType, 'The bytes the Range header asked for, with Content-Range') }
}

/**
 * Inside the API scope: refuses at start any route that does not declare what it answers (a
 * success `response` schema), as the guard refuses one that declares no permission; and a ranged
 * download that would not answer HEAD.
 */
export function requireResponseSchemas(api: FastifyInstance) {
  api.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (!response || !Object.keys(response).some((status) => /^2/.test(status))) throw new Error(`Route ${route.method} ${route.url} declares no response schema`)
    if ('206' in response && route.method === 'GET' && !route.exposeHeadRoute) throw new Error(`Route ${route.method} ${route.url} answers byte ranges: it sets exposeHeadRoute`)
  })
}

/** Whether a route answers an endless event stream (it declared `fileAnswer('text/event-stream', …)`). */
export function answersEventStream(route: { schema?: { response?: unknown } }): boolean {
  const answers = route.schema?.response as Record<string, { content?: Record<string, unknown> }> | undefined
  const ok = answers?.['200'] ?? answers?.['2xx']
  return !!ok?.content && 'text/event-stream' in ok.content
}

/**
 * The answers of every route declared by status class ('2xx') where it names one status of the class
 * (almost all: `200`), for Fastify's table of a route's serializers. Fastify copies the declaration
 * into a new object key by key, and V8 gives an object that receives the key '200' after it is made
 * an array of 201 elements for it: 2.6 KB a route, ~3.5 MB of an idle server's heap; a named key
 * ('2xx') costs 64 bytes. Fastify answers a 200 with the 2xx serializer. The API document still says
 * 200 (`documentedAnswers`, the OpenAPI transform).
 */
export function declareAnswersByClass(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (!response || declared.has(response)) return
    const statuses = Object.keys(response)
    const byClass: Record<string, unknown> = {}
    for (const status of statuses) {
      const alone = /^\d{3}$/.test(status) && statuses.filter((other) => other[0] === status[0]).length === 1
      byClass[alone ? `${status[0]}xx` : status] = response[status]
    }
    declared.set(byClass, response)
    route.schema = { ...route.schema, response: byClass }
  })
}
const declared = new WeakMap<object, Record<string, unknown>>()

/** A route's schema with its answers as the route declared them (for the API document). */
export function documentedAnswers<S extends { response?: unknown } | undefined>(schema: S): S {
  const original = schema?.response && declared.get(schema.response as object)
  return original ? { ...schema, response: original } : schema
}

/** Answers that carry nothing but the message. */
export const done = envelope(z.null().optional())

type JsonSchema = { [key: string]: unknown }

/**
 * The JSON schema fast-json-stringify compiles: zod's, with the shapes it writes slowly or refuses
 * made plain. `X | null` of an object becomes one type list instead of anyOf (which it would check
 * against each branch on every value), and `required` goes: a missing value is left out of the
 * answer rather than failing it (RESPONSE_CHECK finds it in the tests).
 */
function forSerializer(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forSerializer)
  if (typeof node !== 'object' || node === null) return node
  const out: JsonSchema = {}
  for (const [k, v] of Object.entries(node)) {
    if (k === 'required' || k === '$schema') continue
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as JsonSchema).map(([p, s]) => [p, forSerializer(s)])) : forSerializer(v)
  }
  const anyOf = out.anyOf as JsonSchema[] | undefined
  if (anyOf?.length === 2) {
    const other = anyOf.find((s) => s.type !== 'null')
    if (other && anyOf.some((s) => s.type === 'null') && typeof other.type === 'string') {
      delete out.anyOf
      return { ...out, ...other, type: [other.type, 'null'] }
    }
  }
  return out
}

/** The JSON schema of a response's zod schema, as the serializer compiles it. */
export function serializerSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'any', metadata: z.registry() })
  return forSerializer(json) as JsonSchema
}

/**
 * An app's route serializers: Fastify's compiler for its routes' zod response schemas, and those it
 * has not built yet. One per app, so a closed app's schemas are not kept by the next (the test
 * suite builds dozens of apps in one process).
 */
export class ResponseSerializers {
  private readonly unbuilt = new Set<() => unknown>()

  constructor(private readonly options: { check: boolean }) {}

  /** Builds every route serializer not built yet (a test proves they all build); answers how many. */
  buildAll(): number {
    const n = this.unbuilt.size
    for (const build of this.unbuilt) build()
    return n
  }

  /** The compiler to give Fastify (setSerializerCompiler). */
  compiler(): FastifySerializerCompiler<z.ZodType> {
    return responseSerializer(this.options, this.unbuilt)
  }
}

/**
 * Fastify's serializer compiler for the routes' zod response schemas. Each route's serializer is
 * built at its first answer, not at start: turning ~1,000 zod schemas into JSON schemas and compiling
 * them was about 0.5 s of every start (of the server, and of every test file's app), most of it for
 * routes a given process never answers. test/response-serializers.test.ts builds every one. The
 * routes' builds wait in `unbuilt` (their app's ResponseSerializers) until built.
 */
/**
 * Serializers already built, by response schema, for the process: a schema made once (madeOnce,
 * envelope) is built once whichever app answers first (the test suite's files each build one).
 */
const builtSerializers = new WeakMap<z.ZodType, (data: unknown) => string>()

function responseSerializer(options: { check: boolean }, unbuilt: Set<() => unknown>): FastifySerializerCompiler<z.ZodType> {
  return ({ schema, method, url }) => {
    let compiled: ((data: unknown) => string) | undefined
    // Built once, then off the waiting set: an answer only calls what is built.
    const build = () => {
      if (!compiled) {
        compiled = builtSerializers.get(schema)
        if (!compiled) builtSerializers.set(schema, (compiled = fastJson(serializerSchema(schema) as never)))
        unbuilt.delete(build)
      }
      return compiled
    }
    unbuilt.add(build)
    const write = (data: unknown) => (compiled ?? build())(data)
    if (!options.check) return write
    // What JSON.stringify would have sent must fit the schema, and the serializer must send exactly it.
    return (data: unknown) => {
      const plain = JSON.stringify(data)
      const sent = JSON.parse(plain) as unknown
      const result = schema.safeParse(sent)
      if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error })
      const written = write(data)
      if (!isDeepStrictEqual(JSON.parse(written), sent)) {
        throw new Error(`Response of ${method} ${url}: its schema loses or changes values: ${plain.slice(0, 800)} was written as ${written.slice(0, 800)}`)
      }
      return written
    }
  }
}
