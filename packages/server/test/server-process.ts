import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { ADMIN_PASSWORD } from './harness'
import { waitFor } from './iot-helpers'

// The real server in a child process, for the tests that kill it with kill -9 (jobs, OTA campaigns).

const SERVER_DIR = new URL('..', import.meta.url).pathname

/** A TCP port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** src/main.ts through tsx, as `npm run dev` runs it; resolves once it listens. */
export async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<unknown>; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  let gone = false
  void exited.then(() => (gone = true))
  await waitFor(
    () => {
      if (gone) throw new Error(`server exited at start:\n${output}`)
      return output.includes('is running on')
    },
    'the server to listen',
    60_000,
  )
  return { child, exited, output: () => output }
}

/**
 * A child server's environment on a fresh folder: its database, its HTTP port and the known admin
 * password, no captcha, quiet logs, data, files and mail under `dir`; `extra` adds or overrides.
 */
export function serverEnv(dir: string, databaseUrl: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    DATA_DIR: dir,
    STORAGE_DIR: join(dir, 'files'),
    MAIL_DIR: join(dir, 'mail'),
    ...extra,
  }
}

/** Signs in to a child server as admin (no captcha): the token. */
export async function signInAdmin(base: string): Promise<string> {
  const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) })
  return ((await res.json()) as { data: { token: string } }).data.token
}
