import { expect, test, type Locator, type Page } from '@playwright/test'
import { apiLogin, call, openSignedIn, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// A role made through the UI limits what its users see: the sidebar, the rows (data scope
// "Department and below") and the buttons (permissions).

const suffix = String(Date.now() % 1_000_000)
const ROLE = { name: `Sales desk ${suffix}`, key: `salesdesk${suffix}` }
const CLERK = { username: `clerk${suffix}`, password: 'clerk-pass1' }
const EUROPE = { userName: `europe${suffix}`, dept: 'Sales Europe' }
const RESEARCH = { userName: `research${suffix}`, dept: 'Research & Development' }

const rows = (page: Page, entity: string) => page.getByTestId(`entity-list-${entity}`).getByTestId('crud-table').locator('tbody tr.ant-table-row')

/** Ticks the buttons (by title) under a page of the role form's menu tree; the tree is flat in the DOM, in order. */
async function tickButtons(tree: Locator, pageTitle: string, buttons: string[]) {
  const nodes = tree.locator('.ant-tree-treenode')
  const titles = (await nodes.allInnerTexts()).map((s) => s.trim())
  const at = titles.indexOf(pageTitle)
  expect(at, pageTitle).toBeGreaterThanOrEqual(0)
  for (const button of buttons) {
    const offset = titles.slice(at + 1).indexOf(button)
    expect(offset, `${pageTitle} › ${button}`).toBeGreaterThanOrEqual(0)
    await nodes.nth(at + 1 + offset).locator('.ant-tree-checkbox').click()
  }
}

test.beforeAll(async ({ request }) => {
  // One user in a department below Sales, one outside it, made through the API.
  const token = await apiLogin(request)
  const depts = await call<{ value: number; label: string }[]>(request, 'GET', '/system/dept/options', token)
  for (const u of [EUROPE, RESEARCH]) {
    const deptId = depts.find((d) => d.label === u.dept)!.value
    await call(request, 'POST', '/system/user', token, {
      userName: u.userName,
      nickName: u.userName,
      deptId,
      password: 'other-pass1',
      email: `${u.userName}@example.com`,
      phonenumber: '+31 20 123 4567',
    })
  }
})

test('a role made in the UI limits menus, rows and buttons of its users', async ({ page, baseURL, browser }) => {
  await openSignedIn(page, baseURL!, '/system/role')
  const roles = page.getByTestId('entity-list-role')
  await expect(rows(page, 'role').first()).toBeVisible()

  // The role: System users (list, query, add) and Dictionaries (list, query).
  await roles.getByTestId('crud-add').click()
  const form = page.getByTestId('entity-form')
  await form.getByLabel('Role name').fill(ROLE.name)
  await form.getByLabel('Role code').fill(ROLE.key)
  const tree = page.getByTestId('role-menu-tree')
  await expect(tree).toContainText('System users')
  await tickButtons(tree, 'System users', ['List', 'Query', 'Add'])
  await tickButtons(tree, 'Dictionaries', ['List', 'Query'])
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()

  // Its data scope: the user's department and below.
  await clickRowAction(rows(page, 'role').filter({ hasText: ROLE.name }), 'row-data-scope')
  await page.getByTestId('data-scope-select').click()
  await page.locator('.ant-select-dropdown:visible').getByText('Department and below', { exact: true }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Modified successfully' })).toBeVisible()
  await expect(rows(page, 'role').filter({ hasText: ROLE.name })).toContainText('Department and below')

  // A user in Sales with that role.
  await page.goto('/system/user')
  await page.getByTestId('entity-list-user').getByTestId('crud-add').click()
  const userForm = page.getByTestId('entity-form')
  await userForm.getByLabel('User name').fill(CLERK.username)
  await userForm.getByLabel('Nickname').fill('Sales clerk')
  await userForm.getByLabel('Department').click()
  await page.locator('.ant-select-dropdown:visible').getByTitle('Sales', { exact: true }).click()
  await userForm.getByLabel('Password').fill(CLERK.password)
  await userForm.getByLabel('Email').fill(`${CLERK.username}@example.com`)
  await userForm.getByLabel('Phone').fill('+31 20 765 4321')
  await userForm.getByLabel('Roles').click()
  await page.locator('.ant-select-dropdown:visible').getByTitle(ROLE.name, { exact: true }).click()
  await page.keyboard.press('Escape')
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()
  await expect(rows(page, 'user').filter({ hasText: CLERK.username })).toContainText('Sales')

  // Signed in as that user (a browser of their own).
  const context = await browser.newContext({ baseURL })
  const clerk = await context.newPage()
  await useToken(context, baseURL!, await apiLogin(clerk.request, CLERK))
  await clerk.goto('/system/user')
  const sidebar = clerk.getByTestId('sidebar')
  await expect(sidebar.getByRole('menuitem', { name: 'System users' })).toBeVisible()
  await expect(sidebar.getByRole('menuitem', { name: 'Dictionaries' })).toBeVisible()
  // Only the fixed Home, the System directory and its two pages.
  await expect(sidebar.getByRole('menuitem')).toHaveText([/Home/, /System/, /System users/, /Dictionaries/])

  // Rows: Sales and below (the clerk, Sales Europe), not R&D nor the admin at HQ.
  const users = clerk.getByTestId('entity-list-user')
  await expect(rows(clerk, 'user').filter({ hasText: EUROPE.userName })).toBeVisible()
  await expect(rows(clerk, 'user').filter({ hasText: CLERK.username })).toBeVisible()
  await expect(rows(clerk, 'user')).toHaveCount(2)
  await expect(users).not.toContainText(RESEARCH.userName)
  await expect(users.getByTestId('tree-panel-dept')).not.toContainText('Research & Development')

  // Buttons: add only; no modify, delete, export, import, reset password, status switch.
  await expect(users.getByTestId('crud-add')).toBeVisible()
  for (const id of ['crud-edit', 'crud-delete', 'crud-export', 'crud-import', 'row-edit', 'row-delete', 'row-reset-password', 'row-more']) {
    await expect(users.getByTestId(id)).toHaveCount(0)
  }
  await expect(users.locator('.ant-switch')).toHaveCount(0)
  await saveScreen(clerk, 'system-access-users')

  await sidebar.getByRole('menuitem', { name: 'Dictionaries' }).click()
  const dicts = clerk.getByTestId('entity-list-dictType')
  await expect(rows(clerk, 'dictType').first()).toBeVisible()
  for (const id of ['crud-add', 'crud-delete', 'crud-export', 'row-edit', 'row-delete', 'row-more']) {
    await expect(dicts.getByTestId(id)).toHaveCount(0)
  }
  await expect(clerk.locator('.ant-message-error')).toHaveCount(0)

  // The admin sees the clerk online and ends the session; the clerk's next call says so.
  await page.goto('/monitor/online')
  const online = page.getByTestId('entity-list-onlineSession')
  await online.getByTestId('crud-search').getByLabel('User').fill(CLERK.username)
  await online.getByTestId('crud-search-submit').click()
  await expect(rows(page, 'onlineSession')).toHaveCount(1)
  await expect(rows(page, 'onlineSession')).toContainText('Sales')
  await rows(page, 'onlineSession').getByTestId('row-force-logout').click()
  await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'ended' })).toBeVisible()
  await expect(rows(page, 'onlineSession')).toHaveCount(0)
  await dicts.getByTestId('crud-refresh').click()
  await expect(clerk.getByRole('dialog')).toContainText('Confirm logout')
  await context.close()
})
