import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
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
