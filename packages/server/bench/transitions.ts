import { serviceEntities } from '@velo/shared'
import type { Db } from '../src/db/database'
import { percentile } from './measure'

const { repairOrder } = serviceEntities

/**
 * `count` repair service orders, each moved one step (submit: draft → pending) through its route
 * POST /service/repairOrder/{id}/submit by `connections` keep-alive clients at once: the engine's
 * whole step (scope read, state check, conditional update, due time from the configuration, history
 * row, operation log) per request. The orders are written straight into the table first. Answers the
 * latencies, the throughput, and what the database holds afterwards (every order pending, one history
 * row each), so a fast but wrong run cannot pass.
 */
export async function measureTransitions(base: string, headers: Record<string, string>, db: Db, count: number, connections: number) {
  const now = new Date().toISOString()
  const ids: number[] = []
  for (let i = 0; i < count; i += 500) {
    const rows = Array.from({ length: Math.min(500, count - i) }, (_, k) => ({
      orderNo: `BENCH-${i + k}`,
      status: 'draft',
      serviceType: 'repair',
      contactEmail: 'rider@example.com',
      // No bike: a step reads none of it (an order from before bikes were references has none either).
      bikeId: null,
      firstName: 'Bench',
      lastName: 'Rider',
      issueDescription: 'Benchmark',
      createBy: 'bench',
      createTime: now,
    }))
    const inserted = await db.insertInto('serviceRepairOrder').values(rows).returning('repairOrderId').execute()
    ids.push(...inserted.map((r) => Number(r.repairOrderId)))
  }
  const latencies: number[] = []
  let failed = 0
  let next = 0
  const started = performance.now()
  const client = async () => {
    while (next < ids.length) {
      const id = ids[next++]!
      const t0 = performance.now()
      const res = await fetch(`${base}${repairOrder.path}/${id}/submit`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' })
      await res.arrayBuffer()
      latencies.push(performance.now() - t0)
      if (res.status !== 200) failed++
    }
  }
  await Promise.all(Array.from({ length: connections }, client))
  const seconds = (performance.now() - started) / 1000
  const sorted = Float64Array.from(latencies).sort()
  const pending = await db.selectFrom('serviceRepairOrder').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirstOrThrow()
  const history = await db.selectFrom('sysTransitionLog').select((eb) => eb.fn.countAll<number>().as('n')).where('entity', '=', repairOrder.key).executeTakeFirstOrThrow()
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    perSecond: ids.length / seconds,
    failed,
    consistent: Number(pending.n) === count && Number(history.n) === count,
  }
}
