import type { Locator } from '@playwright/test'

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
