import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { onCleanup, onExit } from './cleanup'

const SERVER_DIR = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The server bundled as `npm run build` bundles it (build.mjs: one ESM file, npm dependencies
 * external), so its memory is the product's, not a TypeScript loader's (tsx adds ~40 MB). The bundle
 * goes to a temporary folder under this package's node_modules, where the dependencies resolve,
 * and is removed with the returned clean-up.
 */
/** Bundles an entry of the server (default the product's src/main.ts) as `npm run build` does, into a temporary folder. */
export async function buildServer(source = 'src/main.ts', name = 'main'): Promise<{ entry: string; remove: () => Promise<void> }> {
  const pkg = JSON.parse(readFileSync(join(SERVER_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  const dir = mkdtempSync(join(SERVER_DIR, 'node_modules', `.velo-bench-${name}-`))
  const rm = () => rmSync(dir, { recursive: true, force: true })
  const forget = onExit(rm)
  const remove = onCleanup(() => {
    forget()
    rm()
  })
  const entry = join(dir, `${name}.js`)
  await build({
    entryPoints: [join(SERVER_DIR, source)],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@velo/')),
    logLevel: 'warning',
  })
  return { entry, remove }
}

export const ADMIN_PASSWORD = 'bench123!'

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/**
 * The product's own entry (src/main.ts) in a child process, so the figures are the server's alone:
 * its resident memory is read from /proc, and the load generator does not share its event loop.
 */
export class ServerProcess {
  private output: string[] = []
  private exited: Promise<number | null>
  readonly baseUrl: string
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    this.baseUrl = `http://127.0.0.1:${port}`
    // Never outlive the benchmark, even when it crashes.
    const forget = onExit(() => child.kill('SIGKILL'))
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        forget()
        resolve(code)
      }),
    )
    const keep = (chunk: Buffer) => {
      this.output.push(chunk.toString())
      if (this.output.length > 200) this.output.splice(0, 100)
    }
    child.stdout!.on('data', keep)
    child.stderr!.on('data', keep)
  }

  /** Starts the bundle; `port` defaults to a free one (pass the last one's to restart in place). */
  static async start(entry: string, env: Record<string, string>, port?: number): Promise<ServerProcess> {
    port ??= await freePort()
    // BENCH_SERVER_ARGS: extra node flags for the server, e.g. --cpu-prof when looking into a figure.
    const extra = (process.env.BENCH_SERVER_ARGS ?? '').split(/\s+/).filter(Boolean)
    const child = spawn(process.execPath, [...extra, entry], {
      cwd: SERVER_DIR,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        MQTT_PORT: '0',
        ADMIN_PASSWORD,
        CAPTCHA_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        // To compare: SQLITE_READER_THREADS=0 reads on the event loop's thread, as before db/sqlite-readers.ts.
        ...(process.env.SQLITE_READER_THREADS ? { SQLITE_READER_THREADS: process.env.SQLITE_READER_THREADS } : {}),
        // The upload limit the import bomb is sized to (bench/import-bomb.ts reads the same variable).
        ...(process.env.IMPORT_MAX_MB ? { IMPORT_MAX_MB: process.env.IMPORT_MAX_MB } : {}),
        // The run's scratch folder (the one STORAGE_DIR is in) holds what else the server keeps (the OTA
        // signing key, the broker's port), not a data folder beside the bundle in the checkout.
        ...(env.STORAGE_DIR && !env.DATA_DIR ? { DATA_DIR: dirname(env.STORAGE_DIR) } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const server = new ServerProcess(child, port)
    await server.waitReady()
    return server
  }

  get pid(): number {
    return this.child.pid!
  }

  get log(): string {
    return this.output.join('').split('\n').slice(-30).join('\n')
  }

  private async waitReady() {
    const deadline = Date.now() + 120_000
    let exited = false
    void this.exited.then(() => (exited = true))
    while (Date.now() < deadline) {
      if (exited) throw new Error(`server exited at start:\n${this.log}`)
      if (this.output.join('').includes('is running on')) return
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error(`server did not start in 120 s:\n${this.log}`)
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  async stop() {
    if (!this.alive) return
    this.child.kill('SIGTERM')
    // BENCH_STOP_MS: longer, for a server started with --cpu-prof behind a backlog, which writes its profile only once it has drained and exited.
    const timer = setTimeout(() => this.child.kill('SIGKILL'), Number(process.env.BENCH_STOP_MS || 10_000))
    await this.exited
    clearTimeout(timer)
  }

  /** The server's resident memory now (VmRSS), in bytes; null where /proc is missing. */
  rss(): number | null {
    return statusField(this.pid, 'VmRSS')
  }

  /** Watches the server's resident memory over one phase (see MemoryWatch). */
  watchMemory(): MemoryWatch {
    return new MemoryWatch(this.pid)
  }

  /**
   * CPU time the server's process has used so far (user + system, every thread), in milliseconds;
   * null where /proc is missing. Divided by the requests of a phase, it is what each one cost the
   * server, a figure the database's share of the machine does not blur as it does throughput.
   */
  cpuMillis(): number | null {
    try {
      // Fields after the command name (which may hold spaces, so it is skipped by its closing parenthesis).
      const fields = readFileSync(`/proc/${this.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      const ticks = Number(fields[11]) + Number(fields[12])
      return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null
    } catch {
      return null
    }
  }
}

/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : null
  } catch {
    return null
  }
}

/**
 * Peak resident set size of a process over a phase. The kernel's own high-water mark (VmHWM) is reset
 * at the start through /proc/<pid>/clear_refs, so it catches spikes between samples; a 50 ms sampler
 * of VmRSS runs beside it and is the figure where the reset is not allowed.
 */
export class MemoryWatch {
  private sampled = 0
  private readonly timer: NodeJS.Timeout
  readonly kernelPeak: boolean
  readonly startRss: number
  constructor(private readonly pid: number) {
    let reset = false
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5')
      reset = true
    } catch {
      reset = false
    }
    this.kernelPeak = reset
    this.startRss = statusField(pid, 'VmRSS') ?? 0
    this.sampled = this.startRss
    this.timer = setInterval(() => this.sample(), 50)
  }

  private sample() {
    const rss = statusField(this.pid, 'VmRSS')
    if (rss !== null && rss > this.sampled) this.sampled = rss
  }

  /** Bytes at the peak since the watch started. */
  stop(): number {
    this.sample()
    clearInterval(this.timer)
    const hwm = this.kernelPeak ? statusField(this.pid, 'VmHWM') : null
    return Math.max(hwm ?? 0, this.sampled)
  }
}
