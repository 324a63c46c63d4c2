import { readFileSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import Database from 'better-sqlite3'
import { strFromU8, unzipSync } from 'fflate'
import { apiLogin, call, openSignedIn } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'
import { databaseFile } from './support/server'

// Tool system › Code generation (issue 20) against the built server: a table a DBA made (not one
// of the product's) is imported, a column is edited, the files are previewed and downloaded as a zip
// whose definition carries the edit.

// Letters only: the engine maps a field or table name to its column by Kysely's snake case, which keeps digits attached.
const suffix = [...String(Date.now() % 1_000_000)].map((d) => String.fromCharCode(97 + Number(d))).join('')
const TABLE = `crm_claim_${suffix}`

const list = (page: Page) => page.getByTestId('entity-list-genTable')
const tableRow = (page: Page) => list(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: TABLE })

test.beforeAll(() => {
  // The table is made beside the running server, as a DBA would, with a comment-like hostile default label source.
  const db = new Database(databaseFile(), { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.exec(`create table ${TABLE} (
      claim_id integer primary key autoincrement,
      claim_no varchar(32) not null,
      customer_email varchar(100),
      amount decimal(10, 2),
      approved boolean not null default 0,
      filed_on date,
      create_time text not null
    )`)
  } finally {
    db.close()
  }
})

test.afterAll(async ({ request }) => {
  const token = await apiLogin(request)
  const { rows } = await call<{ rows: { tableId: number; tableName: string }[] }>(request, 'POST', '/tool/gen/list', token, { pageNum: 1, pageSize: 50, tableName: TABLE })
  for (const r of rows) await call(request, 'DELETE', `/tool/gen/${r.tableId}`, token)
  const db = new Database(databaseFile(), { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.exec(`drop table if exists ${TABLE}`)
  } finally {
    db.close()
  }
})

test('import a table, edit a column, preview the files and download them as a zip', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/tool/gen')
  await expect(list(page)).toBeVisible()

  // Import: the dialog lists the table, not the product's own.
  await page.getByTestId('gen-import').click()
  const dialog = page.getByTestId('gen-import-dialog')
  await expect(dialog).toBeVisible()
  await expect(dialog).toContainText(TABLE)
  await expect(dialog).not.toContainText('sys_user ')
  await dialog.locator('tr', { hasText: TABLE }).locator('input[type="checkbox"]').check()
  await saveScreen(page, 'tool-gen-import')
  await page.getByTestId('gen-import-ok').click()
  await expect(tableRow(page)).toBeVisible()

  // Edit: the label of one column, with characters that must come out as text.
  await clickRowAction(tableRow(page), 'row-gen-edit')
  await expect(page).toHaveURL(/\/tool\/gen\/edit/)
  await page.getByRole('tab', { name: 'Columns' }).click()
  const columns = page.getByTestId('gen-columns')
  const label = `Claim number */ process.exit() /* 'x'`
  await columns.getByLabel('Label (English) of claim_no').fill(label)
  await saveScreen(page, 'tool-gen-edit')
  await page.getByTestId('gen-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Saved successfully' })).toBeVisible()

  // Preview: a tab per file; the definition shows the new label as a string.
  await page.getByTestId('gen-preview-button').click()
  const preview = page.getByTestId('gen-preview')
  await expect(preview).toBeVisible()
  await expect(preview.getByRole('tab')).toHaveCount(5)
  await expect(preview).toContainText('defineEntity')
  await expect(preview).toContainText('process.exit()')
  await saveScreen(page, 'tool-gen-preview')
  await page.keyboard.press('Escape')
  await expect(preview).toBeHidden()

  // Download from the list: the zip holds the same files.
  await page.goto('/tool/gen')
  const downloading = page.waitForEvent('download')
  await clickRowAction(tableRow(page), 'row-gen-download')
  const download = await downloading
  const files = unzipSync(new Uint8Array(readFileSync(await download.path())))
  const names = Object.keys(files)
  expect(names.some((n) => /^packages\/shared\/src\/entities\/generated\/\w+\.ts$/.test(n) && !n.endsWith('index.ts'))).toBe(true)
  expect(names.some((n) => /^packages\/server\/src\/db\/migrations\/generated\/.+\.ts$/.test(n))).toBe(true)
  const definition = strFromU8(files[names.find((n) => /entities\/generated\/(?!index)\w+\.ts$/.test(n))!]!)
  // The label is a string literal: quotes escaped, the comment markers inert.
  expect(definition).toMatch(/label: \{[^}]*en_US: ['"]Claim number \*\/ process\.exit\(\) \/\* \\?'x\\?'['"]/)
  expect(definition.split('\n').filter((l) => l.includes('process.exit')).every((l) => /en_US: /.test(l))).toBe(true)
})
