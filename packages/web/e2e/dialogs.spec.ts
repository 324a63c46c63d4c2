import { expect, test, type Page } from '@playwright/test'
import { apiLogin, call, openSignedIn, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'
import { sheetRowsOf } from './support/excel'

// Issue 36, "Dialogs and forms": what staff see in the kit's dialogs. A step's dialog shows the row it
// is about (the feedback beside the reply box); a filled form asks before its changes are dropped;
// the role's permission tree can be searched, opened, closed and ticked whole; a page the user has no
// right to says so instead of sending them Home.

interface ListPage<T> {
  rows: T[]
  total: number
}

interface Feedback {
  feedbackId: number
  memberId: number
  memberIdLabel?: string
  stars: number
  /** The app language it was written in ('' when not known). */
  language: string
  content: string
  image1: string | null
  tagIds?: number[]
}

/** The app languages as the console names them, in English and Chinese. */
const LANGUAGE_NAMES: Record<string, [string, string]> = { en_US: ['English', '英语'], de_DE: ['German', '德语'], nl_NL: ['Dutch', '荷兰语'], fr_FR: ['French', '法语'] }

const rowsOf = (page: Page, entity: string) => page.getByTestId(`entity-list-${entity}`).getByTestId('crud-table').locator('tbody tr.ant-table-row')

/** A feedback item with its language, and a picture when the demo has one, so the dialog has all of it to show. */
async function someFeedback(page: Page, token: string): Promise<Feedback> {
  const list = await call<ListPage<Feedback>>(page.request, 'POST', '/member/feedback/list', token, { pageNum: 1, pageSize: 50 })
  expect(list.rows.length, 'the demo data has feedback').toBeGreaterThan(0)
  const withPicture = list.rows.find((f) => f.image1 && f.language) ?? list.rows.find((f) => f.language) ?? list.rows[0]!
  return call<Feedback>(page.request, 'GET', `/member/feedback/${withPicture.feedbackId}`, token)
}

async function openReply(page: Page, item: Feedback) {
  const row = rowsOf(page, 'feedback').and(page.locator(`[data-row-key="${item.feedbackId}"]`))
  await expect(row).toHaveCount(1)
  await clickRowAction(row, 'row-action-reply')
  const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await expect(dialog).toBeVisible()
  return dialog
}

test('the Reply dialog shows the feedback it answers: member, stars, language, tags, the whole text and its pictures (English and Chinese)', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const item = await someFeedback(page, token)
  const language = LANGUAGE_NAMES[item.language]
  expect(language, 'the demo feedback says the language it was written in').toBeTruthy()
  await openSignedIn(page, baseURL!, `/member/feedback?memberId=${item.memberId}`)
  // The list names the language too.
  await expect(rowsOf(page, 'feedback').and(page.locator(`[data-row-key="${item.feedbackId}"]`))).toContainText(language![0])

  const dialog = await openReply(page, item)
  // Titled with what it is about, not a bare number.
  await expect(dialog.locator('.ant-modal-title')).toHaveText(`Reply: feedback ${item.feedbackId}`)
  const context = dialog.getByTestId('operation-context')
  await expect(context).toBeVisible()
  await expect(context.getByTestId('operation-context-content')).toHaveText(item.content)
  await expect(context.getByTestId('operation-context-stars')).toContainText(String(item.stars))
  await expect(context.getByTestId('operation-context-memberId')).not.toBeEmpty()
  // The language to reply in, named in the reader's language.
  await expect(context.getByTestId('operation-context-language')).toHaveText(language![0])
  if (item.image1) await expect(context.getByTestId('operation-context-image1').locator('img')).toBeVisible()
  // The reply box is beside the feedback, not below it.
  const box = await dialog.getByLabel('Reply').boundingBox()
  const shown = await context.boundingBox()
  expect(box!.x, 'the reply box is to the right of the feedback').toBeGreaterThan(shown!.x + shown!.width - 1)
  await saveScreen(page, 'dialogs-reply-en')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toHaveCount(0)

  // The same in Chinese.
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  await page.reload()
  const zh = await openReply(page, item)
  await expect(zh.locator('.ant-modal-title')).toHaveText(`回复：反馈 ${item.feedbackId}`)
  await expect(zh.getByTestId('operation-context')).toContainText('反馈信息')
  await expect(zh.getByTestId('operation-context-content')).toHaveText(item.content)
  await expect(zh.getByTestId('operation-context-language')).toHaveText(language![1])
  await saveScreen(page, 'dialogs-reply-zh')
  await page.evaluate(() => localStorage.setItem('user_lang', 'en_US'))
})

