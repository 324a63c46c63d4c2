// Bundles the server and the shared package into dist/main.js (and the backup, restore and
// admin-password commands beside it); npm dependencies stay external.
import { readFileSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'))
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@velo/'))

// The server, and the backup, restore and admin-password commands, so a production install without
// dev dependencies (tsx) can run them: node packages/server/dist/backup.js, …/restore.js,
// …/admin-password.js.
const result = await build({
  entryPoints: { main: 'src/main.ts', backup: 'scripts/backup.ts', restore: 'scripts/restore.ts', 'admin-password': 'scripts/admin-password.ts' },
  // SERVER_OUT_DIR: a build of its own beside dist (for a second browser run on the same tree); it must
  // stay inside packages/server so the bundle finds its npm dependencies.
  outdir: process.env.SERVER_OUT_DIR ?? 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  // esbuild's own summary marks any output over 1 MB with ⚠️, a hint meant for bundles a browser
  // downloads. This one is read once from disk at start (1.3 MB: the server, the shared package's
  // definitions and the demo texts; npm dependencies stay outside), so the summary is ours.
  logLevel: 'warning',
  metafile: true,
})
// V8 keeps a script's source for as long as the process runs, one byte a character if every
// character is ASCII and two bytes otherwise: esbuild escapes strings but keeps comments and regular
// expressions as written, and the few Chinese characters and arrows among them doubled the server's
// 1.8 MB in memory. Each is written as its \u escape, which means the same in a string, a regular
// expression, an identifier and a comment (nothing in the server reads its own source as raw text).
for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'))) {
  const text = readFileSync(file, 'utf8')
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (ascii !== text) writeFileSync(file, ascii)
}
const sizes = Object.entries(result.metafile.outputs)
  .filter(([file]) => !file.endsWith('.map'))
  .map(([file, out]) => `${file} ${(out.bytes / 1024).toFixed(0)} KB`)
console.log(`server built: ${sizes.join(', ')}`)
