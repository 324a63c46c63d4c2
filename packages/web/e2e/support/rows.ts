import { expect, type Locator } from '@playwright/test'
import { expectSuccessMessage } from './messages'

/**
 * Clicks one of a row's actions: its button, or, as a row shows two actions and puts the rest in
 * More, the item of the row's More menu.
 */
export async function clickRowAction(row: Locator, testId: string): Promise<void> {
  const button = row.getByTestId(testId)
  const more = row.getByTestId('row-more')
  // Which of the two the row offers is known once its actions are drawn (a list still loading has no row yet).
  await expect(button.or(more).first()).toBeVisible()
  if (await button.count()) return button.click()
  await more.click()
  await row.page().locator('.ant-dropdown:visible').getByTestId(testId).click()
}

/**
 * Submits an operation dialog once its button is enabled, and expects the step's success message
 * containing `message`.
 */
export async function submitOperation(dialog: Locator, message: string): Promise<void> {
  const submit = dialog.getByTestId('operation-submit')
  await expect(submit).toBeEnabled()
  await expectSuccessMessage(dialog.page(), message, () => submit.click())
}
