import { expect, test, type Page } from '@playwright/test'
import { apiLogin, openSignedIn } from './support/session'
import { saveScreen } from './support/screens'

// What staff see on a phone (390 px), on a laptop (1440 px) and in Chinese (issue 36): a list shows
// each row's name beside its actions, the member drawer stays within the screen and the breadcrumb
// above the tags bar, no column is cut under the fixed Actions column, and data named in the
// database (a member's country, a dictionary value) reads in the reader's language. The screenshots
// (e2e/screenshots/narrow-*.png) are for review.

const PHONE = { width: 390, height: 844 }
const LAPTOP = { width: 1440, height: 900 }

async function openIn(page: Page, baseURL: string, lang: 'en_US' | 'zh_CN', path: string) {
  await openSignedIn(page, baseURL)
  await page.evaluate((l) => localStorage.setItem('user_lang', l), lang)
  await page.goto(path)
  await page.waitForLoadState('networkidle')
}

for (const { lang, short } of [
  { lang: 'en_US', short: 'en' },
  { lang: 'zh_CN', short: 'zh' },
] as const) {
  test(`at 390 px in ${short} a list shows each row's name beside its actions`, async ({ page, baseURL }) => {
    await page.setViewportSize(PHONE)
    for (const { name, path, entity } of [
      { name: 'users', path: '/system/user', entity: 'user' },
      { name: 'members', path: '/member/member', entity: 'member' },
    ]) {
      await openIn(page, baseURL!, lang, path)
      const list = page.getByTestId(`entity-list-${entity}`)
      const cards = list.getByTestId('crud-card')
      await expect(cards.first()).toBeVisible()
      await saveScreen(page, `narrow-${name}-390-${short}`)
      for (const card of (await cards.all()).slice(0, 3)) {
        const key = card.getByTestId('crud-card-key')
        const actions = card.getByTestId('crud-card-actions')
        await expect(key).not.toBeEmpty()
        await expect(actions.getByRole('button').first()).toBeVisible()
        // The card, its name and its actions lie within the screen's width.
        for (const part of [card, key, actions]) {
          const box = (await part.boundingBox())!
          expect(box.x, `${name}: left edge`).toBeGreaterThanOrEqual(0)
          expect(box.x + box.width, `${name}: right edge`).toBeLessThanOrEqual(PHONE.width)
        }
      }
      // The page itself does not scroll sideways.
      const wide = await page.evaluate(() => document.documentElement.scrollWidth)
      expect(wide).toBeLessThanOrEqual(PHONE.width)
    }
  })
}

test('at 390 px the member drawer stays within the screen and the breadcrumb above the tags bar', async ({ page, baseURL }) => {
  await page.setViewportSize(PHONE)
  await openIn(page, baseURL!, 'en_US', '/member/member')
  const breadcrumb = (await page.getByTestId('breadcrumb').boundingBox())!
  const tags = (await page.locator('.tags-view-container').boundingBox())!
  expect(breadcrumb.y + breadcrumb.height, 'the breadcrumb runs into the tags bar').toBeLessThanOrEqual(tags.y + 1)

  await page.getByTestId('row-details').first().click()
  const details = page.getByTestId('entity-details')
  await expect(details).toBeVisible()
  await page.waitForLoadState('networkidle')
  await saveScreen(page, 'narrow-member-drawer-390-en')
  const drawer = (await page.locator('.ant-drawer-content-wrapper').boundingBox())!
  expect(drawer.x + drawer.width, 'the drawer').toBeLessThanOrEqual(PHONE.width + 1)
  const fields = (await details.boundingBox())!
  expect(fields.x + fields.width, 'the member fields').toBeLessThanOrEqual(PHONE.width + 1)
  // Nothing in the drawer's body is wider than the body (cut on the right).
  const body = await page.locator('.ant-drawer-body').evaluate((b) => ({ content: b.scrollWidth, visible: b.clientWidth }))
  expect(body.content).toBeLessThanOrEqual(body.visible + 1)
})

