import { expect, test, type Page } from '@playwright/test'
import { ADMIN, apiLogin, call, openSignedIn } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// Every page of the System and Monitoring menus opens for admin with rows and without an error, in
// English and in Chinese; the custom dialogs and drawers of these pages open too.

const PAGES = [
  { path: '/system/user', entity: 'user', en: 'System users', zh: '用户管理' },
  { path: '/system/role', entity: 'role', en: 'Roles', zh: '角色管理' },
  { path: '/system/menu', entity: 'menu', en: 'Menus', zh: '菜单管理' },
  { path: '/system/dept', entity: 'dept', en: 'Departments', zh: '部门管理' },
  { path: '/system/i18n', entity: 'i18n', en: 'Internationalisation data', zh: '国际化数据' },
  { path: '/system/dict', entity: 'dictType', en: 'Dictionaries', zh: '字典管理' },
  { path: '/system/config', entity: 'config', en: 'System configuration', zh: '参数设置' },
  { path: '/system/country', entity: 'country', en: 'Countries', zh: '国家地区' },
  { path: '/monitor/online', entity: 'onlineSession', en: 'Online users', zh: '在线用户' },
  { path: '/monitor/logininfor', entity: 'loginLog', en: 'Login log', zh: '登录日志' },
  { path: '/monitor/operlog', entity: 'operLog', en: 'Operation log', zh: '操作日志' },
  { path: '/monitor/outbox', entity: 'mailOutbox', en: 'Mail outbox', zh: '邮件发件箱' },
] as const

const rows = (page: Page, entity: string) => page.getByTestId(`entity-list-${entity}`).getByTestId('crud-table').locator('tbody tr.ant-table-row')

/** Something in every log: a failed sign-in, an operation, a mail in the outbox. */
test.beforeAll(async ({ request }) => {
  await request.post('/api/login', { data: { username: ADMIN.username, password: 'wrong-password', code: '', uuid: '' } })
  const token = await apiLogin(request)
  const configs = await call<{ rows: Record<string, unknown>[] }>(request, 'POST', '/system/config/list', token, { pageNum: 1, pageSize: 1 })
  await call(request, 'PUT', '/system/config', token, { configId: configs.rows[0]!.configId, remark: 'touched by system-pages.spec' })
  await call(request, 'POST', '/forgetPassword/sendCode', undefined, { email: 'admin@velo.local', code: '', uuid: '' })
})

/** Opens a page and checks that it has rows, its title, and no error. */
async function expectPage(page: Page, { path, entity, ...titles }: (typeof PAGES)[number], lang: 'en' | 'zh') {
  await page.goto(path)
  await rows(page, entity).first().waitFor()
  await expect(page).toHaveTitle(`${titles[lang]} - Velo Admin`)
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
  await expect(page.locator('.status-panel-error, .ant-result-error')).toHaveCount(0)
}