test('a filled form asks before Esc, Cancel or a click outside drops its changes; an untouched one closes at once', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const item = await someFeedback(page, token)
  await openSignedIn(page, baseURL!, `/member/feedback?memberId=${item.memberId}`)

  // A step's dialog.
  const reply = await openReply(page, item)
  await reply.getByLabel('Reply').fill('Thank you for writing')
  await page.keyboard.press('Escape')
  const ask = page.locator('.form-confirm-discard')
  await expect(ask).toContainText('Discard your changes?')
  await ask.getByRole('button', { name: 'Keep editing' }).click()
  await expect(ask).toHaveCount(0)
  await expect(reply.getByLabel('Reply')).toHaveValue('Thank you for writing')
  await expect(reply.getByLabel('Reply'), 'back in the field that was changed').toBeFocused()
  await reply.getByRole('button', { name: 'Cancel' }).click()
  await page.getByTestId('form-discard-ok').click()
  await expect(reply).toHaveCount(0)

  // The kit's add form: a click outside asks too; untouched, it closes without a question.
  await page.goto('/system/config')
  const list = page.getByTestId('entity-list-config')
  await list.getByTestId('crud-add').click()
  const form = page.getByRole('dialog').filter({ has: page.getByTestId('entity-form') })
  await expect(form).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(form).toHaveCount(0)
  await expect(ask).toHaveCount(0)

  await list.getByTestId('crud-add').click()
  await expect(form).toBeVisible()
  await form.getByLabel('Name', { exact: true }).fill('Night shift lead')
  await page.mouse.click(10, 450)
  await expect(ask).toBeVisible()
  await ask.getByRole('button', { name: 'Keep editing' }).click()
  await expect(form.getByLabel('Name', { exact: true })).toHaveValue('Night shift lead')
  // The click outside had taken the focus out of the form: keeping on brings it back, so Esc asks again.
  await expect(form.getByLabel('Name', { exact: true })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(ask).toBeVisible()
  await page.getByTestId('form-discard-ok').click()
  await expect(form).toHaveCount(0)
})

test("the role's permission tree has a search, expand and collapse all, select all and none, and a count", async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/system/role')
  await page.getByTestId('entity-list-role').getByTestId('crud-add').click()
  const tree = page.getByTestId('role-menu-tree')
  await expect(tree).toContainText('System users')
  const nodes = tree.locator('.ant-tree-treenode:visible')
  const all = await nodes.count()
  expect(all, 'the whole tree is open at first').toBeGreaterThan(100)

  // Search: the page found, with its folder above it and its buttons below it; nothing else.
  await tree.getByTestId('role-menu-tree-search').locator('input').fill('dictionaries')
  await expect(tree.locator('mark')).toContainText(['Dictionaries'])
  const found = await nodes.allInnerTexts()
  expect(found.map((s) => s.trim())).toEqual(expect.arrayContaining(['System', 'Dictionaries', 'List', 'Query']))
  expect(found.length).toBeLessThan(20)
  // Ticking what was found keeps what the search hides, and the count follows.
  await tree.locator('.ant-tree-treenode:visible', { hasText: 'Dictionaries' }).first().locator('.ant-tree-checkbox').click()
  await expect(tree.getByTestId('role-menu-tree-count')).toHaveText(/^\d+ of \d+ ticked$/)
  const afterTick = await tree.getByTestId('role-menu-tree-count').innerText()
  expect(afterTick.startsWith('0 ')).toBe(false)
  await tree.getByTestId('role-menu-tree-search').locator('input').fill('')
  await expect(nodes).toHaveCount(all)

  // Collapse all leaves the top folders; expand all opens everything again.
  await tree.getByTestId('role-menu-tree-collapse').click()
  const top = await nodes.count()
  expect(top).toBeLessThan(20)
  await tree.getByTestId('role-menu-tree-expand').click()
  await expect(nodes).toHaveCount(all)

  // Select all and none.
  await tree.getByTestId('role-menu-tree-all').click()
  const count = await tree.getByTestId('role-menu-tree-count').innerText()
  const [ticked, total] = count.match(/\d+/g)!.map(Number)
  expect(ticked).toBe(total)
  await expect(tree.locator('.ant-tree-checkbox-checked')).toHaveCount(all)
  await tree.getByTestId('role-menu-tree-none').click()
  await expect(tree.locator('.ant-tree-checkbox-checked')).toHaveCount(0)
  await expect(tree.getByTestId('role-menu-tree-count')).toHaveText(`0 of ${total} ticked`)
})

