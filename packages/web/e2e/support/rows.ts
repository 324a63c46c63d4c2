import { expect, type Locator } from '@playwright/test'

/**
 * Clicks one of a row's actions: its button, or, as a row shows two actions and puts the rest in
 * More, the item of the row's More menu.
 */
export async function clickRowAction(row: Locator, testId: string): Promise<void> {
  const button = row.getByTestId(testId)
  if (await button.count()) return button.click()
  await row.getByTestId('row-more').click()
  await row.page().locator('.ant-dropdown:visible').getByTestId(testId).click()
}

/**
 * Submits an operation dialog and waits for `done`. A click while the dialog still zooms in can be
 * lost on a busy machine, so the button is clicked again, but only while the dialog is open and not
 * already sending, so a step never runs twice.
 */
export async function submitOperation(dialog: Locator, done: Locator): Promise<void> {
  const submit = dialog.getByTestId('operation-submit')
  await expect(async () => {
    const sending = ((await submit.getAttribute('class', { timeout: 500 }).catch(() => null)) ?? '').includes('ant-btn-loading')
    if (!sending && (await submit.isVisible())) await submit.click({ timeout: 2_000 })
    await expect(done).toBeVisible({ timeout: 3_000 })
  }).toPass({ timeout: 20_000 })
}
