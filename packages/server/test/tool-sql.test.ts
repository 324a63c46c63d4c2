import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SQL_CONFIRM_WRITE_CODE, type SqlHistoryEntry, type SqlRunResult, type SqlSchemaAnswer } from '@velo/shared'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sqlRunLimiter } from '../src/modules/tool/sql/limiter'
import { sqlRoleNames } from '../src/modules/tool/sql/postgres-runner'
import { addUser, readWorkbook, snapshot, useTestApp, waitForOperLog } from './harness'

const t = useTestApp()
const onPostgres = !!process.env.TEST_DATABASE_URL
let reader = ''

const run = (sql: string, o: { token?: string; write?: boolean; lang?: 'en_US' | 'zh_CN' } = {}) =>
  t.call<SqlRunResult>({ method: 'POST', url: '/api/tool/sql/run', token: o.token ?? t.admin, lang: o.lang, body: { sql, ...(o.write ? { write: true } : {}) } })

async function setConfig(key: string, value: string) {
  const { configId } = await t.app.services.db.selectFrom('sysConfig').select('configId').where('configKey', '=', key).executeTakeFirstOrThrow()
  const res = await t.call({ method: 'PUT', url: '/api/system/config', token: t.admin, body: { configId, configValue: value } })
  expect(res.status, res.msg).toBe(200)
}

beforeAll(async () => {
  // The reader's role is built as an admin would: tool:sql:list and tool:sql:execute, not write.
  const db = t.app.services.db
  const menuIds = (await db.selectFrom('sysMenu').select('menuId').where('perms', 'in', ['tool:sql:list', 'tool:sql:execute']).execute()).map((m) => m.menuId)
  expect(menuIds.length).toBeGreaterThanOrEqual(2)
  const role = await t.call<{ roleId: number }>({ method: 'POST', url: '/api/system/role', token: t.admin, body: { roleName: 'SQL reader', roleKey: 'sqlreader', roleSort: 5, menuIds } })
  expect(role.status, role.msg).toBe(200)
  const userId = await addUser(t, { userName: 'sqlreader' })
  const assigned = await t.call({ method: 'PUT', url: '/api/system/user', token: t.admin, body: { userId, roleIds: [role.data.roleId] } })
  expect(assigned.status, assigned.msg).toBe(200)
  reader = await t.login('sqlreader', 'secret12')
})

afterAll(async () => {
  if (!onPostgres) return
  // Roles belong to the cluster, not the test database: drop them while the database still exists.
  const c = new pg.Client({ connectionString: t.databaseUrl })
  await c.connect()
  for (const role of Object.values(sqlRoleNames(t.databaseUrl))) {
    const exists = await c.query('select 1 from pg_roles where rolname = $1', [role])
    if (exists.rowCount) {
      await c.query(`drop owned by ${c.escapeIdentifier(role)}`)
      await c.query(`drop role ${c.escapeIdentifier(role)}`)
    }
  }
  await c.end()
})

describe('POST /tool/sql/run reads', () => {
  it('answers columns, rows and types', async () => {
    const res = await run("SELECT user_id, user_name FROM sys_user WHERE user_name = 'admin'")
    expect(res.status, res.msg).toBe(200)
    expect(res.data.kind).toBe('rows')
    expect(res.data.columns.map((c: { name: string }) => c.name)).toEqual(['user_id', 'user_name'])
    expect(res.data.columns[0]!.type).toBeTruthy()
    expect(res.data.rows).toEqual([[1, 'admin']])
    expect(res.data.truncated).toBeNull()
    expect(res.data.rowsAffected).toBeNull()
  })

  it('stops at the row cap and at the size cap', async () => {
    await setConfig('tool.sql.maxRows', '5')
    const capped = await run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) SELECT i FROM n')
    expect(capped.data.rows).toHaveLength(5)
    expect(capped.data.truncated).toBe('rows')
    await setConfig('tool.sql.maxRows', '100000')
    await setConfig('tool.sql.maxResultMb', '1')
    const big = await run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) SELECT i, '" + 'x'.repeat(500) + "' AS pad FROM n")
    expect(big.data.truncated).toBe('size')
    expect(big.data.rows.length).toBeLessThan(5000)
    await setConfig('tool.sql.maxResultMb', '8')
    await setConfig('tool.sql.maxRows', '10000')
  })

  it('stops a long statement at the timeout, in both languages', async () => {
    await setConfig('tool.sql.timeoutSeconds', '1')
    const slow = onPostgres ? 'SELECT pg_sleep(5)' : 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n'
    const started = Date.now()
    const res = await run(slow)
    expect(res.status).toBe(400)
    expect(res.msg).toContain('stopped after 1 s')
    expect(Date.now() - started).toBeLessThan(4000)
    const zh = await run(slow, { lang: 'zh_CN' })
    expect(zh.msg).toContain('1 秒后已被停止')
    // A write stopped at the timeout commits nothing.
    const before = await snapshot(t, 'sysConfig')
    const slowWrite = onPostgres
      ? "UPDATE sys_config SET remark = 'slow' WHERE pg_sleep(5) IS NOT NULL"
      : "UPDATE sys_config SET remark = (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n)"
    const stopped = await run(slowWrite, { write: true })
    expect(stopped.status).toBe(400)
    expect(stopped.msg).toContain('stopped after 1 s')
    expect(await snapshot(t, 'sysConfig')).toEqual(before)
    await setConfig('tool.sql.timeoutSeconds', '10')
    const history = await t.call<SqlHistoryEntry[]>({ url: '/api/tool/sql/history', token: t.admin })
    expect(history.data[0]).toMatchObject({ sql: slowWrite, mode: 'write', outcome: 'timeout' })
    expect(history.data[1]).toMatchObject({ sql: slow, mode: 'read', outcome: 'timeout' })
  })
})

