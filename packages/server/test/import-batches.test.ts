import ExcelJS from 'exceljs'
import { systemEntities } from '@velo/shared'
import { sql } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { importWorkbook } from '../src/platform/crud/import'
import { ADD_MANY_ROWS, EntityRepository } from '../src/platform/crud/repository'
import { loadAuthContext } from '../src/platform/rbac/auth-context'
import { resolveRowScope } from '../src/platform/rbac/data-scope'
import { idOf, type ImportRefusal, multipart, useTestApp } from './harness'

// An import adds the new rows of an entity without per-row create hooks ADD_MANY_ROWS to an INSERT
// (on PostgreSQL an INSERT a row was a round trip a row: 100,000 rows took 36 s). Nothing else may
// change: every row checked and stamped as before, all rows or none, every problem reported by its
// row number as the row-by-row import reports it, hooks run for each row, and a cancel stops it.
const t = useTestApp()
const db = () => t.app.services.db
const onPostgres = !!process.env.TEST_DATABASE_URL

const I18N_HEADER = ['Name', 'Type', 'Source key', 'English', 'Chinese']
/** A file's data rows start at row 2 (the header is row 1): the file's row of data row `i` (0-based). */
const rowOf = (i: number) => i + 2
/** A data row that lands in the second batch, and one in the fourth. */
const SECOND_BATCH = ADD_MANY_ROWS + 150
const FOURTH_BATCH = 3 * ADD_MANY_ROWS + 20

async function workbook(header: string[], rows: (string | number)[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Sheet1')
  ws.addRow(header)
  for (const row of rows) ws.addRow(row)
  return Buffer.from(await wb.xlsx.writeBuffer())
}

const i18nRows = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => [`Name ${i}`, 'Web console', `${prefix}.${i}`, `Hello ${i}`, `你好 ${i}`])

function importFile(path: string, file: Buffer, o: { updateSupport?: boolean } = {}) {
  const form = multipart([...(o.updateSupport ? [{ field: 'updateSupport', value: 'true' }] : []), { name: 'import.xlsx', bytes: file }])
  return t.call<ImportRefusal>({ method: 'POST', url: `/api${path}/import`, token: t.admin, ...form })
}

const storedI18n = (prefix: string) =>
  db()
    .selectFrom('sysI18n')
    .select(['i18nId', 'name', 'type', 'sourceKey', 'language', 'valueEnUs', 'valueZhCn', 'createBy', 'createTime', 'updateBy'])
    .where('sourceKey', 'like', `${prefix}.%`)
    .orderBy('i18nId')
    .execute()

