import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import helmet from 'helmet'
import multipart from '@fastify/multipart'
import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import fastifyStatic from '@fastify/static'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance, LogController, type RouteOptions } from 'fastify'
import { jsonSchemaTransform, jsonSchemaTransformObject, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import type { AppConfig } from './config'
import { migrateToLatest } from './db/migrate'
import type { EmbeddedBroker } from './gateway/embedded-broker'
import { type Iot, type IotOptions, startIot } from './gateway'
import { seed, type SeedResult } from './seed'
import { registerModules } from './modules'
import { installOperationLog } from './platform/audit/operation-log'
import { envelopeHook, errorHandler, installJsonParser, notFoundHandler } from './platform/http'
import { installGuard } from './platform/rbac/guard'
import { declareAnswersByClass, documentedAnswers, requireResponseSchemas, ResponseSerializers } from './platform/responses'
import { createServices, type Services } from './platform/services'
import type { ScheduleOptions } from './platform/jobs'
import { registerDefinedEntities } from './platform/crud/routes'
import { uploadSweep } from './platform/files/sweep'
import { installObservability } from './platform/observability'
import { closeEventStreams } from './platform/sse'
import { loggerOptions } from './platform/logger'
import { staffOnlyDocs } from './platform/api-docs'

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
    /** Every route registered, for the test that walks them all. */
    routeTable: Pick<RouteOptions, 'method' | 'url' | 'config' | 'schema'>[]
    seedResult: SeedResult
    /** The in-process MQTT broker, when no external one is configured (MQTT_URL). */
    broker: EmbeddedBroker | null
    /** The IoT gateway: broker authority, MQTT client, device state, message log, live events. */
    iot: Iot
    /** The routes' response serializers, each built at its route's first answer. */
    responseSerializers: ResponseSerializers
  }
}

export interface BuildOptions {
  /** More API modules, registered like the product's own (the engine's tests add a test entity). */
  modules?: (api: FastifyInstance, services: Services) => Promise<void> | void
  /** Pino logger options, or false in tests. */
  logger?: boolean | object
  /** Shorter intervals of the IoT gateway's buffers and sweeper (tests). */
  iot?: IotOptions
  /** Whether (and how often) this instance's job worker queues the maintenance schedules' jobs (on by default). */
  schedules?: ScheduleOptions
}

/** Where the built web app is: WEB_DIR, else packages/web/dist beside this package. */
function webDir(config: AppConfig): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url))
  // From src/ (tsx) and from dist/ (the bundle) alike, the web package is two levels up.
  const candidates = [config.webDir, resolve(here, '../../web/dist')]
  return candidates.find((d): d is string => !!d && existsSync(join(d, 'index.html')))
}