describe('tricks are refused and change nothing', () => {
  const tricks = [
    'WITH d AS (DELETE FROM sys_notice_x RETURNING *) SELECT * FROM d',
    "SELECT 1; DELETE FROM sys_config",
    'PRAGMA writable_schema=1',
    "ATTACH 'x.db' AS x",
    "COPY sys_user TO '/tmp/x'",
    "COPY (select 1) TO PROGRAM 'id'",
    'CREATE TABLE x (a int)',
    'DROP TABLE sys_config',
    'VACUUM',
    'BEGIN',
    '/* a */ -- b\n ( DELETE FROM sys_config',
    "SELECT load_extension('x')",
    "SELECT set_config('role', 'postgres', false)",
    "SELECT query_to_xml('select password from sys_user', true, false, '')",
    "SELECT lo_import('/etc/passwd')",
    "SELECT pg_read_file('/etc/passwd')",
    'SELECT * FROM dbstat',
  ]
  for (const trick of tricks) {
    it(trick, async () => {
      const before = await snapshot(t, 'sysConfig', 'sysUser')
      const res = await run(trick)
      if (trick.startsWith("SELECT set_config('role'") && res.status === 200) {
        // Harmless on its own (the login may not become postgres); a secret read after it still fails.
        expect(onPostgres).toBe(true)
      } else {
        expect(res.status, `${trick}: ${res.msg}`).toBeGreaterThanOrEqual(400)
      }
      const admin = await run(trick, { write: true })
      if (!trick.startsWith("SELECT set_config('role'")) expect(admin.status, `${trick} (write): ${admin.msg}`).toBeGreaterThanOrEqual(400)
      expect(await snapshot(t, 'sysConfig', 'sysUser')).toEqual(before)
    })
  }

  it('refuses DML inside WITH when reading, and changes nothing', async () => {
    const before = await snapshot(t, 'sysConfig')
    const res = await run('WITH d AS (DELETE FROM sys_config RETURNING *) SELECT * FROM d')
    // SQLite has no DML in WITH (a syntax error); PostgreSQL's read-only transaction says it writes.
    expect(res.status).toBe(onPostgres ? 409 : 400)
    expect(await snapshot(t, 'sysConfig')).toEqual(before)
  })

  it('names the keyword it refuses', async () => {
    const res = await run('PRAGMA writable_schema=1')
    expect(res.status).toBe(400)
    expect(res.msg).toContain('PRAGMA')
    const zh = await run('VACUUM', { lang: 'zh_CN' })
    expect(zh.msg).toContain('不能执行 VACUUM')
  })

  it('refuses a second statement', async () => {
    const res = await run('SELECT 1; SELECT 2')
    expect(res.status).toBe(400)
    expect(res.msg).toBe('Run one statement at a time')
  })

  it.runIf(onPostgres)('keeps the secrets after set_config(role)', async () => {
    await run("SELECT set_config('role', 'postgres', false)")
    const res = await run('SELECT password FROM sys_user')
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.data ?? '')).not.toContain('$')
  })

  it.runIf(onPostgres)('refuses nextval in a read', async () => {
    const seq = "SELECT last_value FROM sys_config_config_id_seq"
    const before = (await run(seq)).data
    expect((await run("SELECT nextval('sys_config_config_id_seq')", { token: reader })).status).toBeGreaterThanOrEqual(400)
    // The reading login has no USAGE on sequences: refused by the grants before the read-only transaction.
    expect((await run("SELECT nextval('sys_config_config_id_seq')")).status).toBeGreaterThanOrEqual(400)
    expect(before.rows).toHaveLength(1)
    expect((await run(seq)).data.rows).toEqual(before.rows)
  })
})

