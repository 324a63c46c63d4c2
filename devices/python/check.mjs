#!/usr/bin/env node
// The second device, written from docs/iot-protocol.md alone (velo_device.py, Python with paho-mqtt),
// put through the conformance kit against the built server, as a device maker would: the server
// started with `npm start` on a fresh data folder (embedded database and broker), the device
// registering itself with its model's key, then `npm run conformance -- --sn`. CI runs this
// (.ci/run); it needs `npm run build` first and Debian's python3-paho-mqtt.
//
//   node devices/python/check.mjs            exits with the kit's code: 0 when every clause passed

import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** A port nothing listens on now: a fixed one can be taken (another server, or an outgoing connection's own port). */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
const PORT = Number(process.env.CHECK_PORT ?? (await freePort()))
const MQTT_PORT = process.env.CHECK_PORT ? PORT + 1 : await freePort()
const api = `http://127.0.0.1:${PORT}/api`
const ADMIN_PASSWORD = 'conformance-check-1'
const SN = 'VL9PY00001'
const python = process.env.PYTHON ?? '/usr/bin/python3'
const dataDir = mkdtempSync(join(tmpdir(), 'velo-py-check-'))
const children = []

function start(name, command, args, env = {}) {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let tail = ''
  const keep = (chunk) => {
    tail = (tail + chunk).slice(-20_000)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  children.push({ name, child, output: () => tail })
  return child
}

function stopAll() {
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGTERM')
}

async function call(method, path, { token, body } = {}) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (json.code !== 200) throw new Error(`${method} ${path}: ${json.code} ${json.msg}`)
  return json
}

async function until(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

function run(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: 'inherit' })
    child.on('exit', (code) => resolve(code ?? 1))
  })
}

let code = 1
try {
  start('server', process.execPath, ['packages/server/dist/main.js'], {
    PORT: String(PORT),
    MQTT_PORT: String(MQTT_PORT),
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  })
  await until('the server', async () => (await fetch(`http://127.0.0.1:${PORT}/health/ready`)).ok)
  const token = (await call('POST', '/login', { body: { username: 'admin', password: ADMIN_PASSWORD, code: '', uuid: '' } })).data.token
  const list = async (path, filter) => (await call('POST', path, { token, body: { pageNum: 1, pageSize: 10, ...filter } })).data.rows
  // The heartbeat clause waits up to the interval a device is given at registration: 10 s, not 60.
  const heartbeat = (await list('/system/config/list', { configKey: 'iot.heartbeat.seconds' })).find((r) => r.configKey === 'iot.heartbeat.seconds')
  await call('PUT', '/system/config', { token, body: { ...heartbeat, configValue: '10' } })
  const model = (await list('/iot/model/list', { productId: 'VELO-4G' })).find((m) => m.productId === 'VELO-4G')
  const { registrationKey } = (await call('GET', `/iot/model/${model.modelId}/registrationKey`, { token })).data

  start('device', python, ['devices/python/velo_device.py', '--api', api, '--sn', SN, '--product', 'VELO-4G', '--key', registrationKey, '--state-dir', join(dataDir, 'device')])
  await until(`${SN} online`, async () => ['online', 'activated'].includes((await list('/iot/device/list', { sn: SN })).find((d) => d.sn === SN)?.state))
  console.log(`${SN} (devices/python/velo_device.py) registered and online; the conformance kit:`)
  code = await run(process.execPath, ['--import', 'tsx', 'packages/server/scripts/conformance.ts', '--api', api, '--sn', SN, '--token', token, '--wait', '20'])
} catch (err) {
  console.error(String(err))
} finally {
  stopAll()
  if (code !== 0) for (const { name, output } of children) console.error(`--- ${name}, last output:\n${output()}`)
  await new Promise((r) => setTimeout(r, 500))
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(code)
