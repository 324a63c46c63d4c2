/**
 * File upload benchmark (part of `npm run bench`; alone with BENCH_ONLY=files). For each database of
 * the engine benchmark it starts the bundled server with one extra definition that has a `file` field
 * (bench/files-server.ts), writes a BENCH_FILE_MB (200) MB file of random bytes to disk, and posts it
 * to the field's route (POST /bench/firmware/file/image) from disk, as a browser sends a chosen file,
 * while the server's resident memory is watched. It reports
 *
 *  - the server's RSS growth over the upload (peak minus the RSS when it began), target < 50 MB: the
 *    upload streams to storage and is never held whole;
 *  - the upload rate in MB/s (this machine, loopback);
 *  - whether the SHA-256 and MD5 the server answered equal `sha256sum` and `md5sum` run on the same
 *    file, and on the file the server stored.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, openAsBlob } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { benchFirmware } from './files-entity'
import { type Line, message, results, scratch, signIn, type Target } from './run'
import { buildServer, ServerProcess } from './server'
import { log, fmt } from './format'

const RSS_GROWTH_TARGET = 50 * 1024 * 1024
const MB = 1024 * 1024

const mb = (bytes: number) => `${fmt(bytes / MB, 1)} MB`

export interface FilesBench {
  /** Size of the uploaded file in MB. */
  megabytes: number
}

/** The product's server with one bench entity that has a file field (bench/files-server.ts). */
export const buildFilesServer = () => buildServer('bench/files-server.ts', 'files-server')

/** `size` random bytes written to `path` a megabyte at a time (never whole in this process either). */
async function randomFile(path: string, size: number) {
  const out = createWriteStream(path)
  for (let left = size; left > 0; left -= MB) {
    if (!out.write(randomBytes(Math.min(MB, left)))) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

/** The first word of a `sha256sum`/`md5sum` line. */
async function checksum(tool: 'sha256sum' | 'md5sum', path: string): Promise<string> {
  const child = spawn(tool, [path], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`${tool} exited with ${code}`)
  return out.split(/\s+/)[0]!
}

export async function runFiles(target: Target, bench: FilesBench, entry: string): Promise<{ lines: Line[]; notes: string[] }> {
  const { lines, notes, add } = results(target)
  let server: ServerProcess | undefined
  const { dir, database, cleanup } = await scratch(target, 'files', async () => {
    await server?.stop()
  })
  const storageDir = join(dir, 'files')
  const size = bench.megabytes * MB
  const label = `${fmt(bench.megabytes)} MB upload`
  try {
    log(`${target.name}: writing a ${fmt(bench.megabytes)} MB file`)
    const path = join(dir, 'firmware.bin')
    await randomFile(path, size)
    server = await ServerProcess.start(entry, { DATABASE_URL: database.url, STORAGE_DIR: storageDir })
    const base = `${server.baseUrl}/api`
    const token = await signIn(base)
    // One small upload first, not counted: the route's first answer (JIT, the first statements) is not what this measures.
    const warm = new FormData()
    warm.append('file', new Blob([randomBytes(1024)]), 'warm.bin')
    await fetch(`${base}${benchFirmware.path}/file/image`, { method: 'POST', headers: { authorization: token }, body: warm })

    log(`${target.name}: uploading it`)
    const form = new FormData()
    // A Blob backed by the file on disk: fetch streams it, as a browser sends a chosen file.
    form.append('file', await openAsBlob(path), 'firmware.bin')
    const watch = server.watchMemory()
    const started = performance.now()
    const res = await fetch(`${base}${benchFirmware.path}/file/image`, { method: 'POST', headers: { authorization: token }, body: form })
    const text = await res.text()
    const seconds = (performance.now() - started) / 1000
    const peak = watch.stop()
    let answer: { code?: number; msg?: string; data?: { fileName: string; size: number; sha256: string; md5: string; crc8: { variant: string; value: string } } } = {}
    try {
      answer = JSON.parse(text)
    } catch {
      // reported below
    }
    if (res.status !== 200 || answer.code !== 200 || !answer.data) throw new Error(`upload answered ${res.status}: ${(answer.msg ?? text).slice(0, 200)}`)
    const growth = peak - watch.startRss
    add(`${label}: server RSS growth`, `${mb(growth)} (peak ${mb(peak)}, ${mb(watch.startRss)} at start)`, {
      target: `< ${mb(RSS_GROWTH_TARGET)}`,
      pass: growth < RSS_GROWTH_TARGET,
    })
    add(`${label}: rate`, `${fmt(bench.megabytes / seconds, 1)} MB/s (${fmt(seconds, 2)} s)`)

    log(`${target.name}: sha256sum and md5sum of the file sent and the file stored`)
    const stored = join(storageDir, answer.data.fileName)
    const [sha, md5, storedSha, storedMd5] = await Promise.all([checksum('sha256sum', path), checksum('md5sum', path), checksum('sha256sum', stored), checksum('md5sum', stored)])
    const same = answer.data.size === size && answer.data.sha256 === sha && answer.data.md5 === md5 && storedSha === sha && storedMd5 === md5
    add(`${label}: digests = sha256sum / md5sum`, `${same ? 'equal' : 'DIFFER'} (SHA-256 ${answer.data.sha256.slice(0, 12)}…, MD5 ${answer.data.md5.slice(0, 12)}…, ${answer.data.crc8.variant} ${answer.data.crc8.value})`, {
      target: 'equal, sent and stored',
      pass: same,
    })
    if (!same) notes.push(`${target.name}: server ${answer.data.sha256} / ${answer.data.md5}, sha256sum ${sha} (stored ${storedSha}), md5sum ${md5} (stored ${storedMd5}).`)
  } catch (err) {
    add(label, `failed: ${message(err, server)}`, { target: `RSS growth < ${mb(RSS_GROWTH_TARGET)}`, pass: false })
    log(`${target.name} files failed: ${err instanceof Error ? err.stack : String(err)}`)
  } finally {
    await cleanup()
  }
  return { lines, notes }
}
