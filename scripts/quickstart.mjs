// npm run quickstart [-- --force]  /  npm run quickstart:demo [-- --force]
//
// Checks, installs, builds, (fills the demo data and) starts the server, saying what each step does
// and how long it usually takes. Plain Node without dependencies: it runs before anything is
// installed. What a repeat run can skip, it skips: the install when package-lock.json is the one
// last installed, the build when no source changed since the last build. Whatever can refuse (the
// port, the demo's check of the database) is asked before the minutes of install and build.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { spawn } from 'node:child_process'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: {
    demo: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    'no-start': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
  strict: true,
})
const command = args.demo ? 'npm run quickstart:demo' : 'npm run quickstart'
if (args.help) {
  console.log(`usage: ${command} [-- --force]
  --force     (with the demo) replace a database holding data the demo did not write
  --no-start  stop after the last step before starting the server
PORT and HOST choose where the server listens (default 8080 on every interface).`)
  process.exit(0)
}

/** Where a repeat run remembers what it installed and built (inside node_modules: it goes with them). */
const STAMPS = join(ROOT, 'node_modules', '.velo-quickstart')
const steps = []
const started = Date.now()

function say(line) {
  console.log(`\x1b[1m›\x1b[0m ${line}`)
}
function fail(line, code = 1) {
  console.error(`\n\x1b[31m✖\x1b[0m ${line}`)
  process.exit(code)
}
const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

/** Runs a command with its output shown; a line every 20 s says it is still going on a long step. */
function run(title, usually, cmd, cmdArgs, { env } = {}) {
  say(`${title} (usually ${usually})`)
  const began = Date.now()
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } })
    const beat = setInterval(() => console.log(`  … ${title.toLowerCase()}: ${seconds(Date.now() - began)}`), 20_000)
    child.on('exit', (code, signal) => {
      clearInterval(beat)
      steps.push([title, Date.now() - began])
      resolve(signal ? 1 : (code ?? 1))
    })
  })
}

function stamp(name) {
  try {
    return readFileSync(join(STAMPS, name), 'utf8')
  } catch {
    return null
  }
}
function keepStamp(name, value) {
  mkdirSync(STAMPS, { recursive: true })
  writeFileSync(join(STAMPS, name), value)
}

const sha = (data) => createHash('sha256').update(data).digest('hex')

/** The sources a build reads, hashed by content (a fresh checkout changes every file's time, not its bytes). */
function sourcesHash() {
  const hash = createHash('sha256')
  const skip = new Set(['node_modules', 'dist', 'data', 'e2e', 'test', 'coverage', '.device-sim'])
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (skip.has(entry.name) || entry.name.startsWith('.')) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (!/\.test\.tsx?$/.test(entry.name)) hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path)).update('\0')
    }
  }
  for (const pkg of ['shared', 'server', 'web']) walk(join(ROOT, 'packages', pkg))
  hash.update(readFileSync(join(ROOT, 'package-lock.json')))
  return hash.digest('hex')
}

/** Whether host:port can be listened on now (the server's own check comes only after install and build). */
function portFree(port, host) {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', (e) => resolve(e.code === 'EADDRINUSE' ? false : true))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}

// ---- 1. What can refuse, first -------------------------------------------------------------------

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19) || (major === 22 && minor < 12)) fail(`Node ${process.versions.node} is too old: Node 20.19 or later (22.12+, 24) is needed.`)

const port = Number(process.env.PORT ?? 8080)
const host = process.env.HOST ?? '0.0.0.0'
if (!args['no-start'] && !(await portFree(port, host))) {
  fail(`Port ${port} is taken by another program, so the server could not start there.\n  Pick another with PORT, for example: PORT=8081 ${command}`)
}

const lock = sha(readFileSync(join(ROOT, 'package-lock.json')))
/**
 * Installed from this lock file: the last quick start's install was of it, or npm's record of what
 * it installed is newer than the lock file (`npm ci` or `npm install` by hand since), which a
 * checkout or a pull bringing another lock file would have made older.
 */
function installedFromLock() {
  const record = join(ROOT, 'node_modules', '.package-lock.json')
  if (!existsSync(record)) return false
  return stamp('install') === lock || statSync(record).mtimeMs >= statSync(join(ROOT, 'package-lock.json')).mtimeMs
}
const installed = installedFromLock()

/** The demo's own check of the database (nothing changed); exit code 2 is its refusal. */
async function demoCheck() {
  const code = await run('Checking the database for the demo data', 'a few seconds', 'npm', ['run', '--silent', 'demo', '--', '--check', ...(args.force ? ['--force'] : [])])
  if (code === 2) fail(`The demo data was not filled in, and nothing was installed, built or changed.\n  To replace what the database holds with the demo data: ${command} -- --force\n  To keep it and start the server as it is: npm run quickstart`, 2)
  if (code !== 0) fail('The check of the database failed (above).')
}

if (args.demo && installed) await demoCheck()

// ---- 2. Install, build, demo, start --------------------------------------------------------------

if (installed) {
  say('Dependencies: installed from this package-lock.json already, skipped')
} else if (process.env.QUICKSTART_NO_INSTALL) {
  // The tests of this script run it in the checkout they test: an install would pull node_modules from under them.
  fail('The dependencies would be installed now, and QUICKSTART_NO_INSTALL forbids it.', 3)
} else {
  const code = await run('Installing dependencies with npm ci', '1–4 minutes the first time', 'npm', ['ci', '--no-audit', '--no-fund'])
  if (code !== 0) fail('npm ci failed (above).')
  keepStamp('install', lock)
  // A database that already exists is checked now, still before the build.
  if (args.demo) await demoCheck()
}

const sources = sourcesHash()
const built = existsSync(join(ROOT, 'packages', 'server', 'dist', 'main.js')) && existsSync(join(ROOT, 'packages', 'web', 'dist', 'index.html'))
if (built && stamp('build') === sources) {
  say('Build: no source changed since the last build, skipped')
} else {
  const code = await run('Building the web app and the server', '10–40 seconds', 'npm', ['run', '--silent', 'build'])
  if (code !== 0) fail('The build failed (above).')
  keepStamp('build', sources)
}

if (args.demo) {
  const code = await run('Filling in the demo data', '1–3 minutes', 'npm', ['run', '--silent', 'demo', '--', ...(args.force ? ['--force'] : [])])
  if (code === 2) fail(`The demo data was not filled in.\n  To replace what the database holds: ${command} -- --force`, 2)
  if (code !== 0) fail('The demo data step failed (above).')
}

const total = Date.now() - started
console.log(`\n  ${steps.map(([title, ms]) => `${title.split(' ')[0].toLowerCase()} ${seconds(ms)}`).join(', ') || 'nothing to do'}; ready in ${seconds(total)}\n`)
if (args['no-start']) process.exit(0)

say('Starting the server (Ctrl+C stops it)')
const server = spawn(process.execPath, [join('packages', 'server', 'dist', 'main.js')], { cwd: ROOT, stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)))
