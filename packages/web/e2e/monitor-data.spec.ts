import { expect, test } from '@playwright/test'
import { openSignedIn } from './support/session'
import { saveScreen } from './support/screens'
import { openFromSidebar } from './support/menu'

// Monitoring › Data and backups: the database's size and largest tables, Run now on the backup
// schedule followed until it finished, and the new backup listed with its checksum. The backup is a
// folder in the server's temporary data (removed with the e2e server); its job is the admin's own,
// which no other spec counts.

test('Data and backups: the database figures, a backup run now and listed, in Chinese too', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await openFromSidebar(page, 'Monitoring', 'Data and backups', /\/monitor\/data$/)
  await expect(page.getByTestId('monitor-data-page')).toBeVisible()

  // The database: its size, and the demo's rides (the bulk of its rows) among the largest tables.
  // (The operation log is among them only after other specs filled it: not when this one runs alone.)
  await expect(page.getByTestId('database-size')).toHaveText(/^\d+(\.\d+)? (B|KB|MB|GB)$/)
  const rides = page.getByTestId('database-tables').getByTestId('table-usage-mem_ride')
  await expect(rides).toBeVisible()
  // Thousands of rides: their count grouped as English writes it.
  await expect(rides).toContainText(/\d{1,3}(,\d{3})+/)

  // Run now on Backup, confirmed: the last run becomes the admin's and ends Finished.
  const backup = page.getByTestId('schedule-backup')
  const before = await page.getByTestId('backups-table').locator('tbody tr[data-testid^="backup-"]').count()
  await backup.getByTestId('schedule-run-backup').click()
  await page.getByRole('dialog').getByRole('button', { name: 'Run now' }).click()
  // The top bar's jobs list opens for a job started here; it would cover the page.
  const jobs = page.getByTestId('jobs-list')
  await expect(jobs).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(jobs).toBeHidden()
  await expect(backup.getByTestId('schedule-state-backup')).toHaveAttribute('data-state', 'succeeded')
  await expect(backup).toContainText('admin')
  const result = backup.getByTestId('schedule-result-backup')
  await expect(result).toContainText('velo-')

  // The new backup is listed, newest first, made by hand, with its checksum OK.
  const rows = page.getByTestId('backups-table').locator('tbody tr[data-testid^="backup-"]')
  await expect(rows).toHaveCount(before + 1)
  const newest = rows.first()
  const name = (await result.textContent())!.split(' · ')[0]!
  await expect(newest).toHaveAttribute('data-testid', `backup-${name}`)
  await expect(newest.getByTestId('backup-checksum')).toHaveAttribute('data-ok', 'true')
  await expect(newest).toContainText('OK')
  await expect(newest).toContainText('SQLite')
  await expect(page.getByTestId('backups-restore')).toContainText('npm run restore')
  await saveScreen(page, 'monitor-data')

  // In Chinese: the page's own titles.
  await page.getByTestId('navbar').getByTestId('language-select').click()
  await page.getByRole('menuitem', { name: '中文' }).click()
  await expect(page.getByTestId('schedules-card')).toContainText('定时维护')
  await expect(backup).toContainText('立即执行')
  await expect(page.getByTestId('sidebar')).toContainText('数据与备份')
})
