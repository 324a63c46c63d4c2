import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import type { JobInfo } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConformanceReport } from '../src/modules/iot/conformance'
import { CLAUSES } from '../src/modules/iot/conformance'
import { limitedUser, useTestApp } from './harness'
import { clearRetained, insertDevice, simulated, waitFor } from './iot-helpers'

// The device conformance kit (docs/iot-protocol.md › Checking a device) against the reference
// device: healthy it passes every clause; each protocol deviation fails the clause that checks it.
// The embedded broker, whatever TEST_MQTT_URL says: two clauses need its power to drop a connection.
// Four checks at once (the fault cases): each is mostly waiting on its own device.
const t = useTestApp({ MQTT_PORT: '0', JOB_CONCURRENCY: '4' })
type App = typeof t
const db = () => t.app.services.db
const devices: SimulatedDevice[] = []
const sns: string[] = []
/** Short waits: every answer of the simulator comes within milliseconds. */
const WAIT_SECONDS = 3

let heartbeatConfigId = 0
beforeAll(async () => {
  // The interval the heartbeat clause holds a device to (the registration answer's heartbeatSeconds), its
  // smallest: a silent device fails after 12 s, and the simulated devices beat every second.
  heartbeatConfigId = (await db().selectFrom('sysConfig').select('configId').where('configKey', '=', 'iot.heartbeat.seconds').executeTakeFirstOrThrow()).configId
  expect((await t.call({ method: 'PUT', url: '/api/system/config', token: t.admin, body: { configId: heartbeatConfigId, configValue: '10' } })).code).toBe(200)
})

afterAll(async () => {
  for (const d of devices) d.kill()
  if (sns.length) await clearRetained(t.app, sns).catch(() => {})
})

/** A simulated device of the app, online, that reconnects by itself as a real module does. */
async function device(options: Partial<DeviceOptions> = {}, on: App = t) {
  const d = await insertDevice(on)
  const sim = simulated(on.app, d, { heartbeatSeconds: 1, otaRetryMs: 300, ...options, mqtt: { reconnectPeriod: 200, ...options.mqtt } })
  devices.push(sim)
  sns.push(d.sn)
  await sim.connect()
  await waitFor(async () => Boolean((await on.app.services.db.selectFrom('iotDevice').select('online').where('deviceId', '=', d.deviceId).executeTakeFirst())?.online), `${d.sn} online`)
  return { ...d, sim }
}

async function finished(jobId: number, token = t.admin, on: App = t) {
  return waitFor(
    async () => {
      const job = (await on.call<JobInfo>({ url: `/api/monitor/job/${jobId}`, token })).data
      return ['succeeded', 'failed', 'cancelled'].includes(job.state) ? job : null
    },
    `job ${jobId}`,
    60_000,
  )
}

/** Starts the Conformance check on a device (the row action) and waits for its job to end. */
async function check(deviceId: number, on: App = t) {
  const res = await on.call<JobInfo>({ method: 'POST', url: `/api/iot/device/${deviceId}/action/conformance`, token: on.admin, body: { waitSeconds: WAIT_SECONDS } })
  expect(res.code, res.msg).toBe(200)
  const job = await finished(res.data.jobId, on.admin, on)
  return { job, report: job.result as ConformanceReport }
}

const notPassed = (report: ConformanceReport) => report.clauses.filter((c) => c.result !== 'passed').map((c) => c.id)

