import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { Plugin } from 'vite'

const brotli = promisify(brotliCompress)
const gz = promisify(gzip)
/** What compresses: text. Images and fonts in woff2 are compressed already. */
const TEXT = /\.(js|mjs|css|html|svg|json|txt|xml)$/
/** Below this a compressed copy saves less than its request's headers. */
const MIN_BYTES = 1024

/**
 * Writes a .br and a .gz beside every text file of the build, once, at build time: the server sends
 * them as they are (@fastify/static preCompressed) to a browser that accepts them, so no request
 * pays for compressing, and Brotli gets its best (slowest) level. Node's zlib does both: no
 * dependency for it.
 */
export function precompress(): Plugin {
  let outDir = 'dist'
  return {
    name: 'velo-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir)
    },
    async closeBundle() {
      const files = await textFiles(outDir)
      await Promise.all(
        files.map(async (file) => {
          const bytes = await readFile(file)
          if (bytes.length < MIN_BYTES) return
          const [br, gzipped] = await Promise.all([
            brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
            gz(bytes, { level: 9 }),
          ])
          // A copy no smaller than the file is no help: the browser gets the file itself.
          if (br.length < bytes.length) await writeFile(`${file}.br`, br)
          if (gzipped.length < bytes.length) await writeFile(`${file}.gz`, gzipped)
        }),
      )
    },
  }
}

async function textFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const name of await readdir(dir)) {
    const path = join(dir, name)
    if ((await stat(path)).isDirectory()) out.push(...(await textFiles(path)))
    else if (TEXT.test(name)) out.push(path)
  }
  return out
}
