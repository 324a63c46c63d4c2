import { expect, type Page } from '@playwright/test'

declare global {
  interface Window {
    /** The success messages the page has shown, in order (see expectSuccessMessage). */
    e2eSuccessMessages?: string[]
  }
}

/**
 * Runs `action` and expects it to show a success message containing `text`. A message shows for
 * three seconds; on a busy machine a check started once the action has returned can look only after
 * it has gone, so the page notes each message as it appears and the check reads those notes.
 */
export async function expectSuccessMessage(page: Page, text: string, action: () => Promise<unknown>): Promise<void> {
  const before = await page.evaluate(() => {
    if (!window.e2eSuccessMessages) {
      const seen: string[] = (window.e2eSuccessMessages = [])
      const noted = new WeakSet<Element>()
      const note = () => {
        for (const message of document.querySelectorAll('.ant-message-success')) {
          if (noted.has(message)) continue
          noted.add(message)
          seen.push(message.textContent ?? '')
        }
      }
      note()
      new MutationObserver(note).observe(document.body, { childList: true, subtree: true })
    }
    return window.e2eSuccessMessages.length
  })
  await action()
  await expect.poll(async () => (await page.evaluate(() => window.e2eSuccessMessages ?? [])).slice(before), { message: `a success message with "${text}"` }).toContainEqual(expect.stringContaining(text))
}
