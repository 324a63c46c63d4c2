// Bundles the server and the shared package into dist/main.js (and the backup, restore and
// admin-password commands beside it); npm dependencies stay external.
import { readFileSync } from 'node:fs'
import { build } from 'esbuild'

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'))
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@velo/'))

// The server, and the backup, restore and admin-password commands, so a production install without
// dev dependencies (tsx) can run them: node packages/server/dist/backup.js, …/restore.js,
// …/admin-password.js.
await build({
  entryPoints: { main: 'src/main.ts', backup: 'scripts/backup.ts', restore: 'scripts/restore.ts', 'admin-password': 'scripts/admin-password.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'info',
})
