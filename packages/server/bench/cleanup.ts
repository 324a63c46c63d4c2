/** Clean-ups that must run however the benchmark ends: servers, temporary databases and files. */
const pending = new Set<() => Promise<void> | void>()
let exiting = false

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (exiting) return
    exiting = true
    process.stderr.write(`[bench] ${signal}: cleaning up\n`)
    void Promise.allSettled([...pending].map(async (c) => c())).then(() => process.exit(130))
  })
}

/** Synchronous last resorts for a crash (an 'exit' handler can run nothing else): kill children, remove folders. */
const atExit = new Set<() => void>()
process.once('exit', () => {
  for (const fn of atExit) {
    try {
      fn()
    } catch {
      // exiting anyway
    }
  }
})
export function onExit(fn: () => void): () => void {
  atExit.add(fn)
  return () => atExit.delete(fn)
}

/** Registers a clean-up; the answer runs it (once) and unregisters it. */
export function onCleanup(fn: () => Promise<void> | void): () => Promise<void> {
  pending.add(fn)
  let done = false
  return async () => {
    if (done) return
    done = true
    pending.delete(fn)
    await fn()
  }
}