describe('secrets never come back', () => {
  const reads = [
    'SELECT * FROM sys_user',
    'SELECT password FROM sys_user',
    "SELECT user_name FROM sys_user WHERE password LIKE '$%'",
    'SELECT substr(password, 1, 5) FROM sys_user',
    'SELECT x FROM (SELECT password AS x FROM sys_user) s',
    'WITH s AS (SELECT password FROM sys_user) SELECT * FROM s',
    'SELECT user_name FROM sys_user UNION SELECT password FROM sys_user',
    'SELECT u.user_name FROM sys_user u JOIN sys_user v ON v.password = u.password',
    'SELECT * FROM sys_session',
    'SELECT count(*) FROM sys_cache',
    'SELECT secret_hash FROM iot_device',
    'SELECT registration_key FROM iot_model',
    'SELECT password_hash FROM mem_member',
    'SELECT * FROM tool_sql_credential',
  ]
  for (const statement of reads) {
    it(statement, async () => {
      const res = await run(statement)
      expect(res.status, res.msg).toBe(400)
      expect(res.data).toBeNull()
    })
  }

  it('runs EXPLAIN, but not of a secret read', async () => {
    const plan = await run('EXPLAIN SELECT user_name FROM sys_user')
    expect(plan.status, plan.msg).toBe(200)
    expect(plan.data.rows.length).toBeGreaterThan(0)
    if (!onPostgres) expect((await run('EXPLAIN SELECT password FROM sys_user')).status).toBe(400)
  })

  it('reads nothing secret through an index (WHERE on an indexed secret, min/max)', async () => {
    if (!onPostgres) await t.app.services.db.schema.createIndex('sys_user_password_test').on('sys_user').column('password').execute()
    expect((await run("SELECT user_name FROM sys_user WHERE password = 'x'")).status).toBe(400)
    expect((await run('SELECT max(password) FROM sys_user')).status).toBe(400)
    if (!onPostgres) await t.app.services.db.schema.dropIndex('sys_user_password_test').execute()
  })

  it('reads nothing secret through a view', async () => {
    await sql`create view sql_test_users as select user_name, password from sys_user`.execute(t.app.services.db)
    try {
      expect((await run('SELECT password FROM sql_test_users')).status).toBe(400)
      // SQLite compiles the view into the statement and sees only user_name read; PostgreSQL grants no
      // view over a table holding secrets (a view reads with its owner's rights).
      const names = await run('SELECT user_name FROM sql_test_users')
      expect(names.status).toBe(onPostgres ? 400 : 200)
      if (!onPostgres) expect(names.data.rows).toContainEqual(['admin'])
    } finally {
      await sql`drop view sql_test_users`.execute(t.app.services.db)
    }
  })

  it('names the secret column', async () => {
    const res = await run('SELECT password FROM sys_user')
    expect(res.msg).toContain('password')
  })

  it('reads the other columns of a table with a secret', async () => {
    const res = await run('SELECT user_name, email FROM sys_user ORDER BY user_id')
    expect(res.status, res.msg).toBe(200)
    expect(res.data.rows[0]![0]).toBe('admin')
  })

  it('leaves secrets out of the schema answer', async () => {
    const res = await t.call<SqlSchemaAnswer>({ url: '/api/tool/sql/schema', token: reader })
    expect(res.status).toBe(200)
    expect(res.data.dialect).toBe(onPostgres ? 'postgres' : 'sqlite')
    expect(res.data.tables.sys_user).toContain('user_name')
    expect(res.data.tables.sys_user).not.toContain('password')
    expect(res.data.tables.sys_session).toBeUndefined()
    expect(res.data.tables.iot_device).not.toContain('secret_hash')
  })
})