test('a page the user has no right to shows the 401 page where it was asked; an unknown address the 404 page', async ({ page, baseURL, browser }) => {
  const token = await openSignedIn(page, baseURL!)
  const depts = await call<{ value: number; label: string }[]>(page.request, 'GET', '/system/dept/options', token)
  const { rows: roles } = await call<ListPage<{ roleId: number; roleKey: string }>>(page.request, 'POST', '/system/role/list', token, { pageNum: 1, pageSize: 10, roleKey: 'common' })
  const user = { username: `noroles${Date.now() % 1_000_000}`, password: 'noroles-pass1' }
  await call(page.request, 'POST', '/system/user', token, {
    userName: user.username,
    nickName: 'Common staff',
    deptId: depts[0]!.value,
    password: user.password,
    email: `${user.username}@example.com`,
    phonenumber: '+31 20 555 0177',
    roleIds: [roles.find((r) => r.roleKey === 'common')!.roleId],
  })

  const context = await browser.newContext()
  try {
    const theirs = await context.newPage()
    await useToken(context, baseURL!, await apiLogin(theirs.request, user))
    await theirs.goto('/system/role')
    await expect(theirs.getByTestId('navbar')).toBeVisible()
    await expect(theirs.locator('.ant-result')).toContainText('401')
    await expect(theirs.locator('.ant-result')).toContainText('not allowed to see this page')
    // The address stays: they can tell an administrator which page they were refused.
    expect(new URL(theirs.url()).pathname).toBe('/system/role')
    await saveScreen(theirs, 'dialogs-401')

    await theirs.goto('/no/such/page')
    await expect(theirs.locator('.ant-result')).toContainText('404')
    expect(new URL(theirs.url()).pathname).toBe('/no/such/page')
  } finally {
    await context.close()
  }
})

test('Generate asks its preview only for a complete input: no refused request and no console error while the count is empty', async ({ page, baseURL }) => {
  const previews: number[] = []
  const errors: string[] = []
  page.on('response', (r) => {
    if (r.url().endsWith('/preview')) previews.push(r.status())
  })
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  await openSignedIn(page, baseURL!, '/order/deviceOrder')
  // An order that still offers Generate numbers.
  const row = rowsOf(page, 'deviceOrder').filter({ has: page.getByTestId('row-action-generate') }).first()
  await row.getByTestId('row-action-generate').click()
  const dialog = page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
  await expect(dialog).toBeVisible()
  // Given time to ask (the preview rests 300 ms): nothing is asked for an empty count.
  await page.waitForTimeout(1500)
  expect(previews, 'no preview of an empty count').toEqual([])
  await expect(dialog.getByTestId('operation-preview')).toHaveCount(0)

  await dialog.getByLabel('Count').fill('3')
  await expect(dialog.getByTestId('operation-preview')).toBeVisible()
  await dialog.getByLabel('Count').fill('')
  await expect(dialog.getByTestId('operation-preview')).toHaveCount(0)
  await page.waitForTimeout(1000)
  expect(previews.length).toBeGreaterThan(0)
  expect(previews.filter((s) => s >= 400), 'no refused preview').toEqual([])
  expect(errors, 'nothing the user did not cause in the console').toEqual([])
  await page.keyboard.press('Escape')
  await page.getByTestId('form-discard-ok').click({ timeout: 2000 }).catch(() => undefined)
})

test("Export says how many rows it will write and writes them in the list's current sort", async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!, '/system/country')
  const list = page.getByTestId('entity-list-country')
  await expect(rowsOf(page, 'country').first()).toBeVisible()
  // Sorted by English name, Z to A: a click for ascending, another for descending.
  const header = list.locator('th', { hasText: 'English name' })
  await header.click()
  await header.click()
  await expect(header).toHaveAttribute('aria-sort', 'descending')
  const { rows, total } = await call<ListPage<{ nameEn: string }>>(page.request, 'POST', '/system/country/list', token, { pageNum: 1, pageSize: 500, orderByColumn: 'nameEn', isAsc: 'descending' })

  await list.getByTestId('crud-export').click()
  const ask = page.locator('.ant-modal-confirm:visible', { hasText: 'Export every' })
  await expect(ask).toContainText(`(${total.toLocaleString('en-US')} rows), in the list's order?`)
  const exported = page.waitForEvent('download')
  await ask.getByRole('button', { name: 'OK' }).click()
  const sheet = await sheetRowsOf(await exported)
  const column = sheet[0]!.indexOf('English name')
  expect(sheet.slice(1).map((r) => r[column])).toEqual(rows.map((r) => r.nameEn))
})
