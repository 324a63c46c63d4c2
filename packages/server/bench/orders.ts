/**
 * Frame-number generation benchmark (part of `npm run bench`; alone with BENCH_ONLY=orders). For each
 * database it starts the bundled server on a fresh database, adds a bike model and an order of
 * BENCH_FRAME_NUMBERS (100,000), and generates that many numbers with the order's Generate action
 * (a job: POST /order/deviceOrder/{id}/action/generate), polling the job. It reports
 *
 *  - the seconds from the request to the job's success, and the job's own run time;
 *  - the server's peak resident memory over it (the numbers are made batch by batch, never all held);
 *  - the same rows written bare: the INSERTs of the generation (1,000 numbers a transaction, 500 a
 *    statement, after the serial reservation's UPDATE … RETURNING) run from this process on the same
 *    database, for another order: what the job adds to the database's own work;
 *  - then Print labels for 10,000 of them (the PDF job), seconds and peak memory.
 */
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { type Envelope, framePrefix, frameNumberOf, type JobInfo, orderEntities } from '@velo/shared'
import { sql } from 'kysely'
import { createDatabase, type Db, type DynamicDb, dynamicDb } from '../src/db/database'
import { fmt, log } from './format'
import { type Line, message, results, scratch, signIn, type Target } from './run'
import { ServerProcess } from './server'

const MB = 1024 * 1024
const mb = (bytes: number) => `${fmt(bytes / MB, 0)} MB`
const GIVE_UP_MS = 30 * 60_000

export interface OrdersBench {
  numbers: number
  labels: number
}

async function call<T = unknown>(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = (await res.json()) as Envelope<T>
  if (answer.code !== 200) throw new Error(`${method} ${path} answered ${answer.code}: ${answer.msg}`)
  return answer.data
}

/** Starts a job action and waits for it: seconds as the client saw them, the job's own, and the server's peak RSS. */
async function runJob(base: string, path: string, headers: Record<string, string>, body: unknown, server: ServerProcess) {
  const watch = server.watchMemory()
  const started = performance.now()
  const { jobId } = await call<{ jobId: number }>(base, 'POST', path, headers, body)
  for (;;) {
    await sleep(100)
    const job = await call<JobInfo>(base, 'GET', `/monitor/job/${jobId}`, headers)
    if (job.state === 'succeeded') {
      return { seconds: (performance.now() - started) / 1000, serverSeconds: (Date.parse(job.finishTime!) - Date.parse(job.startTime!)) / 1000, peak: watch.stop() }
    }
    if (job.state === 'failed' || job.state === 'cancelled') throw new Error(`job ${jobId} ${job.state}: ${job.error}`)
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`job ${jobId} still ${job.state} after ${GIVE_UP_MS / 60_000} minutes`)
  }
}

/** The generation's statements run bare: reservation, then the INSERTs, 1,000 numbers a transaction. */
async function bareInserts(db: DynamicDb, orderId: number, count: number) {
  const template = { brandCode: 'VL', manufacturerCode: 'B', modelYear: 2026, specCode: 'BARE', repairCode: '', serialDigits: 6, checkCharacter: true }
  const prefix = framePrefix(template)
  const started = performance.now()
  await db.insertInto('ordFrameSeries').values({ prefix, lastSerial: 0 }).onConflict((oc) => oc.column('prefix').doNothing()).execute()
  for (let done = 0; done < count; done += 1000) {
    const size = Math.min(1000, count - done)
    await db.transaction().execute(async (tx) => {
      const taken = await tx.updateTable('ordFrameSeries').set({ lastSerial: sql`last_serial + ${size}` }).where('prefix', '=', prefix).returning('lastSerial').executeTakeFirstOrThrow()
      const first = Number(taken.lastSerial) - size + 1
      const now = new Date().toISOString()
      const rows = Array.from({ length: size }, (_, i) => ({
        orderId,
        frameNumber: frameNumberOf(template, first + i, prefix),
        serial: first + i,
        numberType: 'regular',
        status: 'generated',
        reason: '',
        createBy: 'bench',
        createTime: now,
        remark: '',
      }))
      for (let i = 0; i < rows.length; i += 500) await tx.insertInto(orderEntities.frameNumber.table).values(rows.slice(i, i + 500)).execute()
      await tx.updateTable(orderEntities.deviceOrder.table).set({ numbersGenerated: sql`numbers_generated + ${size}` }).where('orderId', '=', orderId).execute()
    })
  }
  return (performance.now() - started) / 1000
}

export async function runOrders(target: Target, bench: OrdersBench, entry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  let db: Db | undefined
  const { dir, database, cleanup } = await scratch(target, 'orders', async () => {
    await server?.stop()
    await db?.destroy()
  })
  const n = fmt(bench.numbers)
  try {
    server = await ServerProcess.start(entry, { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files') })
    const base = `${server.baseUrl}/api`
    const headers = { authorization: await signIn(base), currentlanguage: 'en_US' }
    const model = await call<{ modelId: number }>(base, 'POST', '/bike/modelSpec', headers, { category: 'city', name: 'Bench', code: 'BENCH' })
    const order = (specCode: string, manufacturerCode: string) =>
      call<{ orderId: number }>(base, 'POST', '/order/deviceOrder', headers, {
        orderNo: `PO-BENCH-${specCode}`, modelId: model.modelId, quantity: bench.numbers, salesRegion: 'EU', deliveryDate: '2026-12-31', purchasingEntity: 'Velo',
        tpNumber: 'TP-1', frameSupplier: 'Frames Ltd', brandCode: 'VL', manufacturerCode, modelYear: 2026, specCode,
      })
    const generated = await order('MET', 'A')

    log(`${target.name}: generating ${n} frame numbers`)
    const gen = await runJob(base, `/order/deviceOrder/${generated.orderId}/action/generate`, headers, { count: bench.numbers }, server)
    add(`generate ${n} frame numbers (one order, a job)`, `${fmt(gen.seconds, 1)} s (${fmt(bench.numbers / gen.serverSeconds, 0)} numbers/s running)`)
    add(`generate ${n}: server peak RSS`, mb(gen.peak))

    log(`${target.name}: the same inserts bare`)
    const bare = await order('BARE', 'B')
    db = createDatabase(database.config).db
    const bareSeconds = await bareInserts(dynamicDb(db), bare.orderId, bench.numbers)
    add(`the same ${n} numbers' SQL bare (1 connection)`, `${fmt(bareSeconds, 1)} s (job / bare ${fmt(gen.serverSeconds / bareSeconds, 2)})`)

    log(`${target.name}: printing ${fmt(bench.labels)} labels`)
    const labels = await order('LBL', 'C')
    await runJob(base, `/order/deviceOrder/${labels.orderId}/action/generate`, headers, { count: bench.labels }, server)
    const print = await runJob(base, `/order/deviceOrder/${labels.orderId}/action/printLabels`, headers, { which: 'unprinted' }, server)
    add(`print ${fmt(bench.labels)} labels (PDF job)`, `${fmt(print.seconds, 1)} s, server peak RSS ${mb(print.peak)}`)
  } catch (err) {
    add(`generate ${n} frame numbers`, `failed: ${message(err, server)}`, { pass: false })
    log(`${target.name} orders failed: ${err instanceof Error ? err.stack : String(err)}`)
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