describe('writes', () => {
  const update = "UPDATE sys_config SET remark = 'by sql' WHERE config_key = 'sys.account.lockTime'"
  const remark = async () => (await t.app.services.db.selectFrom('sysConfig').select('remark').where('configKey', '=', 'sys.account.lockTime').executeTakeFirstOrThrow()).remark

  it('refuses a write without tool:sql:write (403), even with write: true', async () => {
    const res = await run(update, { token: reader })
    expect(res.status).toBe(403)
    expect(res.msg).toContain('tool:sql:write')
    expect((await run(update, { token: reader, write: true })).status).toBe(403)
    const cte = await run('WITH d AS (DELETE FROM sys_config RETURNING *) SELECT * FROM d', { token: reader })
    // SQLite has no DML in WITH (a syntax error); PostgreSQL's read-only transaction catches it.
    expect(cte.status).toBe(onPostgres ? 403 : 400)
    expect(await remark()).not.toBe('by sql')
  })

  it('asks to confirm, then writes and reports the rows affected', async () => {
    const ask = await run(update)
    expect(ask.status).toBe(409)
    expect(ask.code).toBe(SQL_CONFIRM_WRITE_CODE)
    expect(await remark()).not.toBe('by sql')
    const done = await run(update, { write: true })
    expect(done.status, done.msg).toBe(200)
    expect(done.data).toMatchObject({ kind: 'write', rowsAffected: 1 })
    expect(await remark()).toBe('by sql')
  })

  it('refuses a write to a secret table or column', async () => {
    const before = await snapshot(t, 'sysUser')
    expect((await run("DELETE FROM sys_session", { write: true })).status).toBe(400)
    expect((await run("UPDATE sys_user SET password = 'x'", { write: true })).status).toBe(400)
    expect(await snapshot(t, 'sysUser')).toEqual(before)
  })
})

describe('audit, history and export', () => {
  it('logs every run with its statement', async () => {
    await run("SELECT 'audited ok'")
    await waitForOperLog(t, (r) => r.title === 'SQL execution' && r.operParam.includes('audited ok') && r.status === '0')
    await run("SELECT 'audited' FROM no_such_table")
    await waitForOperLog(t, (r) => r.title === 'SQL execution' && r.operParam.includes('no_such_table') && r.status === '1')
  })

  it('logs the statement and its outcome, never the rows it answered', async () => {
    // The value answered is not in the statement: only the answer could bring it into the log.
    const res = await run("SELECT 'rider' || '.logged@example.com' AS email, 'x' AS other UNION ALL SELECT 'b', 'y'")
    expect(res.status, res.msg).toBe(200)
    expect(res.data.rows[0]![0]).toBe('rider.logged@example.com')
    const log = await waitForOperLog(t, (r) => r.title === 'SQL execution' && r.operParam.includes('.logged@example.com'))
    expect(log.jsonResult).not.toContain('rider.logged@example.com')
    expect(JSON.parse(log.jsonResult)).toEqual({ status: 200, code: 200, msg: res.msg, data: { columns: 2, rows: 2 } })
  })

  it("answers the caller's own history, newest first", async () => {
    await run("SELECT 'mine'", { token: reader })
    const res = await t.call<SqlHistoryEntry[]>({ url: '/api/tool/sql/history', token: reader })
    expect(res.status).toBe(200)
    expect(res.data[0]).toMatchObject({ sql: "SELECT 'mine'", mode: 'read', outcome: 'ok', rowCount: 1 })
    expect(res.data.every((h: { sql: string }) => !h.sql.includes('audited'))).toBe(true)
  })

  it('keeps at most 200 statements per user', async () => {
    const db = t.app.services.db
    const { userId } = await db.selectFrom('sysUser').select('userId').where('userName', '=', 'sqlreader').executeTakeFirstOrThrow()
    const now = new Date().toISOString()
    const rows = Array.from({ length: 210 }, (_, i) => ({ userId, sqlText: `SELECT ${i}`, mode: 'read' as const, outcome: 'ok' as const, rowCount: 1, durationMs: 1, createTime: now }))
    await db.insertInto('toolSqlHistory').values(rows).execute()
    await run("SELECT 'last'", { token: reader })
    const kept = await db.selectFrom('toolSqlHistory').select(db.fn.countAll<number>().as('n')).where('userId', '=', userId).executeTakeFirstOrThrow()
    expect(Number(kept.n)).toBe(200)
    const res = await t.call<SqlHistoryEntry[]>({ url: '/api/tool/sql/history', token: reader })
    expect(res.data).toHaveLength(50)
    expect(res.data[0]!.sql).toBe("SELECT 'last'")
  })

  it('exports the rows as .xlsx', async () => {
    const res = await t.call({ method: 'POST', url: '/api/tool/sql/export', token: t.admin, body: { sql: "SELECT user_name, status FROM sys_user WHERE user_name = 'admin'" } })
    expect(res.status, res.msg).toBe(200)
    const book = await readWorkbook(res.raw)
    expect(book.header).toEqual(['user_name', 'status'])
    expect(book.rows).toEqual([['admin', '0']])
    const reading = await t.call({ method: 'POST', url: '/api/tool/sql/export', token: reader, body: { sql: 'SELECT 1' } })
    expect(reading.status).toBe(403)
  })
})

