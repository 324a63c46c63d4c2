import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Paged } from '@velo/shared'
import SQLite from 'better-sqlite3'
import ExcelJS from 'exceljs'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import {
  BackupRefused,
  type BackupManifest,
  backupMessage,
  createBackup,
  MANIFEST_FILE,
  MANIFEST_SUM_FILE,
  restoreBackup,
  snapshotSqlite,
  verifyBackup,
} from '../src/ops/backup'
import { createTestApp, freshDatabase, multipart, useTestApp } from './harness'

// npm run backup / npm run restore (src/ops/backup): a backup of SQLite taken while the server
// writes is consistent (an import is in it entirely or not at all), restores with its checksums
// verified into a fresh data folder only, and a tampered or incomplete backup is refused with
// nothing written. SQLite only: on a PostgreSQL run the command refuses (pg_dump instead), which
// is what is tested there; the pg_dump/pg_restore round trip runs in scripts/backup-roundtrip.ts.

const onPostgres = !!process.env.TEST_DATABASE_URL
const work = mkdtempSync(join(tmpdir(), 'velo-backup-test-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
let folders = 0
const fresh = (name: string) => join(work, `${name}-${++folders}`)

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')

async function refusal(p: Promise<unknown>): Promise<BackupRefused> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(BackupRefused)
  return err as BackupRefused
}

const count = (file: string, sql: string): number => {
  const db = new SQLite(file, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare(sql).get() as { n: number }).n
  } finally {
    db.close()
  }
}

