import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { commandLine, fail } from './cli'

// npm run conformance -- --sn VL000123: the device conformance kit (docs/iot-protocol.md › Checking a
// device). The run happens in the server, which holds the broker connection; this command signs in
// as a staff user, starts the IoT list's Conformance check on the device, follows its job and prints
// the report clause by clause. It exits 0 only when every clause passed.

const usage = `Usage: npm run conformance -- --sn <SN> [options]

Checks one device against the device protocol (docs/iot-protocol.md), through the running server.

  --sn SN             the device under test (required)
  --api URL           the server's API (env VELO_API; default http://localhost:8080/api)
  --user NAME         a staff user holding iot:device:conformance (env VELO_USER)
  --password TEXT     their password (env VELO_PASSWORD; prefer the variable: a flag shows in ps)
  --token TOKEN       a signed-in session's token instead of a user and password (env VELO_TOKEN)
  --wait SECONDS      how long the kit waits for each answer of the device, 1-300 (default 30)
  --lang LANG         en_US or zh_CN: the language of the report (default en_US)
  -h, --help          this text

Sign-in: with the captcha on (sys.account.captchaEnabled, on by default), the command saves the
captcha picture to a file, says where, and asks for its answer on the terminal; without a terminal
(CI) pass --token, or sign in as a user of a server whose captcha staff switched off. A session
this command opens is signed out when it ends; with single sign-on on (sys.account.singleSignOn)
it ends the user's other sessions, so a user signed in to the console passes that session's token
(--token: the console's Admin-Token# cookie) instead.
Exit codes: 0 every clause passed; 1 a clause failed or was skipped, or the run did not finish; 2 usage.`

const { values } = commandLine(usage, {
  options: {
    sn: { type: 'string' },
    api: { type: 'string' },
    user: { type: 'string' },
    password: { type: 'string' },
    token: { type: 'string' },
    wait: { type: 'string' },
    lang: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
})

const sn = values.sn?.trim().toUpperCase()
if (!sn) fail(`--sn is required\n${usage}`, 2)
const api = (values.api ?? process.env.VELO_API ?? 'http://localhost:8080/api').replace(/\/+$/, '')
const wait = Number(values.wait ?? 30)
if (!Number.isInteger(wait) || wait < 1 || wait > 300) fail('--wait must be a whole number of seconds, 1 to 300', 2)
const lang = values.lang ?? 'en_US'
if (lang !== 'en_US' && lang !== 'zh_CN') fail('--lang must be en_US or zh_CN', 2)

interface Envelope<T> {
  code: number
  msg: string
  data: T
}

interface Clause {
  id: string
  title: string
  section: { anchor: string; title: string; ref: string }
  result: 'passed' | 'failed' | 'skipped'
  reason: string
  ms: number
}

interface Job {
  jobId: number
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
  done: number
  total: number | null
  error: string | null
  result: { sn: string; broker: string; passed: boolean; counts: Record<string, number>; clauses: Clause[] } | null
}

let token = values.token ?? process.env.VELO_TOKEN ?? ''
/** The session is this command's own (not a --token's): it signs out when it ends. */
let ownSession = false

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Envelope<T>> {
  let res: Response
  try {
    res = await fetch(`${api}${path}`, {
      method,
      headers: { 'accept-language': lang.replace('_', '-'), ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (err) {
    fail(`Cannot reach ${api}: ${err instanceof Error ? err.message : String(err)}`)
  }
  const answer = (await res.json().catch(() => null)) as Envelope<T> | null
  if (!answer) fail(`${method} ${path}: the server answered ${res.status} without JSON (is ${api} the API's address?)`)
  return answer
}

/** The captcha's answer from the person at the terminal: the picture is an SVG a browser opens. */
async function solveCaptcha(): Promise<{ uuid?: string; code?: string }> {
  const captcha = (await call<{ captchaEnabled: boolean; uuid?: string; img?: string }>('GET', '/common/captcha')).data
  if (!captcha.captchaEnabled || !captcha.uuid || !captcha.img) return {}
  if (!process.stdin.isTTY) fail('Sign-in needs a captcha and there is no terminal to answer it: pass --token (or VELO_TOKEN), a signed-in session of a user holding iot:device:conformance')
  const file = join(mkdtempSync(join(tmpdir(), 'velo-captcha-')), 'captcha.svg')
  writeFileSync(file, Buffer.from(captcha.img.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64'))
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  const code = (await rl.question(`Sign-in captcha: open ${file} and type what it shows: `)).trim()
  rl.close()
  return { uuid: captcha.uuid, code }
}

async function signIn() {
  if (token) return
  const user = values.user ?? process.env.VELO_USER
  const password = values.password ?? process.env.VELO_PASSWORD
  // No default account: the run reboots a device, so it is started by someone who said who they are.
  if (!user || !password) fail(`Sign in: give --user and --password (or VELO_USER and VELO_PASSWORD), or --token (VELO_TOKEN)\n${usage}`, 2)
  const answer = await call<{ token: string }>('POST', '/login', { username: user, password, ...(await solveCaptcha()) })
  if (answer.code !== 200) fail(`Sign-in refused: ${answer.msg}`)
  token = answer.data.token
  ownSession = true
}

/** Ends the command; a session it opened itself is signed out first. */
async function end(code: number, message?: string): Promise<never> {
  if (ownSession) await call('POST', '/logout').catch(() => {})
  if (message) (code === 0 ? console.log : console.error)(message)
  process.exit(code)
}

const mark = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const

function printClause(c: Clause) {
  console.log(`${mark[c.result]}  ${c.id.padEnd(16)} ${c.title}  [${c.section.ref} · ${c.section.title}]`)
  if (c.reason) console.log(`      ${c.reason}`)
}

async function main() {
  await signIn()
  const found = await call<{ rows: { deviceId: number; sn: string }[] }>('POST', '/iot/device/list', { pageNum: 1, pageSize: 50, sn })
  if (found.code !== 200) await end(1, `Cannot list IoT devices: ${found.msg}`)
  const device = found.data.rows.find((r) => r.sn === sn)
  if (!device) return end(1, `No IoT device ${sn} that this user may see`)
  const started = await call<Job>('POST', `/iot/device/${device.deviceId}/action/conformance`, { waitSeconds: wait })
  if (started.code !== 200) await end(1, `The check could not start: ${started.msg}`)
  const jobId = started.data.jobId
  console.log(`Conformance check of ${sn} (job ${jobId}: Monitoring › Jobs) against ${api}\n`)
  // Ctrl-C stops the run in the server too (the job is cancelled), not only this command.
  process.once('SIGINT', () => {
    void call('POST', `/monitor/job/${jobId}/cancel`).finally(() => void end(130, '\nCancelled.'))
  })
  let printed = 0
  for (;;) {
    const answer = await call<Job>('GET', `/monitor/job/${jobId}`)
    if (answer.code !== 200) await end(1, `Cannot follow job ${jobId}: ${answer.msg}`)
    const job = answer.data
    const clauses = job.result?.clauses ?? []
    for (; printed < clauses.length; printed++) printClause(clauses[printed]!)
    if (job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled') {
      const counts = job.result?.counts
      console.log(`\n${counts ? `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (broker: ${job.result!.broker})` : ''}`)
      if (job.state === 'succeeded' && job.result?.passed) await end(0, `${sn} passed every clause.`)
      await end(1, job.error ?? `The run ended ${job.state}.`)
    }
    await new Promise((r) => setTimeout(r, 1000))
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err)))
