import type { FastifyInstance } from 'fastify'
import type { Db } from '../../../db/database'
import { AppError, conflict } from '../../../platform/errors'
import type { Services } from '../../../platform/services'
import type { ActionArgs } from '../../../platform/crud/workflow'
import { type ConformanceReport, runConformance } from './plan'

export { CLAUSES, type ClauseReport, type ConformanceReport, PROTOCOL_DOC } from './plan'

/** The report so far, in the job's result: Monitoring › Jobs and GET /monitor/job/:id show it while the run goes on. */
async function keepReport(db: Db, jobId: number, report: ConformanceReport) {
  await db.updateTable('sysJob').set({ result: JSON.stringify(report) }).where('jobId', '=', jobId).where('state', '=', 'running').execute()
}

/** Longer than any run takes (14 clauses of a few waits of at most 300 s each); a run that ends lets go at once. */
const LOCK_SECONDS = 4 * 3600

/**
 * One run per device at a time, across instances: two plans rebooting and dropping one device would
 * fail each other's clauses. A lock whose job no longer runs (its server died) is taken over.
 */
async function lockDevice(services: Services, sn: string, jobId: number): Promise<() => Promise<void>> {
  const key = `iot:conformance:${sn}`
  if (!(await services.kv.setIfAbsent(key, String(jobId), LOCK_SECONDS))) {
    const holder = Number(await services.kv.get(key))
    const job = holder ? await services.db.selectFrom('sysJob').select('state').where('jobId', '=', holder).executeTakeFirst() : undefined
    if (holder !== jobId && (job?.state === 'running' || job?.state === 'queued')) throw conflict('iot.conformance.busy', { sn, jobId: holder })
    await services.kv.set(key, String(jobId), LOCK_SECONDS)
  }
  return async () => {
    if ((await services.kv.get(key)) === String(jobId)) await services.kv.delete(key)
  }
}

/**
 * The IoT device's Conformance check (a job action, iotDevice › actions): runs the kit's plan against
 * the row's device in this server, which holds the broker connection, the command queue and the
 * block server. The report is the job's result; a device that does not pass every clause fails the
 * job with the clauses named, its report kept.
 */
export function conformanceAction(app: FastifyInstance) {
  return async ({ rows, input, auth, signal, progress, lang, jobId, services }: ActionArgs): Promise<ConformanceReport> => {
    const row = rows[0]!
    const device = { deviceId: Number(row.deviceId), sn: String(row.sn), modelId: Number(row.modelId) }
    const waitSeconds = Number(input.waitSeconds ?? 30)
    const unlock = jobId ? await lockDevice(services, device.sn, jobId) : async () => {}
    const report = await runConformance({
      app,
      device,
      waitMs: waitSeconds * 1000,
      signal,
      createBy: auth.userName,
      runId: String(jobId ?? Date.now()),
      lang,
      onClause: async (so, done, total) => {
        progress(done, total)
        if (jobId) await keepReport(services.db, jobId, so)
      },
    }).finally(unlock)
    if (jobId) await keepReport(services.db, jobId, report)
    const short = report.clauses.filter((c) => c.result !== 'passed')
    if (short.length) {
      const clauses = short.map((c) => (c.result === 'skipped' ? `${c.id} (${c.result})` : c.id)).join(', ')
      throw new AppError(422, 'iot.conformance.failed', { failed: short.length, total: report.clauses.length, clauses })
    }
    return report
  }
}
