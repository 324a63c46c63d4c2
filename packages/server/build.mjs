// Bundles the server and the shared package into dist/main.js (and the backup, restore and
// admin-password commands beside it); npm dependencies stay external.
import { readFileSync } from 'node:fs'
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
const sizes = Object.entries(result.metafile.outputs)
  .filter(([file]) => !file.endsWith('.map'))
  .map(([file, out]) => `${file} ${(out.bytes / 1024).toFixed(0)} KB`)
console.log(`server built: ${sizes.join(', ')}`)
