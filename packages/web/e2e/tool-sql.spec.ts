import { expect, test, type Page } from '@playwright/test'
import Database from 'better-sqlite3'
import { apiLogin, call, openSignedIn, setConfig, useToken } from './support/session'
import { saveScreen } from './support/screens'
import { sheetRowsOf } from './support/excel'
import { databaseFile } from './support/server'

// Tool system › SQL execution (issue 20) against the built server: a SELECT runs and exports; a
// write by someone without the Write permission is refused and changes nothing; with it, the
// statement is shown for a second confirmation and the rows affected are reported; a statement past
// the timeout is stopped with a clear message.

// support/start-server.mjs names the database it made in this file; read-only here.
const db = new Database(databaseFile(), { readonly: true, fileMustExist: true })
test.afterAll(() => db.close())

const PATH = '/tool/sql'
const suffix = String(Date.now() % 1_000_000)
const READER = { username: `sqlread${suffix}`, password: 'sqlread-pass1' }

const editor = (page: Page) => page.getByTestId('sql-editor').locator('.cm-content')
const result = (page: Page) => page.getByTestId('sql-result')
const sqlError = (page: Page) => page.getByTestId('sql-error')

/** Replaces the editor's text, as typing would (CodeMirror reads its contenteditable). */
async function typeStatement(page: Page, sql: string) {
  await expect(page.getByTestId('sql-editor')).toHaveAttribute('data-ready', 'true')
  await editor(page).fill(sql)
  await expect(editor(page)).toContainText(sql.slice(0, 20))
}


const remarksOf = (dictType: string) => (db.prepare('select remark from sys_dict_data where dict_type = ? order by dict_code').all(dictType) as { remark: string }[]).map((r) => r.remark)

test.beforeAll(async ({ request }) => {
  // A role that may open the page and run statements, but not write: built by the admin, who alone may grant tool:sql:*.
  const token = await apiLogin(request)
  const menus = (await call<{ rows: Array<{ menuId: number; parentId: number; menuType: string; perms: string | null }> }>(request, 'POST', '/system/menu/list', token, {})).rows
  const sqlPage = menus.find((m) => m.menuType === 'C' && m.perms === 'tool:sql:list')
  expect(sqlPage, 'the seeded SQL execution page').toBeTruthy()
  const buttons = menus.filter((m) => m.parentId === sqlPage!.menuId && (m.perms === 'tool:sql:execute' || m.perms === 'tool:sql:export'))
  expect(buttons).toHaveLength(2)
  expect(menus.some((m) => m.parentId === sqlPage!.menuId && m.perms === 'tool:sql:write'), 'the Write button is seeded').toBe(true)
  const role = await call<{ roleId: number }>(request, 'POST', '/system/role', token, {
    roleName: `SQL reader ${suffix}`,
    roleKey: `sqlreader${suffix}`,
    roleSort: 0,
    status: '0',
    menuIds: [sqlPage!.parentId, sqlPage!.menuId, ...buttons.map((b) => b.menuId)],
  })
  const depts = await call<{ value: number; label: string }[]>(request, 'GET', '/system/dept/options', token)
  await call(request, 'POST', '/system/user', token, {
    userName: READER.username,
    nickName: 'SQL reader',
    deptId: depts.find((d) => d.label !== 'Sales Europe')!.value,
    password: READER.password,
    email: `${READER.username}@example.com`,
    phonenumber: '+31 20 555 0177',
    roleIds: [role.roleId],
  })
})

