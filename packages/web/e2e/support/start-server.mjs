// Starts the built server for the e2e run: fresh SQLite database and file storage in a temp dir,
// captcha off unless E2E_CAPTCHA=true, a known admin password. The temp dir is removed when the server stops.
// The main server's database first gets the demo data (members, bikes, rides, feedback) at a small
// scale, as `npm run demo` writes it: members sign up in the app, so the specs cannot add them.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const web = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
/** Where the server on this port writes its mails (support/mail.ts reads them). */
export const mailDirOf = (port) => join(tmpdir(), `velo-e2e-mail-${port}`)
/** A file naming the database of the server on this port: specs compare the dashboards with their own queries on it (read-only). */
export const databaseNoteOf = (port) => join(tmpdir(), `velo-e2e-database-${port}`)
/** The built server: packages/server/dist, or E2E_SERVER_DIR (a build of its own, SERVER_OUT_DIR at its build). */
const serverMain = process.env.E2E_SERVER_DIR ? join(resolve(process.env.E2E_SERVER_DIR), 'main.js') : resolve(web, '../server/dist/main.js')
/** The built web app: packages/web/dist, or E2E_WEB_DIR (a build of its own, for a second run beside this one). */
const webDist = process.env.E2E_WEB_DIR ? resolve(process.env.E2E_WEB_DIR) : join(web, 'dist')
for (const [what, file] of [['web app', join(webDist, 'index.html')], ['server', serverMain]]) {
  if (!existsSync(file)) {
    console.error(`The ${what} is not built (${file} is missing). Run \`npm run build\` at the repository root first.`)
    process.exit(1)
  }
}

const dir = mkdtempSync(join(tmpdir(), 'velo-e2e-'))
rmSync(mailDirOf(process.env.E2E_PORT ?? '18080'), { recursive: true, force: true })
/** The database, storage and admin password the server and the demo generator share. */
const data = { DATABASE_URL: join(dir, 'velo.db'), STORAGE_DIR: join(dir, 'files'), ADMIN_PASSWORD: 'admin123' }
writeFileSync(databaseNoteOf(process.env.E2E_PORT ?? '18080'), data.DATABASE_URL)

if (process.env.E2E_CAPTCHA !== 'true') {
  // The demo migrates and seeds the fresh database itself (admin / ADMIN_PASSWORD), as the server
  // would at its first start, then writes its rows; about two seconds at this scale.
  const serverDir = resolve(web, '../server')
  const tsx = createRequire(join(serverDir, 'package.json')).resolve('tsx/cli')
  const demo = spawnSync(process.execPath, [tsx, 'scripts/demo.ts', '--scale', '0.01', '--seed', '1'], {
    cwd: serverDir,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...data, LOG_LEVEL: 'warn' },
  })
  if (demo.status !== 0) {
    console.error(`The demo data could not be written (npm run demo exited with ${demo.status ?? demo.signal}).`)
    rmSync(dir, { recursive: true, force: true })
    process.exit(1)
  }
}

const server = spawn(process.execPath, [serverMain], {
  cwd: resolve(web, '../..'),
  stdio: 'inherit',
  env: {
    ...process.env,
    PORT: process.env.E2E_PORT ?? '18080',
    ...data,
    CAPTCHA_ENABLED: process.env.E2E_CAPTCHA === 'true' ? 'true' : 'false',
    // No SMTP: mails land as .eml files where the specs read them, as the person running a server would.
    MAIL_DIR: mailDirOf(process.env.E2E_PORT ?? '18080'),
    WEB_DIR: webDist,
    // Stay off the default MQTT port, which a local broker may hold.
    MQTT_PORT: process.env.E2E_MQTT_PORT ?? '18883',
    // Backups (Monitoring › Data and backups' Run now) go with the temp dir, not into the checkout's ./data.
    BACKUP_DIR: join(dir, 'backups'),
    // The specs share one admin session for the whole run (session.ts › apiLogin), far past the
    // default five minutes a second proof holds; second-factor.spec.ts takes the proof away itself.
    STEP_UP_MINUTES: '240',
    LOG_LEVEL: 'warn',
  },
})

const cleanup = () => rmSync(dir, { recursive: true, force: true })
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.kill(signal))
}
server.on('exit', (code) => {
  cleanup()
  process.exit(code ?? 0)
})
