/**
 * Configuration push benchmark (the `fleet` part of `npm run bench`; alone with BENCH_ONLY=fleet).
 * For each broker and database, through bench/fleet-harness.ts as the other fleet benches: a fresh server with BENCH_IOT_DEVICES
 * devices written straight into its database, restarted so nothing is cached, every device
 * connected from this process with the simulator's Fleet; then one template is pushed to all of
 * them (the Push action: a job sending setConfig through the command layer) and the time is taken
 * until every push row is acknowledged (the devices answer with the applied values and report
 * their configuration again, which the server compares with the template), with the server's CPU
 * time and peak RSS over the push.
 */
import type { JobInfo } from '@velo/shared'
import { cpuText, fleetBench, type Broker, phase, seconds, sleep } from './fleet-harness'
import { fmt, log } from './format'
import type { IotBench } from './iot'
import { api, type Line, type Target } from './run'

/** Bench SNs: the demo model's prefix VL, then C (apart from bench/iot.ts's VLB and the simulator's VL0…). */
const SN_PREFIX = 'VLC'
const PUSH_TARGET_MS = 30_000

export async function runConfigPush(target: Target, broker: Broker, bench: IotBench, serverEntry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const n = bench.devices
  const setup = { target, broker, serverEntry, prefix: SN_PREFIX, devices: n, concurrency: bench.concurrency, label: 'config', failure: 'config push' }
  return fleetBench(setup, async ({ name, add, notes, server, db, base, headers, connect }) => {
    await connect()
    // Their connect-time configuration reports are written before the push is timed.
    await sleep(2000)

    const tpl = await api<{ configId: number }>(base, '/iot/config', { method: 'POST', headers, body: { name: 'Bench template', fallAngle: 55, vibrationSensitivity: 4, lowBatteryPercent: 15 } })
    if (tpl.code !== 200) throw new Error(`adding the template answered ${tpl.status} ${tpl.msg}`)
    const configId = Number(tpl.data!.configId)

    log(`${name}: pushing the template to ${fmt(n)} devices`)
    const push = phase(server)
    const t0 = push.started
    const res = await api<{ jobId: number }>(base, `/iot/config/${configId}/action/push`, { method: 'POST', headers, body: {} })
    if (res.code !== 200) throw new Error(`the push answered ${res.status} ${res.msg}`)
    const answeredMs = performance.now() - t0
    let counts: Record<string, number> = {}
    let jobDoneMs = NaN
    const until = performance.now() + (bench.timeoutSeconds + 60) * 1000
    while (performance.now() < until) {
      if (Number.isNaN(jobDoneMs)) {
        const job = await api<JobInfo>(base, `/monitor/job/${res.data!.jobId}`, { headers })
        if (job.data?.state === 'failed') throw new Error(`the push job failed: ${job.data.error}`)
        if (job.data?.state === 'succeeded') jobDoneMs = performance.now() - t0
      }
      counts = (await api<Record<string, number>>(base, '/iot/configPush/counts', { method: 'POST', headers, body: { configId } })).data ?? {}
      if ((counts.acknowledged ?? 0) + (counts.refused ?? 0) + (counts.timedOut ?? 0) + (counts.expired ?? 0) >= n) break
      await sleep(100)
    }
    const allMs = performance.now() - t0
    const pushPhase = push.stop()
    // The job ends after the last acknowledgement can come in (it recomputes the devices' drift last).
    while (Number.isNaN(jobDoneMs) && performance.now() < until) {
      const job = await api<JobInfo>(base, `/monitor/job/${res.data!.jobId}`, { headers })
      if (job.data?.state === 'succeeded' || job.data?.state === 'failed') jobDoneMs = performance.now() - t0
      else await sleep(100)
    }
    const acknowledged = counts.acknowledged ?? 0
    add(`config push to ${fmt(n)}: action answered (job queued)`, seconds(answeredMs))
    add(`config push to ${fmt(n)}: job done (commands sent, push rows written)`, Number.isNaN(jobDoneMs) ? 'not done' : seconds(jobDoneMs))
    add(`config push to ${fmt(n)}: every acknowledgement in`, acknowledged === n ? seconds(allMs) : `${fmt(acknowledged)} of ${fmt(n)} after ${seconds(allMs)}`, {
      target: `< ${PUSH_TARGET_MS / 1000} s`,
      pass: acknowledged === n && allMs < PUSH_TARGET_MS,
    })
    add('config push outcome (push rows)', Object.entries(counts).filter(([, c]) => c > 0).map(([s, c]) => `${fmt(c)} ${s}`).join(', ') || 'none')
    add('config push: server', cpuText(pushPhase))
    // Where the time went, from the rows: the job's start and end, the last command sent and answered.
    const job = await db.selectFrom('sysJob').select(['createTime', 'startTime', 'finishTime']).where('jobId', '=', Number(res.data!.jobId)).executeTakeFirst()
    const cmd = await db
      .selectFrom('iotCommand')
      .select((eb) => [eb.fn.max('sentAt').as('lastSent'), eb.fn.max('repliedAt').as('lastReply'), eb.fn.min('createTime').as('firstCreated')])
      .where('command', '=', 'setConfig')
      .executeTakeFirstOrThrow()
    const since = (at: unknown) => (at ? seconds(Date.parse(String(at)) - Date.parse(String(job?.createTime ?? cmd.firstCreated))) : 'n/a')
    notes.push(
      `${name}, config push stages from the job's creation: job started ${since(job?.startTime)}, finished ${since(job?.finishTime)}; ` +
        `last setConfig sent ${since(cmd.lastSent)}, last device reply ${since(cmd.lastReply)}.`,
    )
    const drift = await db.selectFrom('iotConfigDrift' as never).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    add('config push: drift rows once all acknowledged', fmt(Number((drift as { n: number }).n)))
  })
}
