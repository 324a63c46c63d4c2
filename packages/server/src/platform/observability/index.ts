import type { FastifyInstance } from 'fastify'
import { installHealth } from './health'
import { type AppMetrics, installMetrics } from './metrics'

export { countedRows, countImported, countRows } from './metrics'

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus registry and its instruments (platform/observability/metrics.ts); null when no METRICS_TOKEN or METRICS_PORT lets anyone read them. */
    metrics: AppMetrics | null
  }
}

/** Health probes and Prometheus metrics, at the root of the server (not under API_PREFIX). */
export async function installObservability(app: FastifyInstance): Promise<void> {
  await installHealth(app)
  app.decorate('metrics', await installMetrics(app))
}
