#!/usr/bin/env -S npx tsx
/**
 * `npm run sim -- --devices N`: N simulated bike IoT modules against a running Velo Admin. They
 * register (or reuse their stored secrets), connect, report presence, status with SIM usage,
 * telemetry and heartbeats, answer commands and apply configuration until Ctrl-C.
 */
import { readFileSync, realpathSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { SN_PATTERN } from '@velo/shared'
import { Fleet, FleetAbort, type FleetEvent, type FleetStats, Registrar, snFor } from './fleet'
import type { DeviceBehaviour } from './device'
import { demoBehaviour, hashUnit } from './profile'
import { SecretStore } from './secrets'

export const USAGE = `Usage: npm run sim -- [options]          (or: npx tsx packages/device-sim/src/cli.ts [options])

Simulated bike IoT modules for Velo Admin: they register with the model's registration key, connect
to the MQTT broker, report presence, status (with SIM usage), telemetry and heartbeats, and answer
commands until Ctrl-C (then they say goodbye: retained offline).

  --devices N          how many devices (default 10)
  --api URL            the server's API (default http://localhost:8080/api)
  --product ID         the IoT model's product id (default VELO-4G)
  --key KEY            the model's registration key (or env SIM_KEY; required)
  --broker URL         mqtt://host:port (default: where the server says, asked at each run, on the API's host)
  --prefix PREFIX      SN prefix (default VL): SNs are PREFIX + 6 digits, VL000001, …
  --start N            number of the first SN (default 1)
  --latency MS         milliseconds from receiving a command to its final reply (default 0)
  --failure-rate R     share of commands answered "failed", 0..1 (default 0)
  --silent NAMES       commands never answered, comma-separated (to see timeouts)
  --telemetry SECONDS  telemetry interval, 0 = only on connect (default 10)
  --heartbeat SECONDS  heartbeat interval, 0 = none (default 60)
  --status SECONDS     status with SIM usage interval, 0 = only on connect and changes (default 300)
  --activated SHARE    share of devices whose owner activated them, 0..1 (default 0.5)
  --concurrency N      devices registering/connecting at the same time (default 200)
  --keepalive SECONDS  MQTT keepalive (default 60)
  --ota-speed BYTES    upgrade download speed, bytes per second, 0 = as fast as blocks come (default 0)
  --ota-fail-rate R    share of devices whose upgrades fail to install, 0..1 (default 0)
  --ota-fail-code CODE the code they fail with (default E_FLASH_WRITE)
  --ota-http           download upgrades through the offer's HTTPS link (byte ranges), not MQTT blocks
  --ota-self-test-fail-rate R
                       share of devices whose self-test fails after the reboot: they roll back (E_SELF_TEST), 0..1 (default 0)
  --ota-no-commit-rate R
                       share of devices whose self-test hangs: they roll back by themselves at the offer's
                       commit deadline (E_COMMIT_TIMEOUT), 0..1 (default 0)
  --ota-bad-signature-rate R
                       share of devices that damage each offer's manifest signature before checking it:
                       their upgrades fail with E_SIGNATURE, nothing downloaded, 0..1 (default 0)
  --riding SHARE       share of devices being ridden, which refuse upgrades, 0..1 (default 0)
  --faults NAMES       protocol deviations every device makes, comma-separated, to see the conformance kit
                       (npm run conformance) fail the clause each breaks: unknown-command-succeeds,
                       config-out-of-range, reboot-silently, ota-ignore-crc, ota-no-resume,
                       ota-ignore-signature, ota-ignore-abort (no heartbeat: --heartbeat 0)
  --secrets FILE       kept registrations, reused by the next run (default .device-sim/secrets.json)
  -h, --help           this text

The registration key of the demo model VELO-4G is printed at the server's first start
("Demo IoT model VELO-4G registration key: …") and shown to admins under IoT › IoT models.
Example: npm run sim -- --devices 50 --key "$SIM_KEY" --latency 300 --failure-rate 0.05`

export class UsageError extends Error {
  override name = 'UsageError'
}

export interface SimOptions {
  devices: number
  api: string
  product: string
  key: string
  broker?: string
  prefix: string
  start: number
  latencyMs: number
  failureRate: number
  silent: string[]
  telemetrySeconds: number
  heartbeatSeconds: number
  statusSeconds: number
  activated: number
  concurrency: number
  keepalive: number
  secrets: string
  otaBytesPerSecond: number
  otaFailRate: number
  otaFailCode: string
  otaHttp: boolean
  otaSelfTestFailRate: number
  otaNoCommitRate: number
  otaBadSignatureRate: number
  riding: number
  faults: FaultName[]
}

/** The conformance kit's faults (docs/iot-protocol.md › Checking a device), by their --faults name. */
export const FAULTS = {
  'unknown-command-succeeds': { unknownCommandsSucceed: true },
  'config-out-of-range': { acceptOutOfRangeConfig: true },
  'reboot-silently': { rebootSilently: true },
  'ota-ignore-crc': { otaIgnoreCrc: true },
  'ota-no-resume': { otaNoResume: true },
  'ota-ignore-signature': { otaIgnoreSignature: true },
  'ota-ignore-abort': { otaIgnoreAbort: true },
} as const satisfies Record<string, Partial<DeviceBehaviour>>
export type FaultName = keyof typeof FAULTS
const FAULT_NAMES = Object.keys(FAULTS) as FaultName[]

const OPTIONS = {
  devices: { type: 'string' },
  api: { type: 'string' },
  product: { type: 'string' },
  key: { type: 'string' },
  broker: { type: 'string' },
  prefix: { type: 'string' },
  start: { type: 'string' },
  latency: { type: 'string' },
  'failure-rate': { type: 'string' },
  silent: { type: 'string' },
  telemetry: { type: 'string' },
  heartbeat: { type: 'string' },
  status: { type: 'string' },
  activated: { type: 'string' },
  concurrency: { type: 'string' },
  keepalive: { type: 'string' },
  secrets: { type: 'string' },
  'ota-speed': { type: 'string' },
  'ota-fail-rate': { type: 'string' },
  'ota-fail-code': { type: 'string' },
  'ota-http': { type: 'boolean' },
  'ota-self-test-fail-rate': { type: 'string' },
  'ota-no-commit-rate': { type: 'string' },
  'ota-bad-signature-rate': { type: 'string' },
  riding: { type: 'string' },
  faults: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/**
 * The command line → options, validated (pure: tests call it). Throws UsageError with a one-line
 * message. `cwd` resolves a relative --secrets (npm runs scripts in the package folder, so the
 * caller passes the folder the user typed the command in, INIT_CWD).
 */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}, cwd = '.'): { help: true } | { help: false; options: SimOptions } {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: false; strict: true }>>['values']
  try {
    values = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }).values
  } catch (err) {
    throw new UsageError(`${(err as Error).message.split('\n')[0]} (see --help)`)
  }
  if (values.help) return { help: true }

  const number = (name: keyof typeof OPTIONS, fallback: number, o: { min: number; max: number; integer?: boolean }) => {
    const raw = values[name]
    if (raw === undefined) return fallback
    const text = String(raw).trim().replace(/_/g, '')
    const n = text === '' ? NaN : Number(text)
    if (!Number.isFinite(n) || (o.integer && !Number.isInteger(n)) || n < o.min || n > o.max) {
      throw new UsageError(`--${name} must be ${o.integer ? 'a whole number' : 'a number'} from ${o.min} to ${o.max}, not ${JSON.stringify(raw)}`)
    }
    return n
  }
  const url = (name: 'api' | 'broker', raw: string, protocols: RegExp, example: string) => {
    let parsed: URL
    try {
      parsed = new URL(raw)
    } catch {
      throw new UsageError(`--${name} must be a URL like ${example}, not ${JSON.stringify(raw)}`)
    }
    if (!protocols.test(parsed.protocol)) throw new UsageError(`--${name} must be a URL like ${example}, not ${JSON.stringify(raw)}`)
    return raw.replace(/\/+$/, '')
  }

  const devices = number('devices', 10, { min: 1, max: 100_000, integer: true })
  const start = number('start', 1, { min: 0, max: 999_999_999, integer: true })
  const prefix = values.prefix ?? 'VL'
  if (!/^[A-Z0-9]{1,8}$/.test(prefix)) throw new UsageError(`--prefix must be 1 to 8 upper-case letters or digits (the model's SN prefix), not ${JSON.stringify(prefix)}`)
  const last = snFor(prefix, start + devices - 1)
  if (!SN_PATTERN.test(snFor(prefix, start)) || !SN_PATTERN.test(last)) throw new UsageError(`SNs from ${snFor(prefix, start)} to ${last} are not valid SNs (4 to 32 upper-case letters or digits)`)

  const key = (values.key ?? env.SIM_KEY ?? '').trim()
  if (!key) {
    throw new UsageError(
      "The model's registration key is missing: pass --key KEY or set SIM_KEY. The demo model's key is printed at the server's first start " +
        '("Demo IoT model VELO-4G registration key: …") and shown to admins under IoT › IoT models.',
    )
  }
  const product = (values.product ?? 'VELO-4G').trim()
  if (!/^[\w.:-]{1,64}$/.test(product)) throw new UsageError(`--product must be a product id like VELO-4G, not ${JSON.stringify(values.product)}`)

  const silent = (values.silent ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const faults = (values.faults ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknownFault = faults.find((f) => !(FAULT_NAMES as string[]).includes(f))
  if (unknownFault) throw new UsageError(`--faults: ${unknownFault} is none of ${FAULT_NAMES.join(', ')}`)
  const secrets = values.secrets ?? '.device-sim/secrets.json'
  const otaFailCode = (values['ota-fail-code'] ?? 'E_FLASH_WRITE').trim()
  if (!/^[\w.-]{1,32}$/.test(otaFailCode)) throw new UsageError(`--ota-fail-code must be 1 to 32 letters, digits, _ . or -, not ${JSON.stringify(values['ota-fail-code'])}`)
  return {
    help: false,
    options: {
      devices,
      api: url('api', values.api ?? 'http://localhost:8080/api', /^https?:$/, 'http://localhost:8080/api'),
      product,
      key,
      ...(values.broker !== undefined ? { broker: url('broker', values.broker, /^(mqtts?|tcp|ssl|wss?):$/, 'mqtt://127.0.0.1:1883') } : {}),
      prefix,
      start,
      latencyMs: number('latency', 0, { min: 0, max: 600_000, integer: true }),
      failureRate: number('failure-rate', 0, { min: 0, max: 1 }),
      silent,
      telemetrySeconds: number('telemetry', 10, { min: 0, max: 86_400 }),
      heartbeatSeconds: number('heartbeat', 60, { min: 0, max: 86_400 }),
      statusSeconds: number('status', 300, { min: 0, max: 86_400 }),
      activated: number('activated', 0.5, { min: 0, max: 1 }),
      concurrency: number('concurrency', 200, { min: 1, max: 5000, integer: true }),
      keepalive: number('keepalive', 60, { min: 5, max: 3600, integer: true }),
      secrets: isAbsolute(secrets) || values.secrets === undefined ? resolve(secrets) : resolve(cwd, secrets),
      otaBytesPerSecond: number('ota-speed', 0, { min: 0, max: 1_000_000_000, integer: true }),
      otaFailRate: number('ota-fail-rate', 0, { min: 0, max: 1 }),
      otaFailCode,
      otaHttp: values['ota-http'] ?? false,
      otaSelfTestFailRate: number('ota-self-test-fail-rate', 0, { min: 0, max: 1 }),
      otaNoCommitRate: number('ota-no-commit-rate', 0, { min: 0, max: 1 }),
      otaBadSignatureRate: number('ota-bad-signature-rate', 0, { min: 0, max: 1 }),
      riding: number('riding', 0, { min: 0, max: 1 }),
      faults: faults as FaultName[],
    },
  }
}

/** The soft limit of open files (Linux), or null when unknown: each device is one socket. */
function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

/** A device's upgrade behaviour: which ones fail or ride is derived from the SN, so a rerun picks the same bikes. */
function otaBehaviour(sn: string, o: SimOptions): Partial<DeviceBehaviour> {
  return {
    otaBytesPerSecond: o.otaBytesPerSecond,
    otaInstallFailCode: hashUnit(sn, 101) < o.otaFailRate ? o.otaFailCode : '',
    otaUseHttp: o.otaHttp,
    otaSelfTestFail: hashUnit(sn, 103) < o.otaSelfTestFailRate,
    otaNeverCommit: hashUnit(sn, 104) < o.otaNoCommitRate,
    otaBadSignature: hashUnit(sn, 105) < o.otaBadSignatureRate,
    // A module registered before signed images (no keys stored) asks the server for its key set.
    otaKeysUrl: `${o.api}/iot/ota-keys`,
    httpOrigin: new URL(o.api).origin,
    riding: hashUnit(sn, 102) < o.riding,
  }
}

const time = () => new Date().toTimeString().slice(0, 8)
const out = (line: string) => process.stdout.write(`${line}\n`)

function statusLine(s: FleetStats): string {
  const failed = s.commandsFailed ? ` (${s.commandsFailed} failed)` : ''
  const problems = [s.failed ? `${s.failed} could not start` : '', s.drops ? `${s.drops} connections lost` : '', s.refused ? `${s.refused} now refused by the broker` : '']
    .filter(Boolean)
    .join(', ')
  return `${time()} connected ${s.connected}/${s.total} · commands ${s.commandsReceived} received, ${s.commandsAnswered} answered${failed}${problems ? ` · ${problems}` : ''}`
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let parsed: ReturnType<typeof parseCli>
  try {
    parsed = parseCli(argv, process.env, process.env.INIT_CWD ?? process.cwd())
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`velo-sim: ${err.message}\n`)
      return 2
    }
    throw err
  }
  if (parsed.help) {
    out(USAGE)
    return 0
  }
  const o = parsed.options
  const limit = openFileLimit()
  if (limit !== null && o.devices + 50 > limit) {
    process.stderr.write(`velo-sim: ${o.devices} devices need ${o.devices} sockets but this shell allows ${limit} open files: raise it (ulimit -n ${o.devices + 1000}) or run fewer\n`)
    return 2
  }

  let store: SecretStore
  try {
    store = new SecretStore(o.secrets, `${o.api} ${o.product}`)
  } catch (err) {
    process.stderr.write(`velo-sim: ${(err as Error).message}\n`)
    return 2
  }
  const registrar = new Registrar({ api: o.api, productId: o.product, key: o.key, store, ...(o.broker ? { broker: o.broker } : {}) })
  let connected = 0
  let failuresShown = 0
  const firstSn = snFor(o.prefix, o.start)
  const lastSn = snFor(o.prefix, o.start + o.devices - 1)
  out(`${time()} ${o.devices} devices ${firstSn}${o.devices > 1 ? `…${lastSn}` : ''} of ${o.product} against ${o.api} (secrets in ${o.secrets})`)

  const onEvent = (e: FleetEvent) => {
    if (e.type === 'connected') connected++
    if (e.type === 'rateLimited') out(`${time()} registration is rate limited by the server: waiting ${Math.ceil(e.waitMs / 1000)} s`)
    if (e.type === 'failed' && failuresShown < 10) {
      failuresShown++
      out(`${time()} ${e.sn}: ${e.stage} failed: ${e.reason}`)
    }
  }
  registrar.onRateLimited = (waitMs) => onEvent({ type: 'rateLimited', waitMs })
  const fleet = new Fleet({
    count: o.devices,
    prefix: o.prefix,
    start: o.start,
    credentials: registrar,
    concurrency: o.concurrency,
    keepalive: o.keepalive,
    behaviour: (sn) => ({
      ...demoBehaviour(sn, { activated: o.activated }),
      replyLatencyMs: o.latencyMs,
      failureRate: o.failureRate,
      silentCommands: o.silent,
      telemetrySeconds: o.telemetrySeconds,
      heartbeatSeconds: o.heartbeatSeconds,
      statusSeconds: o.statusSeconds,
      ...otaBehaviour(sn, o),
      ...Object.assign({}, ...o.faults.map((f) => FAULTS[f])),
    }),
    onEvent,
  })

  // Ctrl-C: a clean goodbye from every device; a second Ctrl-C does not wait for it.
  let closing: Promise<void> | null = null
  const close = (code: number) => {
    if (closing) {
      process.stderr.write('velo-sim: stopped without waiting for the goodbyes\n')
      store.save()
      process.exit(130)
    }
    out(`${time()} disconnecting ${fleet.devices.length} devices (retained offline)…`)
    closing = fleet.closeAll().then(() => {
      // Keys learnt during the run (a key update, or a first fetch) are the ones trusted next time.
      for (const d of fleet.devices) if (d.behaviour.otaKeys.length) store.setOtaKeys(d.sn, d.behaviour.otaKeys)
      store.save()
      out(`${time()} done`)
      process.exit(code)
    })
  }
  process.on('SIGINT', () => close(0))
  process.on('SIGTERM', () => close(0))

  // Progress while starting: once a second, when something changed.
  let shown = ''
  const progress = setInterval(() => {
    const s = fleet.stats()
    const line = `${time()} registered ${s.registered}, connected ${connected}/${o.devices}${s.failed ? `, failed ${s.failed}` : ''}`
    if (line.slice(9) !== shown) out(line)
    shown = line.slice(9)
    store.save()
  }, 1000)
  const started = performance.now()
  try {
    await fleet.start()
  } catch (err) {
    clearInterval(progress)
    store.save()
    if (err instanceof FleetAbort) {
      process.stderr.write(`velo-sim: ${err.message}\n`)
      await fleet.closeAll()
      return 1
    }
    throw err
  }
  clearInterval(progress)
  store.save()
  const s = fleet.stats()
  out(`${time()} ${s.started} of ${o.devices} devices connected in ${((performance.now() - started) / 1000).toFixed(1)} s (${s.registered} registered now, ${s.started - s.registered} with stored secrets)`)
  if (s.failures.size) {
    out(`${time()} ${s.failed} could not start:`)
    for (const [reason, n] of s.failures) out(`  ${n} × ${reason}`)
  }
  if (s.started === 0) {
    await fleet.closeAll()
    return 1
  }
  out(`${time()} watch them in the console: IoT › IoT list (live states; select rows to send commands), IoT › IoT command test, IoT › Message-queue debugging; Ctrl-C to stop`)
  setInterval(() => {
    if (!closing) out(statusLine(fleet.stats()))
  }, 10_000)
  return new Promise<number>(() => {}) // runs until Ctrl-C
}

/** Started as a program (tsx src/cli.ts, the velo-sim bin), not imported by a test. */
function isEntry(): boolean {
  try {
    return !!process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url
  } catch {
    return false
  }
}

if (isEntry()) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`velo-sim: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      process.exit(1)
    },
  )
}