describe('device conformance kit', () => {
  it('passes a healthy reference device on every clause, and the report is the job result', async () => {
    const { deviceId, sn, sim } = await device()
    const { job, report } = await check(deviceId)
    expect(notPassed(report), JSON.stringify(report.clauses.filter((c) => c.result !== 'passed'))).toEqual([])
    expect(job.state).toBe('succeeded')
    expect(report).toMatchObject({ sn, deviceId, broker: 'embedded', passed: true, counts: { passed: CLAUSES.length, failed: 0, skipped: 0 } })
    expect(report.clauses.map((c) => c.id)).toEqual(CLAUSES.map((c) => c.id))
    // Each clause names the section of the protocol page it checks.
    for (const c of report.clauses) expect(c.section.ref).toMatch(/^docs\/iot-protocol\.md#[a-z0-9-]+$/)
    // The device was really put through it: rebooted, and left running the kit's test audio.
    expect(sim.counters.received).toBeGreaterThanOrEqual(5)
    // Its connection dropped three times (last will, reboot, OTA resume): the kit's own connection as its
    // SN with a wrong secret took nothing over.
    expect(sim.counters.drops).toBe(3)
    expect(sim.behaviour.audio.velo_conformance).toBeTruthy()
    // Read back through the API: the jobs list shows it with its progress, the operation log has the request.
    const listed = (await t.call<JobInfo>({ url: `/api/monitor/job/${job.jobId}`, token: t.admin })).data
    expect(listed).toMatchObject({ state: 'succeeded', kind: 'action', done: CLAUSES.length, total: CLAUSES.length })
    const logged = await db().selectFrom('sysOperLog').select(['operUrl', 'status']).where('operUrl', 'like', `%/iot/device/${deviceId}/action/conformance%`).execute()
    expect(logged).toHaveLength(1)
  }, 60_000)

  // Each knob is one deviation of the simulator; the clauses it breaks, and no other.
  const faults: [string, Partial<DeviceOptions>, string[]][] = [
    ['no heartbeat', { heartbeatSeconds: 0 }, ['heartbeat']],
    ['unknown commands answered succeeded', { unknownCommandsSucceed: true }, ['unknownCommand']],
    ['reboot without its offline presence', { rebootSilently: true }, ['reboot']],
    ['out-of-range configuration applied', { acceptOutOfRangeConfig: true }, ['configOutOfRange']],
    ['every command failed', { failureRate: 1 }, ['status', 'telemetry', 'ping', 'reboot']],
    ['a damaged block taken', { otaIgnoreCrc: true }, ['otaDamagedBlock']],
    ['no resume after a drop', { otaNoResume: true }, ['otaResume']],
    ['a bad signature taken', { otaIgnoreSignature: true }, ['otaBadSignature']],
    ['an abort ignored', { otaIgnoreAbort: true }, ['otaAbort']],
    ['every signature damaged', { otaBadSignature: true }, ['otaDamagedBlock', 'otaResume', 'otaAbort']],
    ['riding', { riding: true }, ['otaDamagedBlock', 'otaResume', 'otaAbort']],
  ]
  it.for(faults)('fails exactly the clauses a device breaks: %s', { concurrent: true, timeout: 60_000 }, async ([, knobs, expected], { expect }) => {
    const { deviceId } = await device(knobs)
    const { job, report } = await check(deviceId)
    expect(notPassed(report), JSON.stringify(report.clauses.filter((c) => c.result !== 'passed'))).toEqual(expected)
    expect(report.passed).toBe(false)
    expect(job.state).toBe('failed')
    // The job's message names the clauses; each failed clause says why.
    expect(job.error).toContain(expected.join(', '))
    for (const c of report.clauses.filter((c) => c.result === 'failed')) expect(c.reason).not.toBe('')
  })

  it('stops at once when its job is cancelled, with the report so far', async () => {
    // Silent: the heartbeat clause would wait 12 s for a beat.
    const { deviceId } = await device({ heartbeatSeconds: 0 })
    const res = await t.call<JobInfo>({ method: 'POST', url: `/api/iot/device/${deviceId}/action/conformance`, token: t.admin, body: { waitSeconds: WAIT_SECONDS } })
    const jobId = res.data.jobId
    // The report grows in the job's result while the run goes on.
    await waitFor(async () => ((await t.call<JobInfo>({ url: `/api/monitor/job/${jobId}`, token: t.admin })).data.result as ConformanceReport | null)?.clauses.length === 3, 'three clauses reported', 20_000)
    const asked = Date.now()
    expect((await t.call({ method: 'POST', url: `/api/monitor/job/${jobId}/cancel`, token: t.admin })).code).toBe(200)
    const job = await finished(jobId)
    expect(job.state).toBe('cancelled')
    expect(Date.now() - asked).toBeLessThan(5000)
    expect((job.result as ConformanceReport).clauses.map((c) => c.id)).toEqual(['registration', 'presence', 'lastWill'])
  }, 60_000)

  it('refuses a user without iot:device:conformance (403): no job, nothing sent', async () => {
    const { deviceId, sim } = await device()
    const user = await limitedUser(t, { userName: 'conformancereader', perms: ['iot:device:list', 'iot:device:query'], dataScope: '1' })
    const jobsBefore = await db().selectFrom('sysJob').select('jobId').execute()
    const res = await t.call({ method: 'POST', url: `/api/iot/device/${deviceId}/action/conformance`, token: user.token, body: { waitSeconds: WAIT_SECONDS } })
    expect(res.code).toBe(403)
    expect(await db().selectFrom('sysJob').select('jobId').execute()).toHaveLength(jobsBefore.length)
    expect(sim.counters.received).toBe(0)
    // The right is a button of the IoT list, as the definition's action makes it (seeded for existing databases too).
    expect(await db().selectFrom('sysMenu').select('menuId').where('perms', '=', 'iot:device:conformance').execute()).toHaveLength(1)
  })

  it('names the clause and why in the starter language (zh_CN)', async () => {
    const { deviceId } = await device({ unknownCommandsSucceed: true })
    const res = await t.call<JobInfo>({ method: 'POST', url: `/api/iot/device/${deviceId}/action/conformance`, token: t.admin, body: { waitSeconds: WAIT_SECONDS }, lang: 'zh_CN' })
    expect(res.code, res.msg).toBe(200)
    const job = await finished(res.data.jobId)
    const clause = (job.result as ConformanceReport).clauses.find((c) => c.id === 'unknownCommand')!
    expect(clause).toMatchObject({ result: 'failed', title: '未知指令回复 failed 404', section: { ref: 'docs/iot-protocol.md#command-down' } })
    expect(clause.reason).toContain('failed 404')
  }, 60_000)

  it('npm run conformance: signs in as a staff user, prints the report clause by clause, exits 0 only when all passed', async () => {
    // A user of its own: signing in as admin would end the admin session the other tests use.
    await limitedUser(t, { userName: 'conformancekit', perms: ['iot:device:list', 'iot:device:query', 'iot:device:conformance'], dataScope: '1' })
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' })
    const api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`
    const script = fileURLToPath(new URL('../scripts/conformance.ts', import.meta.url))
    const kit = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', script, '--api', api, '--wait', String(WAIT_SECONDS), ...args], { env: { ...process.env, VELO_USER: '', VELO_PASSWORD: '', VELO_TOKEN: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
        )
      })
    const healthy = await device()
    const ok = await kit(['--sn', healthy.sn], { VELO_USER: 'conformancekit', VELO_PASSWORD: 'secret12' })
    expect(ok.out).toContain(`PASS  unknownCommand`)
    expect(ok.out).toContain('docs/iot-protocol.md#command-down')
    expect(ok.code, ok.out).toBe(0)
    const broken = await device({ acceptOutOfRangeConfig: true })
    const bad = await kit(['--sn', broken.sn], { VELO_USER: 'conformancekit', VELO_PASSWORD: 'secret12' })
    expect(bad.out).toMatch(/FAIL {2}configOutOfRange/)
    expect(bad.code).toBe(1)
    // No default account: without credentials it refuses to start.
    const anonymous = await kit(['--sn', healthy.sn])
    expect(anonymous.code).toBe(2)
    expect(anonymous.out).toContain('VELO_USER')
  }, 120_000)
})

// TEST_MQTT_URL (Mosquitto): no broker the server can tell to drop a device's connection.
describe.runIf(process.env.TEST_MQTT_URL)('device conformance kit on an external broker', () => {
  const ext = useTestApp()

  it('skips the clauses that need the embedded broker, so the run does not pass', async () => {
    const { deviceId } = await device({}, ext)
    const { job, report } = await check(deviceId, ext)
    expect(report.broker).toBe('external')
    const skippedClauses = report.clauses.filter((c) => c.result === 'skipped')
    expect(skippedClauses.map((c) => c.id)).toEqual(['lastWill', 'otaResume'])
    for (const c of skippedClauses) expect(c.reason).toContain('needs the embedded broker')
    // The rest run as on the embedded broker (the wrong secret's refusal is the broker's own configuration).
    expect(report.clauses.filter((c) => c.result === 'failed' && c.id !== 'registration')).toEqual([])
    expect(report.passed).toBe(false)
    expect(job.state).toBe('failed')
    expect(job.error).toContain('lastWill (skipped), otaResume (skipped)')
  }, 60_000)
})