test('every system and monitor page opens in English with rows, and their dialogs open', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const open = (path: string) => expectPage(page, PAGES.find((p) => p.path === path)!, 'en')
  // The pages with dialogs of their own are opened below.
  for (const path of ['/system/dept', '/system/i18n', '/system/config', '/system/country', '/monitor/outbox']) await open(path)

  // Users: the department tree, the status switches, reset password.
  await open('/system/user')
  const users = page.getByTestId('entity-list-user')
  await expect(users.getByTestId('tree-panel-dept')).toContainText('Sales Europe')
  await expect(users.getByTestId('status-switch-admin')).toBeVisible()
  await saveScreen(page, 'system-users')
  await clickRowAction(rows(page, 'user').first(), 'row-reset-password')
  await expect(page.getByTestId('reset-password-form')).toBeVisible()
  await page.getByTestId('reset-password-form').getByLabel('New password').fill('ab')
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
  await expect(page.getByTestId('reset-password-form')).toContainText('Password: 6 to 20')
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
  // The add form picks roles from the role options.
  await users.getByTestId('crud-add').click()
  await page.getByTestId('entity-form').getByLabel('Roles').click()
  await expect(page.locator('.ant-select-dropdown:visible')).toContainText('Common staff')
  await page.keyboard.press('Escape')
  await page.getByRole('button', { name: 'Cancel' }).click()

  // Roles: menu tree with translated titles, data scope, assigned users.
  await open('/system/role')
  const roles = page.getByTestId('entity-list-role')
  const common = rows(page, 'role').filter({ hasText: 'Common staff' })
  await common.getByTestId('row-edit').click()
  await expect(page.getByTestId('role-menu-tree')).toContainText('System users')
  await expect(page.getByTestId('role-menu-tree')).toContainText('Reset password')
  await saveScreen(page, 'system-roles-form')
  await page.getByRole('button', { name: 'Cancel' }).click()
  await clickRowAction(common, 'row-data-scope')
  await expect(page.getByTestId('data-scope-form')).toContainText('Department and below')
  // Each scope says what it limits, from the definitions: members and bikes by the departments' countries.
  await expect(page.getByTestId('data-scope-limits-country')).toContainText('Members')
  await expect(page.getByTestId('data-scope-limits-country')).toContainText('Bikes')
  await expect(page.getByTestId('data-scope-limits-dept')).toContainText('System users')
  // The custom scope picks departments.
  await page.getByTestId('data-scope-select').click()
  await page.locator('.ant-select-dropdown:visible').getByText('Custom departments', { exact: true }).click()
  await expect(page.getByTestId('data-scope-depts')).toContainText('Sales Europe')
  await saveScreen(page, 'system-roles-data-scope')
  await page.getByRole('button', { name: 'Cancel' }).click()
  await clickRowAction(rows(page, 'role').filter({ hasText: 'Administrator' }), 'row-role-users')
  await expect(page.getByTestId('role-users').locator('tbody tr.ant-table-row')).toContainText(['admin'])
  await saveScreen(page, 'system-roles-users')
  await page.getByTestId('role-users').getByRole('button', { name: 'Close' }).click()
  await expect(roles).toBeVisible()

  // Menus: translated names and icons; a button's form shows only a button's fields.
  await open('/system/menu')
  const menus = page.getByTestId('entity-list-menu')
  // Only the System directory: the whole tree is hundreds of rows.
  await rows(page, 'menu').filter({ has: page.getByText('System', { exact: true }) }).locator('.ant-table-row-expand-icon').click()
  await expect(menus).toContainText('System users')
  await expect(menus.getByTestId('menu-icon-setting').first()).toBeVisible()
  await expect(menus).not.toContainText('menu.system.user')
  await clickRowAction(rows(page, 'menu').filter({ hasText: 'System users' }), 'row-add-child')
  const form = page.getByTestId('entity-form')
  await expect(form.getByLabel('Permission')).toBeVisible()
  await expect(form.getByLabel('Component path')).toHaveCount(0)
  await expect(form.getByLabel('Icon')).toHaveCount(0)
  await expect(form).toContainText('System users') // the parent, preset
  await form.getByText('Menu', { exact: true }).click()
  await expect(form.getByLabel('Component path')).toBeVisible()
  await saveScreen(page, 'system-menus-form')
  await page.getByRole('button', { name: 'Cancel' }).click()

  // Dictionaries: the items of a type.
  await open('/system/dict')
  await clickRowAction(rows(page, 'dictType').filter({ hasText: 'sys_user_sex' }), 'row-dict-items')
  const items = page.getByTestId('dict-items')
  await expect(rows(page, 'dictData')).toHaveCount(3)
  await expect(items).toContainText('Female')
  await saveScreen(page, 'system-dict-items')
  await items.getByTestId('crud-add').click()
  await expect(page.getByTestId('entity-form').getByLabel('Dictionary type')).toHaveValue('sys_user_sex')
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
  await items.getByRole('button', { name: 'Close' }).first().click()

  // Logs: details; the operation log's parameters as formatted JSON.
  await open('/monitor/operlog')
  await clickRowAction(rows(page, 'operLog').first(), 'row-details')
  await expect(page.getByTestId('entity-details')).toContainText('Parameters')
  await saveScreen(page, 'monitor-operlog-details')
  await open('/monitor/logininfor')
  // A failed sign-in offers Unlock (beyond delete and details, in More).
  await rows(page, 'loginLog').filter({ has: page.getByTestId('row-more') }).first().getByTestId('row-more').click()
  await expect(page.locator('.ant-dropdown:visible').getByTestId('row-unlock')).toBeVisible()
  await page.keyboard.press('Escape')
  await clickRowAction(rows(page, 'loginLog').first(), 'row-details')
  await expect(page.getByTestId('entity-details')).toContainText('Browser')
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
  await open('/monitor/online')
  await expect(rows(page, 'onlineSession').filter({ hasText: 'admin' }).first()).toBeVisible()
  await saveScreen(page, 'monitor-online')
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
})