test('a SELECT shows its rows and summary, and exports them as .xlsx', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, PATH)
  const expected = db.prepare(`select dict_label, dict_value from sys_dict_data where dict_type = 'sys_user_sex' order by dict_code`).all() as { dict_label: string; dict_value: string }[]
  expect(expected.length).toBeGreaterThan(1)
  await typeStatement(page, "SELECT dict_label, dict_value FROM sys_dict_data WHERE dict_type = 'sys_user_sex' ORDER BY dict_code")
  await page.getByTestId('sql-run').click()
  await expect(page.getByTestId('sql-summary')).toContainText(`${expected.length} rows`)
  const table = result(page)
  await expect(table.locator('thead')).toContainText('dict_label')
  await expect(table.locator('tbody tr.ant-table-row')).toHaveCount(expected.length)
  await expect(table.locator('tbody tr.ant-table-row').first()).toContainText(expected[0]!.dict_label)
  await saveScreen(page, 'tool-sql-select')

  const downloading = page.waitForEvent('download')
  await page.getByTestId('sql-export').click()
  const rows = await sheetRowsOf(await downloading)
  expect(rows[0]).toEqual(['dict_label', 'dict_value'])
  expect(rows.slice(1)).toEqual(expected.map((r) => [r.dict_label, r.dict_value]))

  // The statement is in the history, and a click brings it back.
  await typeStatement(page, 'SELECT 1 AS one')
  const history = page.getByTestId('sql-history')
  if (!(await history.isVisible())) await page.getByTestId('sql-history-open').click()
  await history.getByText("WHERE dict_type = 'sys_user_sex'", { exact: false }).first().click()
  await expect(editor(page)).toContainText("dict_type = 'sys_user_sex'")
})

test('a write without the Write permission is refused and changes nothing', async ({ browser, baseURL }) => {
  const before = remarksOf('sys_user_sex')
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await useToken(context, baseURL!, await apiLogin(page.request, READER))
    await page.goto(PATH)
    await typeStatement(page, "UPDATE sys_dict_data SET remark = 'changed by a reader' WHERE dict_type = 'sys_user_sex'")
    await page.getByTestId('sql-run').click()
    await expect(sqlError(page)).toContainText('tool:sql:write')
    await expect(page.getByTestId('sql-confirm-write')).toHaveCount(0)
    // Nor by the API with the confirmation flag.
    const response = await page.request.post(`/api${PATH}/run`, {
      headers: { Authorization: await apiLogin(page.request, READER) },
      data: { sql: "UPDATE sys_dict_data SET remark = 'changed by a reader' WHERE dict_type = 'sys_user_sex'", write: true },
    })
    expect(response.status()).toBe(403)
    // Nor hidden in a read: a CTE that deletes.
    await typeStatement(page, "WITH gone AS (DELETE FROM sys_dict_data WHERE dict_type = 'sys_user_sex' RETURNING *) SELECT * FROM gone")
    await page.getByTestId('sql-run').click()
    await expect(sqlError(page)).toBeVisible()
  } finally {
    await context.close()
  }
  expect(remarksOf('sys_user_sex')).toEqual(before)
})

test('with the Write permission, a write is shown for confirmation and reports the rows affected', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, PATH)
  const count = remarksOf('sys_user_sex').length
  const statement = `UPDATE sys_dict_data SET remark = 'checked ${suffix}' WHERE dict_type = 'sys_user_sex'`
  await typeStatement(page, statement)
  await page.getByTestId('sql-run').click()
  const confirm = page.getByTestId('sql-confirm-write')
  await expect(confirm).toBeVisible()
  await expect(confirm).toContainText(statement)
  await saveScreen(page, 'tool-sql-confirm-write')
  await page.getByTestId('sql-confirm-run').click()
  await expect(page.getByTestId('sql-affected')).toContainText(`${count} rows affected`)
  expect(remarksOf('sys_user_sex')).toEqual(Array(count).fill(`checked ${suffix}`))
})

test('a statement past the timeout is stopped with a clear message, in Chinese too', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!, PATH)
  await setConfig(page.request, token, 'tool.sql.timeoutSeconds', '1')
  try {
    const forever = 'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n'
    await typeStatement(page, forever)
    await page.getByTestId('sql-run').click()
    await expect(sqlError(page)).toContainText(/stopped after 1 s/i)
    await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
    await page.reload()
    await typeStatement(page, forever)
    await page.getByTestId('sql-run').click()
    await expect(sqlError(page)).toContainText('1 秒')
    // The server still answers at once.
    await typeStatement(page, 'SELECT 42 AS answer')
    await page.getByTestId('sql-run').click()
    await expect(result(page)).toContainText('42')
  } finally {
    await setConfig(page.request, token, 'tool.sql.timeoutSeconds', '10')
    await page.evaluate(() => localStorage.setItem('user_lang', 'en_US'))
  }
})