describe.skipIf(onPostgres)('SQLite backup and restore', () => {
  const t = useTestApp()
  const config = () => t.app.services.config
  const dbFile = () => (config().database as { file: string }).file
  const backup = (target: string, now?: Date) =>
    createBackup({ database: config().database, storageDir: config().storageDir, target, serverVersion: '0.1.0-test', now })

  let uploaded = ''
  /** A backup of a quiet server with one stored file, shared by the tamper cases. */
  let good = ''
  const importedCount = (file: string) => count(file, "select count(*) as n from sys_dict_type where dict_type like 'bk\\_%' escape '\\'")

  it('a backup taken during a 10,000-row import holds all of its rows or none; after it, all; each restores with its checksums verified', async () => {
    const up = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/common/upload', token: t.admin, ...multipart([{ name: 'photo.png', bytes: PNG }]) })
    expect(up.code, up.msg).toBe(200)
    uploaded = up.data.fileName

    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Dictionaries')
    ws.addRow(['Dictionary name', 'Dictionary type'])
    for (let i = 0; i < 10_000; i++) ws.addRow([`Backup ${i}`, `bk_${i}`])
    const file = Buffer.from(await wb.xlsx.writeBuffer())

    // The import writes its rows in one transaction and lets the event loop turn between rows.
    // A second connection that cannot take the write lock sees that transaction open: backups are
    // taken then, in the import's middle, from the server's live database file.
    const probe = new SQLite(dbFile(), { fileMustExist: true, timeout: 0 })
    const writing = () => {
      try {
        probe.exec('BEGIN IMMEDIATE')
        probe.exec('ROLLBACK')
        return false
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_BUSY') return true
        throw e
      }
    }
    let answered = false
    const importing = t
      .call({ method: 'POST', url: '/api/system/dict/import', token: t.admin, ...multipart([{ name: 'dictionaries.xlsx', bytes: file }]) })
      .finally(() => (answered = true))
    const during: string[] = []
    /** Database copies begun and ended with the import's transaction open: none of its rows can be in them. */
    const snapshots: string[] = []
    while (!answered && (during.length < 2 || snapshots.length < 3)) {
      if (writing()) {
        if (snapshots.length < 3) {
          const copy = join(fresh('snapshot'), 'velo.db')
          mkdirSync(join(copy, '..'))
          await snapshotSqlite(dbFile(), copy)
          if (!answered && writing()) snapshots.push(copy)
        }
        if (during.length < 2) during.push((await backup(fresh('during'))).dir)
      }
      await new Promise((r) => setImmediate(r))
    }
    probe.close()
    const res = await importing
    expect(res.code, res.msg).toBe(200)
    expect(res.data).toEqual({ inserted: 10_000, updated: 0 })
    expect(during.length, 'no backup was begun while the import wrote').toBeGreaterThan(0)
    expect(snapshots.length, 'no copy was taken while the import wrote').toBeGreaterThan(0)
    for (const copy of snapshots) expect(importedCount(copy)).toBe(0)
    const after = await backup(fresh('after'))
    good = after.dir

    for (const dir of [...during, after.dir]) {
      const restored = await restoreBackup(dir, fresh('restored'))
      expect(readdirSync(restored.dataDir).sort()).toEqual(['files', 'velo.db'])
      const n = importedCount(restored.databaseFile)
      expect([0, 10_000]).toContain(n)
      if (dir === after.dir) expect(n).toBe(10_000)
      expect(count(restored.databaseFile, 'select count(*) as n from sys_user')).toBeGreaterThan(0)
      expect(readFileSync(join(restored.storageDir, uploaded)).equals(PNG)).toBe(true)
      const { manifest } = restored
      expect(manifest).toMatchObject({ format: 'velo-backup', formatVersion: 1, serverVersion: '0.1.0-test', database: { dialect: 'sqlite', file: 'velo.db' } })
      expect(manifest.migrations.product).toContain('2026-11-20T00-foundation')
      expect(manifest.files.map((f) => f.path)).toContain(uploaded)
    }
  }, 120_000)

  it('writes manifest.json and manifest.sha256 as sha256sum does, and leaves nothing behind when refused', async () => {
    const manifest = JSON.parse(readFileSync(join(good, MANIFEST_FILE), 'utf8')) as BackupManifest
    expect(readFileSync(join(good, MANIFEST_SUM_FILE), 'utf8')).toMatch(/^[0-9a-f]{64} {2}manifest\.json\n$/)
    expect(manifest.database.size).toBe(readFileSync(join(good, 'velo.db')).length)
    expect(manifest.files.find((f) => f.path === uploaded)).toMatchObject({ size: PNG.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
    // One plain database file: the copy is out of WAL mode, no -wal or -shm beside it.
    expect(readdirSync(good).sort()).toEqual(['files', 'manifest.json', 'manifest.sha256', 'velo.db'])
    // Only its owner may enter it, under the usual umask 022 too: it holds every password hash.
    expect(statSync(good).mode & 0o777).toBe(0o700)

    const taken = fresh('taken')
    mkdirSync(taken)
    writeFileSync(join(taken, 'something'), 'x')
    expect((await refusal(backup(taken))).key).toBe('targetNotEmpty')
    expect((await refusal(backup(join(config().storageDir, 'backups')))).key).toBe('targetInStorage')
    expect(existsSync(join(config().storageDir, 'backups'))).toBe(false)
  })

  it('a restored database and its files serve a real server', async () => {
    const restored = await restoreBackup(good, fresh('serve'))
    const other = await createTestApp({ DATABASE_URL: `sqlite:${restored.databaseFile}`, STORAGE_DIR: restored.storageDir })
    try {
      const token = await other.login()
      const list = await other.call<Paged<{ dictType: string }>>({ method: 'POST', url: '/api/system/dict/list', token, body: { dictType: 'bk_9999' } })
      expect(list.code, list.msg).toBe(200)
      expect(list.data.rows.map((r: { dictType: string }) => r.dictType)).toContain('bk_9999')
      const download = await other.call({ url: `/api/common/download?fileName=${encodeURIComponent(uploaded)}`, token })
      expect(download.status).toBe(200)
      expect(download.raw.equals(PNG)).toBe(true)
    } finally {
      await other.close()
    }
  })

  describe('a tampered or incomplete backup is refused, naming the first bad file, and nothing is written', () => {
    const tampered = (change: (dir: string) => void) => {
      const dir = fresh('tampered')
      cpSync(good, dir, { recursive: true })
      change(dir)
      return dir
    }
    const flipByte = (file: string, at: number) => {
      const bytes = readFileSync(file)
      bytes[at] = bytes[at]! ^ 0xff
      writeFileSync(file, bytes)
    }
    const refusedRestore = async (dir: string) => {
      const target = fresh('never')
      const err = await refusal(restoreBackup(dir, target))
      expect(existsSync(target)).toBe(false)
      return err
    }

    it('a changed byte in the database', async () => {
      const err = await refusedRestore(tampered((d) => flipByte(join(d, 'velo.db'), 5000)))
      expect(err.key).toBe('fileChecksum')
      expect(err.params.file).toBe('velo.db')
      expect(err.text('en_US')).toBe('velo.db does not match its SHA-256 in the manifest: the backup was changed or is damaged. Nothing was restored.')
      expect(err.text('zh_CN')).toBe('velo.db 与清单中的 SHA-256 不符：备份已被改动或已损坏。未恢复任何内容。')
    })

    it('a changed, a cut, a missing and an added stored file', async () => {
      const file = `files/${uploaded}`
      expect(await refusedRestore(tampered((d) => flipByte(join(d, file), 10)))).toMatchObject({ key: 'fileChecksum', params: { file } })
      expect(await refusedRestore(tampered((d) => writeFileSync(join(d, file), PNG.subarray(0, 20))))).toMatchObject({
        key: 'fileSize',
        params: { file, actual: 20, expected: PNG.length },
      })
      expect(await refusedRestore(tampered((d) => unlinkSync(join(d, file))))).toMatchObject({ key: 'fileMissing', params: { file } })
      expect(await refusedRestore(tampered((d) => writeFileSync(join(d, 'files', 'extra.txt'), 'x')))).toMatchObject({ key: 'fileExtra', params: { file: 'files/extra.txt' } })
    })

    it('a changed manifest, a manifest rewritten with its checksum, and a missing manifest.sha256', async () => {
      const edit = (d: string, rewriteSum: boolean) => {
        const m = JSON.parse(readFileSync(join(d, MANIFEST_FILE), 'utf8')) as BackupManifest
        m.database.size += 1
        const text = JSON.stringify(m)
        writeFileSync(join(d, MANIFEST_FILE), text)
        if (rewriteSum) writeFileSync(join(d, MANIFEST_SUM_FILE), `${createHash('sha256').update(text).digest('hex')}  manifest.json\n`)
      }
      expect((await refusedRestore(tampered((d) => edit(d, false)))).key).toBe('manifestTampered')
      // The checksum agrees with the forged manifest; the database does not.
      expect(await refusedRestore(tampered((d) => edit(d, true)))).toMatchObject({ key: 'fileSize', params: { file: 'velo.db' } })
      expect(await refusedRestore(tampered((d) => unlinkSync(join(d, MANIFEST_SUM_FILE))))).toMatchObject({ key: 'notABackup', params: { file: 'manifest.sha256' } })
      expect(await refusedRestore(tampered((d) => unlinkSync(join(d, 'velo.db'))))).toMatchObject({ key: 'fileMissing', params: { file: 'velo.db' } })
    })

    it('a manifest naming a file outside the backup', async () => {
      const dir = tampered((d) => {
        const m = JSON.parse(readFileSync(join(d, MANIFEST_FILE), 'utf8')) as BackupManifest
        m.files[0]!.path = '../../velo.db'
        const text = JSON.stringify(m)
        writeFileSync(join(d, MANIFEST_FILE), text)
        writeFileSync(join(d, MANIFEST_SUM_FILE), `${createHash('sha256').update(text).digest('hex')}  manifest.json\n`)
      })
      expect((await refusedRestore(dir)).key).toBe('unsafePath')
    })

    it('the untouched backup verifies', async () => {
      const manifest = await verifyBackup(good)
      expect(manifest.files.length).toBeGreaterThan(0)
    })
  })

  it('restore refuses a data folder that is not empty, the running server’s above all, and leaves it as it was', async () => {
    const live = join(dbFile(), '..')
    const before = readdirSync(live).sort()
    const err = await refusal(restoreBackup(good, live))
    expect(err.key).toBe('restoreTargetNotEmpty')
    expect(readdirSync(live).sort()).toEqual(before)

    const other = fresh('occupied')
    mkdirSync(other)
    writeFileSync(join(other, 'velo.db'), 'not this one')
    writeFileSync(join(other, 'a.txt'), 'kept')
    expect(await refusal(restoreBackup(good, other))).toMatchObject({ key: 'restoreTargetNotEmpty', params: { entry: 'velo.db' } })
    expect(readFileSync(join(other, 'velo.db'), 'utf8')).toBe('not this one')

    // An empty folder made beforehand is a fresh one.
    const empty = fresh('empty')
    mkdirSync(empty)
    expect((await restoreBackup(good, empty)).dataDir).toBe(empty)
    expect((await refusal(restoreBackup(good, join(good, 'inside')))).key).toBe('restoreInsideBackup')
  })
})

describe.runIf(onPostgres)('PostgreSQL: pg_dump and pg_restore, as docs/ops/backup.md tells', () => {
  const t = useTestApp()
  const hasTools = ['pg_dump', 'pg_restore'].every((tool) => spawnSync(tool, ['--version']).status === 0)
  const run = (cmd: string, args: string[]) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      // Asynchronous: the import goes on in this process while pg_dump reads.
      const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
      child.once('exit', (code) => resolve({ code: code ?? 1, stderr }))
    })
  const restoredCount = async (dump: string) => {
    const target = await freshDatabase(work)
    try {
      const restored = await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${target.url}`, dump])
      expect(restored.code, restored.stderr).toBe(0)
      const c = new pg.Client({ connectionString: target.url })
      await c.connect()
      try {
        return Number((await c.query("select count(*) as n from sys_dict_type where dict_type like 'bk\\_%'")).rows[0].n)
      } finally {
        await c.end()
      }
    } finally {
      await target.drop()
    }
  }

  it.skipIf(!hasTools)('a dump taken during a 10,000-row import restores with all of its rows or none; one after it, with all', async () => {
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Dictionaries')
    ws.addRow(['Dictionary name', 'Dictionary type'])
    for (let i = 0; i < 10_000; i++) ws.addRow([`Backup ${i}`, `bk_${i}`])
    const file = Buffer.from(await wb.xlsx.writeBuffer())
    const db = t.app.services.db
    // Another session's insert into the table holds RowExclusiveLock until its transaction ends.
    const inserting = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
            where c.relname = 'sys_dict_type' and l.mode = 'RowExclusiveLock' and l.pid <> pg_backend_pid()`.execute(db)
        ).rows[0]!.n,
      ) > 0
    let answered = false
    const importing = t
      .call({ method: 'POST', url: '/api/system/dict/import', token: t.admin, ...multipart([{ name: 'dictionaries.xlsx', bytes: file }]) })
      .finally(() => (answered = true))
    let during: string | undefined
    while (!answered && !during) {
      if (await inserting()) {
        during = join(fresh('pg-during'), 'velo.dump')
        mkdirSync(join(during, '..'))
        const dumped = await run('pg_dump', ['--format=custom', `--file=${during}`, `--dbname=${t.databaseUrl}`])
        expect(dumped.code, dumped.stderr).toBe(0)
      }
    }
    const res = await importing
    expect(res.code, res.msg).toBe(200)
    expect(during, 'no dump was begun while the import wrote').toBeDefined()
    const after = join(fresh('pg-after'), 'velo.dump')
    mkdirSync(join(after, '..'))
    expect((await run('pg_dump', ['--format=custom', `--file=${after}`, `--dbname=${t.databaseUrl}`])).code).toBe(0)
    expect([0, 10_000]).toContain(await restoredCount(during!))
    expect(await restoredCount(after)).toBe(10_000)
  }, 180_000)
})

describe('PostgreSQL', () => {
  it('the backup command refuses and gives the pg_dump command, without the password, writing nothing', async () => {
    const target = fresh('pg')
    const err = await refusal(
      createBackup({
        database: { dialect: 'postgres', url: 'postgres://velo:s3cret@db.internal:5432/velo' },
        storageDir: '/srv/velo/files',
        target,
        serverVersion: '0.1.0',
        now: new Date('2026-11-25T03:04:05Z'),
      }),
    )
    expect(err.key).toBe('pgRefused')
    const text = err.text('en_US')
    expect(text).toContain('pg_dump --format=custom --file=velo-20261125T030405Z.dump "postgres://velo:…@db.internal:5432/velo"')
    expect(text).toContain('cp -a "/srv/velo/files" velo-20261125T030405Z-files')
    expect(text).not.toContain('s3cret')
    expect(err.text('zh_CN')).toContain('pg_dump --format=custom')
    expect(existsSync(target)).toBe(false)
    expect(backupMessage('zh_CN', 'notSqlite', { dialect: 'postgres' })).toContain('pg_restore')
  })
})