for (const lang of ['en_US', 'zh_CN'] as const) {
  test(`at 1440 px in ${lang} no column of the Agreements list is cut under the fixed Actions column`, async ({ page, baseURL }) => {
    await page.setViewportSize(LAPTOP)
    await openIn(page, baseURL!, lang, '/content/protocol')
    const table = page.getByTestId('entity-list-protocol').getByTestId('crud-table')
    await table.locator('tbody tr.ant-table-row').first().waitFor()
    await page.waitForTimeout(500)
    const cut = await table.evaluate((root) => {
      const headers = [...root.querySelectorAll<HTMLElement>('thead th')]
      const fixed = (th: HTMLElement) => th.classList.contains('ant-table-cell-fix-right') || th.classList.contains('ant-table-cell-fix-end')
      const actions = headers.find(fixed)!.getBoundingClientRect()
      return headers
        .filter((th) => !fixed(th))
        .filter((th) => {
          const box = th.getBoundingClientRect()
          return box.left < actions.left - 1 && box.right > actions.left + 1
        })
        .map((th) => th.textContent)
    })
    expect(cut, 'columns cut by the Actions column').toEqual([])
  })
}

test('in Chinese a member country and dictionary values read in Chinese, in the list and the details', async ({ page, baseURL }) => {
  await page.setViewportSize(LAPTOP)
  await openIn(page, baseURL!, 'zh_CN', '/member/member')
  const list = page.getByTestId('entity-list-member')
  await list.locator('tbody tr.ant-table-row').first().waitFor()
  const search = page.getByTestId('entity-list-member').locator('.crud-search')
  await expect(search).toBeVisible()
  const table = list.getByTestId('crud-table')
  // The demo has members in the Netherlands and elsewhere in Europe: their countries in Chinese.
  await expect(table).not.toContainText('Netherlands')
  await expect(table).not.toContainText('Germany')
  await expect(table.locator('tbody')).toContainText(/中国|荷兰|德国|比利时|卢森堡|瑞士|奥地利|法国/)
  // A dictionary value (gender) in Chinese.
  await expect(table.locator('tbody')).toContainText(/男|女/)
  await expect(table.locator('tbody')).not.toContainText(/\bMale\b|\bFemale\b/)
  await saveScreen(page, 'narrow-members-1440-zh')

  await list.getByTestId('row-details').first().click()
  const details = page.getByTestId('entity-details')
  await expect(details).toBeVisible()
  // The first member's country as the server names it to a Chinese reader, which the details show.
  const token = await apiLogin(page.request)
  const answer = await page.request.post('/api/member/member/list', { headers: { Authorization: token, currentLanguage: 'zh_CN' }, data: { pageNum: 1, pageSize: 1 } })
  const country = ((await answer.json()) as { data: { rows: { countryIdLabel: string | null }[] } }).data.rows[0]!.countryIdLabel
  if (country) {
    expect(country).toMatch(/[\u4e00-\u9fff]/)
    await expect(details).toContainText(country)
  }
})

test('in English the Agreements fields say agreement, not protocol', async ({ page, baseURL }) => {
  await page.setViewportSize(LAPTOP)
  await openIn(page, baseURL!, 'en_US', '/content/protocol')
  const list = page.getByTestId('entity-list-protocol')
  await list.locator('tbody tr.ant-table-row').first().waitFor()
  await expect(list.locator('thead')).toContainText('Agreement name')
  await expect(list.locator('thead')).toContainText('Agreement type')
  await expect(list.locator('thead')).toContainText('Agreement language')
  await expect(list).not.toContainText(/protocol/i)
  await list.getByTestId('crud-add').click()
  const form = page.locator('.ant-modal:visible, .ant-drawer:visible').last()
  await expect(form).toContainText('Agreement content')
  await expect(form).not.toContainText(/protocol/i)
})