// Issue 36: a department added under a closed one shows at once, its parent opened with it; the
// other nodes stay as the user left them. The tree list is the kit's, so any tree entity does this.
test('a department added as a child of a closed department shows at once, its parent opened', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!, '/system/dept')
  const tag = String(Date.now() % 1_000_000)
  const all = await call<{ rows: { deptId: number; deptName: string }[] }>(page.request, 'POST', '/system/dept/list', token, {})
  const hq = all.rows.find((d) => d.deptName === 'Velo HQ')!
  const workshop = await call<{ deptId: number }>(page.request, 'POST', '/system/dept', token, { parentId: hq.deptId, deptName: `Workshop ${tag}`, orderNum: 90 })
  await call(page.request, 'POST', '/system/dept', token, { parentId: workshop.deptId, deptName: `Wheels ${tag}`, orderNum: 1 })
  await page.reload()
  const depts = page.getByTestId('entity-list-dept')
  const row = (name: string) => rows(page, 'dept').filter({ has: page.getByText(name, { exact: true }) })

  // The tree opens closed: HQ is opened by hand, the new workshop stays closed.
  await row('Velo HQ').locator('.ant-table-row-expand-icon').click()
  await expect(row(`Workshop ${tag}`)).toBeVisible()
  await expect(row(`Wheels ${tag}`)).toHaveCount(0)
  await expect(row('Sales Europe')).toHaveCount(0)

  await clickRowAction(row(`Workshop ${tag}`), 'row-add-child')
  const form = page.getByTestId('entity-form')
  await expect(form).toContainText(`Workshop ${tag}`) // the parent, preset
  await form.getByLabel('Department', { exact: true }).fill(`Frames ${tag}`)
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()

  // The new department shows under its parent, now open, beside its sibling; Sales stays closed.
  await expect(row(`Frames ${tag}`)).toBeVisible()
  await expect(row(`Wheels ${tag}`)).toBeVisible()
  await expect(row(`Workshop ${tag}`).locator('.ant-table-row-expand-icon-expanded')).toBeVisible()
  await expect(row('Sales Europe')).toHaveCount(0)
  await expect(depts.getByTestId('crud-table')).toContainText(`Frames ${tag}`)
  await saveScreen(page, 'system-dept-child-added')
})

test('every system and monitor page opens in Chinese with rows', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  for (const p of PAGES) {
    await expectPage(page, p, 'zh')
    if (p.entity === 'role') {
      // Menu titles in the role form's tree are translated too.
      await rows(page, 'role').filter({ hasText: 'Common staff' }).getByTestId('row-edit').click()
      await expect(page.getByTestId('role-menu-tree')).toContainText('重置密码')
    }
    if (p.entity === 'menu') {
      await rows(page, 'menu').filter({ has: page.getByText('系统管理', { exact: true }) }).locator('.ant-table-row-expand-icon').click()
      await expect(page.getByTestId('entity-list-menu')).toContainText('用户管理')
      await saveScreen(page, 'system-menus-zh')
    }
  }
})
