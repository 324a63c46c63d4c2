import { expect, test, type Page } from '@playwright/test'
import type { JobInfo } from '@velo/shared'
import { apiLogin, call, openSignedIn } from './support/session'
import { saveScreen } from './support/screens'
import { openFromSidebar } from './support/menu'

// Monitoring › Jobs: exports started as background jobs through the API show on the page, reach
// Finished (one already done when the page opens, one started while it is open and followed live),
// and the finished file downloads.

const jobRow = (page: Page, jobId: number) => page.getByTestId('jobs-table').getByTestId(`job-row-${jobId}`)

test('an export queued as a job shows under Monitoring › Jobs, finishes and downloads', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  // The login log has rows: every sign-in of the specs wrote one.
  const first = await call<JobInfo>(page.request, 'POST', '/monitor/logininfor/export/job', token, {})
  expect(first.state).toBe('queued')

  // Through the menu: Monitoring › Jobs.
  await openSignedIn(page, baseURL!)
  await openFromSidebar(page, 'Monitoring', 'Jobs', /\/monitor\/job$/)
  await expect(page.getByTestId('jobs-page')).toBeVisible()
  await expect(page.getByTestId('jobs-live')).toHaveAttribute('data-status', 'open')

  const row = jobRow(page, first.jobId)
  await expect(row).toContainText(first.title)
  await expect(row).toContainText('admin')
  await expect(row.getByTestId(`job-state-${first.jobId}`)).toHaveAttribute('data-state', 'succeeded')
  await expect(row.getByTestId(`job-state-${first.jobId}`)).toHaveText('Finished')

  // Started while the page is open: it appears and finishes without a reload.
  const second = await call<JobInfo>(page.request, 'POST', '/system/country/export/job', token, {})
  const live = jobRow(page, second.jobId)
  await expect(live).toBeVisible()
  await expect(live.getByTestId(`job-state-${second.jobId}`)).toHaveAttribute('data-state', 'succeeded')
  await expect(live.getByTestId('row-download')).toBeVisible()
  await expect(live.getByTestId('row-cancel')).toHaveCount(0)
  await saveScreen(page, 'monitor-jobs')

  const download = page.waitForEvent('download')
  await row.getByTestId('row-download').click()
  const file = await download
  expect(file.suggestedFilename()).toMatch(/\.xlsx$/)
  const info = await call<JobInfo>(page.request, 'GET', `/monitor/job/${first.jobId}`, token)
  expect(file.suggestedFilename()).toBe(info.fileName)
})

test("Scheduled work lists what the server does by itself, with each sweep's last run", async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await openFromSidebar(page, 'Monitoring', 'Jobs', /\/monitor\/job$/)
  await page.getByTestId('jobs-tab-scheduled').click()
  const work = page.getByTestId('scheduled-work')
  await expect(work.getByTestId('scheduled-backup')).toContainText('Back up the database')
  // The OTA rollout ticks every second on one server of the deployment: it has run, and went well.
  const rollout = work.getByTestId('scheduled-otaRollout')
  await expect(rollout).toContainText('Every 1 s, on one server')
  await expect(rollout).toContainText('OK')
  await expect(work.getByTestId('scheduled-devicePresence')).toContainText('Every 10 s, on one server')
  await saveScreen(page, 'monitor-jobs-scheduled')
})
