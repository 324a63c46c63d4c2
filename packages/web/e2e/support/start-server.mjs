// Starts the built server for the e2e run: fresh SQLite database and file storage in a temp dir,
// captcha off unless E2E_CAPTCHA=true, a known admin password. The temp dir is removed when the server stops.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const web = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
/** Where the server on this port writes its mails (support/mail.ts reads them). */
export const mailDirOf = (port) => join(tmpdir(), `velo-e2e-mail-${port}`)
const serverMain = resolve(web, '../server/dist/main.js')
for (const [what, file] of [['web app', join(web, 'dist/index.html')], ['server', serverMain]]) {
  if (!existsSync(file)) {
    console.error(`The ${what} is not built (${file} is missing). Run \`npm run build\` at the repository root first.`)
    process.exit(1)
  }
}

const dir = mkdtempSync(join(tmpdir(), 'velo-e2e-'))
rmSync(mailDirOf(process.env.E2E_PORT ?? '18080'), { recursive: true, force: true })
const server = spawn(process.execPath, [serverMain], {
  cwd: resolve(web, '../..'),
  stdio: 'inherit',
  env: {
    ...process.env,
    PORT: process.env.E2E_PORT ?? '18080',
    DATABASE_URL: join(dir, 'velo.db'),
    ADMIN_PASSWORD: 'admin123',
    CAPTCHA_ENABLED: process.env.E2E_CAPTCHA === 'true' ? 'true' : 'false',
    STORAGE_DIR: join(dir, 'files'),
    // No SMTP: mails land as .eml files where the specs read them, as the person running a server would.
    MAIL_DIR: mailDirOf(process.env.E2E_PORT ?? '18080'),
    WEB_DIR: join(web, 'dist'),
    // Stay off the default MQTT port, which a local broker may hold.
    MQTT_PORT: process.env.E2E_MQTT_PORT ?? '18883',
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
