import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config'
import { createDatabase } from '../src/db/database'
import { migrateToLatest } from '../src/db/migrate'
import { seed } from '../src/seed'

// The README's quick start (scripts/quickstart.mjs) as a newcomer runs it: what can refuse does so
// before minutes of install and build, saying what to do; a repeat run skips what it already did.
const ROOT = resolve(__dirname, '../../..')
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function quickstart(args: string[], env: Record<string, string>) {
  // As a newcomer's shell has it: without Vitest's NODE_ENV=test, which would build development React and antd.
  const { DATABASE_URL: _ignored, NODE_ENV: _vitest, ...inherited } = process.env
  const r = spawnSync(process.execPath, ['scripts/quickstart.mjs', ...args], { cwd: ROOT, env: { ...inherited, QUICKSTART_NO_INSTALL: '1', ...env }, encoding: 'utf8', timeout: 170_000 })
  return { status: r.status, out: `${r.stdout}${r.stderr}` }
}

// The quick start runs on its embedded SQLite whatever the suite's database: the SQLite pass covers it.
describe.skipIf(!!process.env.TEST_DATABASE_URL)('npm run quickstart', () => {
  it('refuses a port that is taken before installing or building, and names the variable that picks another', async () => {
    const taken: Server = createServer()
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done))
    const port = (taken.address() as { port: number }).port
    try {
      const r = quickstart([], { PORT: String(port), HOST: '127.0.0.1' })
      expect(r.status).toBe(1)
      expect(r.out).toContain(`Port ${port} is taken`)
      expect(r.out).toContain('PORT=8081 npm run quickstart')
      expect(r.out).not.toMatch(/Installing|Building/)
    } finally {
      taken.close()
    }
  })

  it('quickstart:demo refuses a database with data the demo did not write before building, and says how to go on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'velo-quickstart-'))
    dirs.push(dataDir)
    // What the simulator leaves after a first quick start: the server's database with devices it registered.
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' })
    const { db, dialect } = createDatabase(config.database)
    await migrateToLatest(db, dialect)
    await seed({ db, config })
    await sql`insert into mem_member (email, gender, status, create_by, create_time, update_by, remark) values ('rider@example.com', '2', '0', 'admin', '2026-01-01T00:00:00.000Z', '', '')`.execute(db)
    await db.destroy()

    const r = quickstart(['--demo', '--no-start'], { DATA_DIR: dataDir })
    expect(r.status).toBe(2)
    expect(r.out).toContain('mem_member: 1 rows')
    expect(r.out).toContain('npm run quickstart:demo -- --force')
    expect(r.out).not.toMatch(/Building|Installing/)
  }, 180_000)

  it('a second run skips the install and the build when nothing changed', () => {
    const first = quickstart(['--no-start'], {})
    expect(first.status).toBe(0)
    expect(first.out).toContain('Dependencies: installed from this package-lock.json already, skipped')
    const second = quickstart(['--no-start'], {})
    expect(second.status).toBe(0)
    expect(second.out).toContain('Dependencies: installed from this package-lock.json already, skipped')
    expect(second.out).toContain('Build: no source changed since the last build, skipped')
  }, 180_000)
})
