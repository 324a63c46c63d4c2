import { expect, test, type APIRequestContext } from '@playwright/test'
import { apiLogin, call, useToken } from './support/session'
import { saveScreen } from './support/screens'

// Riders' personal data (issue 41 §1) in the built console: a member-desk clerk without the rights
// to see personal data gets masks in the members list and a member's details, reveals one member's
// values for a reason, and the operation log keeps the reason without the values.

const suffix = String(Date.now() % 1_000_000)
const CLERK = { username: `desk${suffix}`, password: 'desk12345' }

/** A role with the Members page and its buttons, and Reveal, but none of the categories' rights. */
async function clerk(request: APIRequestContext) {
  const token = await apiLogin(request)
  const menus = (await call<{ rows: Array<{ menuId: number; parentId: number; menuType: string; perms: string | null }> }>(request, 'POST', '/system/menu/list', token, {})).rows
  const page = menus.find((m) => m.menuType === 'C' && m.perms === 'member:member:list')!
  const buttons = menus.filter((m) => m.parentId === page.menuId && (!m.perms?.startsWith('member:pii:') || m.perms === 'member:pii:reveal'))
  expect(buttons.map((b) => b.perms)).toEqual(expect.arrayContaining(['member:member:query', 'member:pii:reveal']))
  const role = await call<{ roleId: number }>(request, 'POST', '/system/role', token, {
    roleName: `Member desk ${suffix}`,
    roleKey: `desk${suffix}`,
    roleSort: 0,
    status: '0',
    dataScope: '1',
    menuIds: [page.parentId, page.menuId, ...buttons.map((b) => b.menuId)],
  })
  const depts = await call<{ value: number }[]>(request, 'GET', '/system/dept/options', token)
  await call(request, 'POST', '/system/user', token, { userName: CLERK.username, nickName: 'Member desk', deptId: depts[0]!.value, password: CLERK.password, email: `${CLERK.username}@example.com`, phonenumber: '+31 20 555 0199', roleIds: [role.roleId] })
  return token
}

test('a clerk without the rights sees masks in the members list and details, and reveals one member for a reason the log keeps', async ({ page, baseURL }) => {
  const admin = await clerk(page.request)
  // The newest member as the admin sees it (the list's first row, by registration time).
  const newest = (await call<{ rows: Array<Record<string, unknown>> }>(page.request, 'POST', '/member/member/list', admin, { pageNum: 1, pageSize: 1 })).rows[0]!
  const email = String(newest.email)
  expect(email).toMatch(/@/)

  await useToken(page.context(), baseURL!, await apiLogin(page.request, CLERK))
  await page.goto('/member/member')
  const list = page.getByTestId('entity-list-member')
  const first = list.getByTestId('crud-table').locator('tbody tr.ant-table-row').first()
  const masked = `${email[0]}•••${email.slice(email.indexOf('@'))}`
  await expect(first).toContainText(masked)
  await expect(list).not.toContainText(email)
  await expect(first.getByTestId('masked-value').first()).toHaveAttribute('title', 'Personal data (contact details), hidden: you have no right to see it')
  await saveScreen(page, 'privacy-members-masked')

  // A search by a part of the e-mail finds nothing; by the whole of it, the member.
  const search = list.getByTestId('crud-search')
  await search.getByLabel('Email').fill(email.slice(1, email.indexOf('@')))
  await search.getByRole('button', { name: 'Search' }).click()
  await expect(list.getByTestId('crud-table')).toContainText('No data')
  await search.getByLabel('Email').fill(email)
  await search.getByRole('button', { name: 'Search' }).click()
  await expect(list.getByTestId('crud-table').locator('tbody tr.ant-table-row')).toHaveCount(1)

  // The details: masks, and Reveal with a reason.
  await list.getByTestId('crud-table').locator('tbody tr.ant-table-row').first().getByTestId('row-details').click()
  const details = page.getByTestId('entity-details')
  await expect(details).toContainText(masked)
  await page.getByTestId('reveal-personal').click()
  const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('reveal-form') })
  await dialog.getByLabel('Reason').fill('why')
  await dialog.getByTestId('reveal-ok').click()
  await expect(dialog).toContainText('The reason must be 5 to 200 characters')
  await dialog.getByLabel('Reason').fill('Rider called about a warranty claim')
  await dialog.getByTestId('reveal-ok').click()
  await expect(dialog).toHaveCount(0)
  await expect(page.getByTestId('personal-revealed')).toBeVisible()
  await expect(details).toContainText(email)
  await saveScreen(page, 'privacy-member-revealed')

  // The log: who revealed whom and why, not the values.
  const logs = await call<{ rows: Array<{ operName: string; operUrl: string; operParam: string; jsonResult: string }> }>(page.request, 'POST', '/monitor/operlog/list', admin, { pageNum: 1, pageSize: 20, operName: CLERK.username })
  const reveal = logs.rows.find((r) => r.operUrl === `/api/member/member/${String(newest.memberId)}/reveal`)!
  expect(reveal.operParam).toContain('Rider called about a warranty claim')
  expect(`${reveal.operParam}${reveal.jsonResult}`).not.toContain(email)
})

test('the masks say why in Chinese, and fit a phone', async ({ page, baseURL }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.addInitScript(() => localStorage.setItem('user_lang', 'zh_CN'))
  await useToken(page.context(), baseURL!, await apiLogin(page.request, CLERK))
  await page.goto('/member/member')
  const mask = page.getByTestId('masked-value').first()
  await expect(mask).toHaveAttribute('title', '个人数据（联系方式），您无权查看，已隐藏')
  await saveScreen(page, 'privacy-members-masked-zh-390')
})