/** Builds the whole product from configuration: migrates, seeds and registers every route. */
export async function buildApp(config: AppConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config),
    trustProxy: config.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    // A line per request only when asked for; errors are logged with their request id either way.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
    requestIdHeader: false,
    // HEAD only where a route asks for it (downloads that answer byte ranges): a HEAD twin of each of
    // the ~600 GET routes was a second route context and router entry each, ~4 MB of an idle heap.
    exposeHeadRoutes: false,
  }).withTypeProvider<ZodTypeProvider>()

  const services = createServices(config)
  app.decorate('services', services)
  services.jobs.configureSchedules(options.schedules ?? { enabled: true })
  // The gateway writes what it still holds before the database closes.
  app.addHook('onClose', async () => {
    if (app.hasDecorator('iot')) await app.iot.close()
    await services.close()
  })
  // Server-sent event streams never go idle: end them, or closing would wait for them.
  app.addHook('preClose', async () => closeEventStreams(services))
  // The job worker starts once every route, and so every export a job may run, is registered; it
  // stops with services.close() (JOB_CONCURRENCY=0 keeps it from running jobs on this instance).
  app.addHook('onReady', async () => services.jobs.start(app.log))
  // The sweeps stop first, so none runs into a part that is closing.
  app.addHook('preClose', () => services.jobs.scheduler.stop())
  // Uploads no row took up go after FILE_SWEEP_GRACE_HOURS (platform/files/sweep.ts), hourly.
  services.jobs.every(uploadSweep(services, app.log))
  app.decorate('routeTable', [])
  app.addHook('onRoute', (r) => {
    app.routeTable.push({ method: r.method, url: r.url, config: r.config, schema: r.schema })
  })
  declareAnswersByClass(app)

  await migrateToLatest(services.db, services.dialect)
  app.decorate('seedResult', await seed(services))
  await services.storage.ensureRoot()

  const iot = await startIot(services, app.log, options.iot)
  app.decorate('iot', iot)
  app.addHook('onReady', async () => iot.gateway.gate.open())
  app.decorate('broker', iot.broker)

  app.setValidatorCompiler(validatorCompiler)
  const serializers = new ResponseSerializers({ check: config.responseCheck })
  app.decorate('responseSerializers', serializers)
  app.setSerializerCompiler(serializers.compiler())
  app.setErrorHandler(errorHandler)

  const directives = {
    defaultSrc: ["'self'"],
    // The map's base map, when its operator serves it from elsewhere (MAP_STYLE_URL, MAP_ORIGINS): raster tiles are images.
    imgSrc: ["'self'", 'data:', 'blob:', ...config.mapOrigins],
    // antd writes its styles at run time (CSS-in-JS).
    styleSrc: ["'self'", "'unsafe-inline'"],
    scriptSrc: ["'self'"],
    connectSrc: ["'self'", ...config.mapOrigins],
    // Over plain HTTP (the server opened by its address) it would send the browser for the scripts
    // over https, which this port does not speak: a blank page. Only an https request gets it, below.
    upgradeInsecureRequests: null,
  }
  // Both policies are made once: building helmet's middleware for each request (what the Fastify
  // plugin's reply.helmet() does) cost more than a list's page of rows.
  const overHttp = helmet({ contentSecurityPolicy: { directives }, crossOriginEmbedderPolicy: false })
  const overHttps = helmet({ contentSecurityPolicy: { directives: { ...directives, upgradeInsecureRequests: [] } }, crossOriginEmbedderPolicy: false })
  // req.protocol is https on a TLS socket, or from X-Forwarded-Proto when TRUST_PROXY trusts the proxy.
  app.addHook('onRequest', (req, reply, next) => {
    ;(req.protocol === 'https' ? overHttps : overHttp)(req.raw, reply.raw, (err) => next(err as Error | undefined))
  })

  await app.register(swagger, {
    openapi: {
      info: { title: 'Velo Admin API', version: '0.1.0', description: 'Envelope {code, msg, data}; code 200 is success.' },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authorization' },
          // The riders' app API (modules/app): a member's token from POST /app/v1/auth/login, in the same header.
          memberToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
          // The production-line tool's API (modules/tool): an operator's token from POST /tool-api/v1/auth/login.
          toolToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
        },
      },
      security: [{ token: [] }],
    },
    transform: (route) => jsonSchemaTransform({ ...route, schema: documentedAnswers(route.schema) }),
    // The named schemas (each entity's row, the menu tree) go into components, where the routes refer to them.
    transformObject: jsonSchemaTransformObject,
  })
  // No staticCSP of its own: that one always upgrades insecure requests; the policy above serves the docs.
  // API_DOCS: signed-in staff only (the default; header or the console's cookie), anyone, or not served.
  if (config.apiDocs !== 'off') {
    await app.register(swaggerUi, {
      routePrefix: `${config.apiPrefix}/docs`,
      ...(config.apiDocs === 'staff' ? { uiHooks: { onRequest: staffOnlyDocs(services) } } : {}),
    })
  }

  await app.register(
    async (api) => {
      await api.register(multipart, { limits: { fileSize: config.uploadMaxBytes, files: 1, fields: 20 } })
      // Only the routes that ask for it (sign-in, registration, reset) are limited, per client address.
      await api.register(rateLimit, { global: false, hook: 'preHandler', redis: services.redis, nameSpace: `${config.redisPrefix}rate:` })
      installJsonParser(api)
      // Anonymous refusals, per address (shared by the instances through Redis): far more than an
      // expired session's burst of calls, or an office behind one address, ever causes. A count that
      // cannot be kept (Redis away) leaves the plain 401.
      const refusals = api.createRateLimit({ max: 60, timeWindow: '1 minute', keyGenerator: (req) => `refused:${normalizeIP(req.ip)}`, skipOnError: true })
      installGuard(api, services, refusals)
      requireResponseSchemas(api)
      installOperationLog(api, services.db, config.apiPrefix)
      api.addHook('preSerialization', envelopeHook)
      api.setNotFoundHandler(notFoundHandler)
      await registerModules(api, services)
      await options.modules?.(api, services)
      registerDefinedEntities(api, services)
    },
    { prefix: config.apiPrefix },
  )

  // Probes and metrics at the root, so they do not depend on API_PREFIX; the web app's history
  // fallback below only takes URLs no route matched.
  await installObservability(app)

  const web = webDir(config)
  if (web) {
    await app.register(fastifyStatic, {
      root: web,
      wildcard: false,
      index: 'index.html',
      // The build writes a .br and a .gz beside each text file (packages/web/build/precompress.ts): sent as
      // they are to a browser that takes them, nothing is compressed per request.
      preCompressed: true,
      cacheControl: false,
      setHeaders(reply: { header: (name: string, value: string) => unknown }, path: string) {
        // Built chunks are named by their content's hash: a browser may keep them for good. The page
        // that names them (index.html) is asked for again each time, so a new build is seen at once.
        reply.header('cache-control', /[/\\]assets[/\\]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache')
      },
    })
    const indexHtml = await readFile(join(web, 'index.html'))
    // History-mode routes: any unknown GET outside the API gets the app, which routes itself.
    app.setNotFoundHandler((req, reply) => {
      if (req.method !== 'GET' || req.url.startsWith(config.apiPrefix)) return notFoundHandler(req, reply)
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml)
    })
  } else {
    app.setNotFoundHandler(notFoundHandler)
  }
  return app
}
