import { readFile } from 'node:fs/promises'
import { expect, test, type Download, type Page } from '@playwright/test'
import ExcelJS from 'exceljs'
import { openSignedIn } from './support/session'
import { saveScreen } from './support/screens'

// Excel round trips on Countries, through the list page's toolbar and the import dialog.

const list = (page: Page) => page.getByTestId('entity-list-country')
const rows = (page: Page) => list(page).getByTestId('crud-table').locator('tbody tr.ant-table-row')

async function workbookOf(download: Download): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(await download.path())
  return workbook.worksheets[0]!
}

const texts = (row: ExcelJS.Row) => (row.values as ExcelJS.CellValue[]).slice(1).map((v) => (v === null || v === undefined ? '' : String(v)))

async function searchByName(page: Page, name: string) {
  await list(page).getByTestId('crud-search').getByLabel('English name').fill(name)
  await list(page).getByTestId('crud-search-submit').click()
}

async function importFile(page: Page, name: string, buffer: Buffer) {
  await list(page).getByTestId('crud-import').click()
  const dialog = page.getByRole('dialog')
  await dialog.locator('input[type=file]').setInputFiles({ name, mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer })
  await dialog.getByRole('button', { name: 'Import', exact: true }).click()
  return dialog
}

test('export, template, import, and a rejected import that changes nothing', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/system/country')
  await expect(rows(page).first()).toBeVisible()

  // Export after a confirmation: a workbook with the English header and the seeded rows.
  await list(page).getByTestId('crud-export').click()
  const exported = page.waitForEvent('download')
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click()
  const exportFile = await exported
  expect(exportFile.suggestedFilename()).toMatch(/\.xlsx$/)
  await expect(page.locator('.ant-message-success')).toContainText('Exported successfully')
  const sheet = await workbookOf(exportFile)
  expect(texts(sheet.getRow(1))).toEqual(expect.arrayContaining(['Code', 'Name', 'English name', 'Time zone', 'Status']))
  const header = texts(sheet.getRow(1))
  const japan = sheet.getRows(2, sheet.rowCount - 1)!.map(texts).find((r) => r[header.indexOf('Code')] === 'JP')
  expect(japan?.[header.indexOf('English name')]).toBe('Japan')
  expect(japan?.[header.indexOf('Time zone')]).toBe('Asia/Tokyo')
  expect(japan?.[header.indexOf('Status')]).toBe('Normal')

  // The template, filled in with two new countries.
  await list(page).getByTestId('crud-import').click()
  const templateDownload = page.waitForEvent('download')
  await page.getByTestId('import-template').click()
  const template = await workbookOf(await templateDownload)
  const columns = texts(template.getRow(1))
  expect(columns).toEqual(['Code', 'Name', 'English name', 'Time zone', 'Status', 'Remark'])
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
  const fill = (sheet: ExcelJS.Worksheet, at: number, values: Record<string, string>) =>
    columns.forEach((column, i) => {
      sheet.getCell(at, i + 1).value = values[column] ?? null
    })
  fill(template, 2, { Code: 'QA', Name: 'Qatar', 'English name': 'E2E Qatar', 'Time zone': 'Asia/Qatar', Status: 'Normal' })
  fill(template, 3, { Code: 'KZ', Name: 'Kazakhstan', 'English name': 'E2E Kazakhstan', 'Time zone': 'Asia/Almaty', Status: 'Disabled' })
  const good = Buffer.from(await template.workbook.xlsx.writeBuffer())

  let dialog = await importFile(page, 'countries.xlsx', good)
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Imported successfully' })).toBeVisible()
  await expect(page.getByTestId('import-done')).toContainText('2 rows added, 0 rows updated')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await searchByName(page, 'E2E')
  await expect(rows(page)).toHaveCount(2)
  await expect(rows(page).filter({ hasText: 'E2E Kazakhstan' })).toContainText('Disabled')

  // A file with one bad row (row 3: an unknown time zone) imports nothing and says where the problem is.
  fill(template, 2, { Code: 'OM', Name: 'Oman', 'English name': 'E2E Oman', 'Time zone': 'Asia/Muscat', Status: 'Normal' })
  fill(template, 3, { Code: 'BH', Name: 'Bahrain', 'English name': 'E2E Bahrain', 'Time zone': 'Asia/Nowhere', Status: 'Normal' })
  const bad = Buffer.from(await template.workbook.xlsx.writeBuffer())
  dialog = await importFile(page, 'countries-bad.xlsx', bad)
  const report = page.getByTestId('import-report')
  await expect(report).toContainText('Nothing was imported')
  const problem = report.locator('tbody tr').filter({ hasText: 'Time zone' })
  await expect(problem.locator('td').first()).toHaveText('3')
  await expect(problem).toContainText(/time zone/i)
  await saveScreen(page, 'import-report')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await list(page).getByTestId('crud-refresh').click()
  await expect(rows(page)).toHaveCount(2)
  await expect(list(page)).not.toContainText('E2E Oman')
})

test('an exported file imports back: refused as existing without update, updating the rows with it', async ({ page, baseURL }) => {
  // Issue 12: Dictionaries › Export, then Import of that file said 'Unknown column "ID"'.
  await openSignedIn(page, baseURL!, '/system/dict')
  const dicts = page.getByTestId('entity-list-dictType')
  const dictRows = dicts.getByTestId('crud-table').locator('tbody tr.ant-table-row')
  await expect(dictRows.first()).toBeVisible()

  await dicts.getByTestId('crud-export').click()
  const exported = page.waitForEvent('download')
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click()
  const file = await exported
  const sheet = await workbookOf(file)
  expect(texts(sheet.getRow(1))).toEqual(expect.arrayContaining(['ID', 'Dictionary name', 'Dictionary type', 'Created']))
  const count = sheet.rowCount - 1
  // The very bytes downloaded, not a copy rewritten.
  const bytes = await readFile(await file.path())

  const open = async () => {
    await dicts.getByTestId('crud-import').click()
    const dialog = page.getByRole('dialog')
    await dialog.locator('input[type=file]').setInputFiles({ name: file.suggestedFilename(), mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: bytes })
    return dialog
  }

  // Without "update": every row exists already, and each is named as such.
  let dialog = await open()
  await dialog.getByRole('button', { name: 'Import', exact: true }).click()
  const report = page.getByTestId('import-report')
  await expect(report).toContainText('Nothing was imported')
  await expect(report).toContainText('already exists: choose "Update rows that already exist" to change it')
  await expect(report).not.toContainText('Unknown column')
  await dialog.getByRole('button', { name: 'Cancel' }).click()

  // With it: the rows the file names are updated, none added.
  dialog = await open()
  await dialog.getByTestId('import-update').check()
  await dialog.getByRole('button', { name: 'Import', exact: true }).click()
  await expect(page.getByTestId('import-done')).toContainText(`0 rows added, ${count} rows updated`)
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await dicts.getByTestId('crud-refresh').click()
  await expect(dictRows.first()).toBeVisible()
})