/** The import's answer with rows written in batches, then the same file's answer written row by row (the rows are removed between). */
async function bothWays(path: string, file: Buffer, cleanUp: () => Promise<void>, o: { updateSupport?: boolean } = {}) {
  const batched = await importFile(path, file, o)
  await cleanUp()
  const rowByRow = vi.spyOn(EntityRepository.prototype, 'addsInBatches', 'get').mockReturnValue(false)
  const single = await importFile(path, file, o)
  rowByRow.mockRestore()
  await cleanUp()
  return { batched, single }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('import in batches', () => {
  it('adds every row of a file larger than a batch, each with its defaults, who added it and when', async () => {
    const addMany = vi.spyOn(EntityRepository.prototype, 'addMany')
    const createIn = vi.spyOn(EntityRepository.prototype, 'createIn')
    const count = 5 * ADD_MANY_ROWS
    const before = new Date().toISOString()
    const res = await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, i18nRows('batch.all', count)))
    expect(res.status, `${res.msg} ${JSON.stringify(res.data?.errors?.slice(0, 3))}`).toBe(200)
    expect(res.data).toEqual({ inserted: count, updated: 0 })
    expect(addMany).toHaveBeenCalledTimes(5)
    expect(createIn).not.toHaveBeenCalled()

    const rows = await storedI18n('batch.all')
    expect(rows).toHaveLength(count)
    expect(new Set(rows.map((r) => r.i18nId)).size).toBe(count)
    expect(new Set(rows.map((r) => r.sourceKey))).toEqual(new Set(i18nRows('batch.all', count).map((r) => r[2])))
    for (const r of rows) {
      expect(r).toMatchObject({ type: 'web', language: 'en_US', createBy: 'admin' })
      expect(String(r.createTime) >= before && String(r.createTime) <= new Date().toISOString(), String(r.createTime)).toBe(true)
      expect(r.updateBy ?? '').toBe('')
    }
    const last = rows.find((r) => r.sourceKey === `batch.all.${count - 1}`)!
    expect(last).toMatchObject({ name: `Name ${count - 1}`, valueEnUs: `Hello ${count - 1}`, valueZhCn: `你好 ${count - 1}` })

    // Written: importing the file again refuses every row as existing, and writes nothing.
    const again = await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, i18nRows('batch.all', count)))
    expect(again.status).toBe(400)
    expect(new Set(again.data.errors.map((x: { row: number }) => x.row)).size).toBe(Math.min(count, 1000))
    expect(await storedI18n('batch.all')).toHaveLength(count)
  })

  it('reports bad rows of later batches by their numbers, as row by row, and writes nothing', async () => {
    await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, [['Taken', 'Web console', 'batch.bad.taken', 'Taken', '占用']]))
    const rows = i18nRows('batch.bad', 4 * ADD_MANY_ROWS)
    rows[SECOND_BATCH]![1] = 'No such type' // a value the database check refuses (not in the dictionary)
    rows[SECOND_BATCH + 100]![2] = 'batch.bad.taken' // a stored key
    rows[FOURTH_BATCH]![2] = 'batch bad' // a format the row's schema refuses
    const file = await workbook(I18N_HEADER, rows)
    const cleanUp = async () => {
      expect(await storedI18n('batch.bad')).toHaveLength(1)
    }
    const { batched, single } = await bothWays(systemEntities.i18n.path, file, cleanUp)
    expect(batched.status).toBe(400)
    expect(batched.msg).toBe('Import failed: 3 rows have errors, nothing was imported')
    expect(batched.data.errors).toEqual([
      { row: rowOf(FOURTH_BATCH), field: 'sourceKey', message: expect.any(String) },
      { row: rowOf(SECOND_BATCH), field: 'type', message: 'Type: "No such type" is not one of the allowed values' },
      { row: rowOf(SECOND_BATCH + 100), field: 'sourceKey', message: 'Source key "batch.bad.taken" already exists: choose "Update rows that already exist" to change it' },
    ])
    expect({ status: batched.status, msg: batched.msg, data: batched.data }).toEqual({ status: single.status, msg: single.msg, data: single.data })
  })

  describe('a row the database refuses although its checks passed (another writer took its key meanwhile)', () => {
    // A trigger stands in for the other writer: it refuses one key with a constraint error.
    const REFUSED = 'batch.race.refused'
    async function refuseKey() {
      if (onPostgres) {
        await sql
          .raw(
            `create or replace function velo_test_refuse() returns trigger language plpgsql as $$ begin if new.source_key = '${REFUSED}' then raise exception 'taken meanwhile' using errcode = '23505'; end if; return new; end $$`,
          )
          .execute(db())
        await sql.raw('create trigger velo_test_refuse before insert on sys_i18n for each row execute function velo_test_refuse()').execute(db())
      } else {
        await sql.raw(`create trigger velo_test_refuse before insert on sys_i18n when new.source_key = '${REFUSED}' begin select raise(abort, 'taken meanwhile'); end`).execute(db())
      }
    }
    const allowKey = () => sql.raw(`drop trigger if exists velo_test_refuse${onPostgres ? ' on sys_i18n' : ''}`).execute(db())

    it('names that row, and keeps the report as row by row: the problems before it, none of the rows after it', async () => {
      await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, [['Taken', 'Web console', 'batch.race.taken', 'Taken', '占用']]))
      const rows = i18nRows('batch.race', 4 * ADD_MANY_ROWS)
      rows[SECOND_BATCH - 50]![2] = 'batch.race.taken' // reported before the refused row
      rows[SECOND_BATCH]![2] = REFUSED
      rows[SECOND_BATCH + 50]![2] = 'batch.race.taken2' // stored too, but after the refused row: never reached
      rows[FOURTH_BATCH]![2] = 'batch race' // the file's own checks come first, whatever the database says
      const file = await workbook(I18N_HEADER, rows)
      await refuseKey()
      try {
        await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, [['Taken', 'Web console', 'batch.race.taken2', 'Taken', '占用']]))
        const cleanUp = async () => {
          expect((await storedI18n('batch.race')).map((r) => r.sourceKey)).toEqual(['batch.race.taken', 'batch.race.taken2'])
        }
        const { batched, single } = await bothWays(systemEntities.i18n.path, file, cleanUp)
        expect(batched.status).toBe(400)
        expect(batched.data.errors).toEqual([
          { row: rowOf(FOURTH_BATCH), field: 'sourceKey', message: expect.any(String) },
          { row: rowOf(SECOND_BATCH - 50), field: 'sourceKey', message: expect.stringContaining('already exists') },
          { row: rowOf(SECOND_BATCH), field: '', message: 'The database refused this row (a required value is missing or a unique value is taken); nothing was imported' },
        ])
        expect({ status: batched.status, msg: batched.msg, data: batched.data }).toEqual({ status: single.status, msg: single.msg, data: single.data })
      } finally {
        await allowKey()
      }
    })

    it('alone in the file: that row is reported, nothing is written, and the next import writes', async () => {
      const rows = i18nRows('batch.alone', 3 * ADD_MANY_ROWS)
      rows[SECOND_BATCH]![2] = REFUSED
      await refuseKey()
      try {
        const res = await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, rows))
        expect(res.status).toBe(400)
        expect(res.data.errors).toEqual([{ row: rowOf(SECOND_BATCH), field: '', message: expect.stringContaining('The database refused this row') }])
        expect(await storedI18n('batch.alone')).toEqual([])
      } finally {
        await allowKey()
      }
      const res = await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, rows))
      expect(res.status, res.msg).toBe(200)
      expect(res.data).toEqual({ inserted: 3 * ADD_MANY_ROWS, updated: 0 })
      expect(await storedI18n('batch.alone')).toHaveLength(3 * ADD_MANY_ROWS - 1)
      expect(await db().selectFrom('sysI18n').select('i18nId').where('sourceKey', '=', REFUSED).executeTakeFirst()).toBeTruthy()
    })
  })

  it('with the update option, updates the stored rows and adds the rest, as row by row does', async () => {
    const count = 3 * ADD_MANY_ROWS
    const stored = [10, SECOND_BATCH, count - 1]
    const rows = i18nRows('batch.update', count)
    await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, stored.map((i) => rows[i]!)))
    for (const i of stored) rows[i]![3] = `Changed ${i}`
    const file = await workbook(I18N_HEADER, rows)
    const results = []
    for (const rowByRow of [false, true]) {
      const spy = rowByRow ? vi.spyOn(EntityRepository.prototype, 'addsInBatches', 'get').mockReturnValue(false) : undefined
      const res = await importFile(systemEntities.i18n.path, file, { updateSupport: true })
      spy?.mockRestore()
      expect(res.status, `${res.msg} ${JSON.stringify(res.data?.errors?.slice(0, 3))}`).toBe(200)
      expect(res.data).toEqual({ inserted: count - stored.length, updated: stored.length })
      const after = await storedI18n('batch.update')
      expect(after).toHaveLength(count)
      for (const i of stored) expect(after.find((r) => r.sourceKey === `batch.update.${i}`)).toMatchObject({ valueEnUs: `Changed ${i}`, updateBy: 'admin' })
      results.push(after.map(({ i18nId: _id, createTime: _c, ...r }) => r).sort((a, b) => a.sourceKey.localeCompare(b.sourceKey)))
      // As it was before this round: the stored rows alone, changed.
      await db().deleteFrom('sysI18n').where('sourceKey', 'like', 'batch.update.%').where('valueEnUs', 'like', 'Hello %').execute()
      for (const i of stored) await db().updateTable('sysI18n').set({ valueEnUs: `Hello ${i}`, updateBy: '' }).where('sourceKey', '=', `batch.update.${i}`).execute()
    }
    expect(results[0]).toEqual(results[1])
  })

  it('runs an entity’s create hooks for each row, row by row: a hook refusing a row of a later batch names it', async () => {
    const addMany = vi.spyOn(EntityRepository.prototype, 'addMany')
    const createIn = vi.spyOn(EntityRepository.prototype, 'createIn')
    const e = systemEntities.dictData
    const header = ['Dictionary type', 'Label', 'Value']
    const count = 2 * ADD_MANY_ROWS + 100
    const rows = Array.from({ length: count }, (_, i) => ['sys_yes_no', `Hooked ${i}`, `H${i}`])
    // dictData's beforeCreate refuses a dictionary type that does not exist.
    rows[SECOND_BATCH]![0] = 'no_such_dictionary'
    const refused = await importFile(e.path, await workbook(header, rows))
    expect(refused.status).toBe(400)
    expect(refused.data.errors).toEqual([{ row: rowOf(SECOND_BATCH), field: '', message: 'Dictionary type "no_such_dictionary" does not exist' }])
    expect(addMany).not.toHaveBeenCalled()
    // Each row up to the end went through createIn, and so through the hook (the refused one too).
    expect(createIn).toHaveBeenCalledTimes(count)

    createIn.mockClear()
    rows[SECOND_BATCH]![0] = 'sys_yes_no'
    const added = await importFile(e.path, await workbook(header, rows))
    expect(added.status, added.msg).toBe(200)
    expect(added.data).toEqual({ inserted: count, updated: 0 })
    expect(createIn).toHaveBeenCalledTimes(count)
    expect(addMany).not.toHaveBeenCalled()
    const { n } = await db().selectFrom('sysDictData').select((eb) => eb.fn.countAll<number>().as('n')).where('dictLabel', 'like', 'Hooked %').executeTakeFirstOrThrow()
    expect(Number(n)).toBe(count)
  })

  it('stops when aborted between batches, inside the transaction: nothing of the batches written so far is kept', async () => {
    const admin = (await loadAuthContext(t.app.services.db, await idOf(t, 'user', 'admin')))!
    const addMany = vi.spyOn(EntityRepository.prototype, 'addMany')
    const controller = new AbortController()
    const seen: number[] = []
    const at = 2 * ADD_MANY_ROWS + 10
    const run = importWorkbook({
      repo: new EntityRepository(t.app.services.db, systemEntities.i18n),
      db: db(),
      bytes: await workbook(I18N_HEADER, i18nRows('batch.abort', 4 * ADD_MANY_ROWS)),
      updateSupport: false,
      auth: admin,
      scope: await resolveRowScope(t.app.services.db, admin),
      lang: 'en_US',
      progress: (done) => {
        seen.push(done)
        if (done === at) controller.abort(new Error('cancelled by the test'))
      },
      signal: controller.signal,
    })
    await expect(run).rejects.toThrow('cancelled by the test')
    expect(seen.at(-1)).toBe(at)
    // Two batches had been written in the transaction the abort rolled back.
    expect(addMany).toHaveBeenCalledTimes(2)
    expect(await storedI18n('batch.abort')).toEqual([])
  })

  it('gives a module acting after commit every added row, in the file’s order with the updated ones', async () => {
    const admin = (await loadAuthContext(t.app.services.db, await idOf(t, 'user', 'admin')))!
    const seen: { op: string; key: unknown; id: unknown }[] = []
    const repo = new EntityRepository(t.app.services.db, systemEntities.i18n, {
      afterCommit: async (change) => {
        if (change.op === 'create') seen.push({ op: 'create', key: change.row.sourceKey, id: change.row.i18nId })
        if (change.op === 'update') seen.push({ op: 'update', key: change.after.sourceKey, id: change.after.i18nId })
      },
    })
    const count = 2 * ADD_MANY_ROWS + 30
    const rows = i18nRows('batch.commit', count)
    const stored = [3, SECOND_BATCH]
    await importFile(systemEntities.i18n.path, await workbook(I18N_HEADER, stored.map((i) => rows[i]!)))
    const result = await importWorkbook({
      repo,
      db: db(),
      bytes: await workbook(I18N_HEADER, rows),
      updateSupport: true,
      auth: admin,
      scope: await resolveRowScope(t.app.services.db, admin),
      lang: 'en_US',
    })
    expect(result).toEqual({ inserted: count - stored.length, updated: stored.length })
    expect(seen).toHaveLength(count)
    // Each update comes after exactly the rows before it in the file.
    for (const i of stored) expect(seen.findIndex((s) => s.key === `batch.commit.${i}`)).toBe(i)
    expect(seen.filter((s) => s.op === 'update').map((s) => s.key)).toEqual(stored.map((i) => `batch.commit.${i}`))
    const ids = new Map((await storedI18n('batch.commit')).map((r) => [r.sourceKey, r.i18nId]))
    for (const s of seen) expect(s.id, String(s.key)).toEqual(ids.get(String(s.key)))
  })
})