describe('statements running at once', () => {
  // Runs until the timeout stops it: each holds its slot for that long.
  const slow = onPostgres ? 'SELECT pg_sleep(60)' : 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n'
  const running = () => sqlRunLimiter(t.app.services).running
  async function until(condition: () => boolean | Promise<boolean>, ms = 10_000) {
    const end = Date.now() + ms
    while (!(await condition())) {
      if (Date.now() > end) throw new Error('waited in vain')
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it('refuses one more than a user may run (2 by default) and than the server runs in all, with 429 in both languages, and runs again once they end', async () => {
    await setConfig('tool.sql.timeoutSeconds', '3')
    await setConfig('tool.sql.maxConcurrent', '3')
    const mine = [run(slow), run(slow)]
    await until(() => running() === 2)
    const third = await run('SELECT 1')
    expect(third.status).toBe(429)
    expect(third.msg).toBe('Too many SQL runs at once: at most 2 statements per user (the config key tool.sql.maxConcurrentPerUser); try again when one finishes')
    const zh = await run('SELECT 1', { lang: 'zh_CN' })
    expect(zh.status).toBe(429)
    expect(zh.msg).toBe('同时执行的 SQL 过多：每个用户最多同时执行 2 条语句（参数 tool.sql.maxConcurrentPerUser），请等其中一条结束后再试')
    // Another user still may, up to the server's cap.
    const theirs = run(slow, { token: reader })
    await until(() => running() === 3)
    const over = await run('SELECT 1', { token: reader })
    expect(over.status).toBe(429)
    expect(over.msg).toBe('Too many SQL runs at once: the server runs at most 3 statements together (the config key tool.sql.maxConcurrent); try again when one finishes')
    expect(running()).toBe(3)
    const ended = await Promise.all([...mine, theirs])
    for (const res of ended) expect(res.msg).toContain('stopped after 3 s')
    expect(running()).toBe(0)
    const again = await run("SELECT 'again'")
    expect(again.status, again.msg).toBe(200)
    expect(again.data.rows).toEqual([['again']])
    const history = await t.call<SqlHistoryEntry[]>({ url: '/api/tool/sql/history', token: t.admin })
    expect(history.data[0]).toMatchObject({ sql: "SELECT 'again'", outcome: 'ok' })
    expect(history.data.some((h: { sql: string; outcome: string }) => h.sql === 'SELECT 1' && h.outcome === 'refused')).toBe(true)
    await setConfig('tool.sql.maxConcurrent', '4')
    await setConfig('tool.sql.timeoutSeconds', '10')
  })

  it('stops the statement and gives its slot back when the client goes away', async () => {
    await setConfig('tool.sql.timeoutSeconds', '30')
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as AddressInfo
    const call = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/tool/sql/run', headers: { authorization: t.admin, 'content-type': 'application/json' } })
    call.on('error', () => {})
    call.end(JSON.stringify({ sql: slow }))
    await until(() => running() === 1)
    // On PostgreSQL, the reading login's statement (the cursor's FETCH runs it) is under way.
    const active = async () =>
      Number((await sql<{ n: number }>`select count(*) as n from pg_stat_activity where usename = ${sqlRoleNames(t.databaseUrl).read} and state = 'active'`.execute(t.app.services.db)).rows[0]!.n)
    if (onPostgres) await until(async () => (await active()) === 1)
    const gone = Date.now()
    call.destroy()
    // Freed as soon as the statement has stopped: long before the 30 s timeout would have.
    await until(() => running() === 0)
    expect(Date.now() - gone).toBeLessThan(5000)
    if (onPostgres) expect(await active()).toBe(0)
    // The history is written once the slot is free.
    const latest = async () => (await t.call<SqlHistoryEntry[]>({ url: '/api/tool/sql/history', token: t.admin })).data[0]
    await until(async () => (await latest())!.sql === slow)
    expect(await latest()).toMatchObject({ sql: slow, outcome: 'error' })
    expect((await run("SELECT 'next'")).status).toBe(200)
    await setConfig('tool.sql.timeoutSeconds', '10')
  })
})
