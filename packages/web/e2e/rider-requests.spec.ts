import { expect, test } from '@playwright/test'
import { apiLogin, call, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// A rider's erasure (issue 41 §3) in the built console: the admin opens a member's Erase personal
// data, gives where the request came from, reads what will happen to each kind of record, confirms
// twice, and the member's row names nobody afterwards.

type Member = { memberId: number; email: string }

test('an administrator erases a rider: what will happen first, a second confirmation, then a row that names nobody', async ({ page, baseURL }) => {
  test.setTimeout(90_000)
  const token = await apiLogin(page.request)
  // A member nothing holds (no open service order, no legal hold), past the list's first rows, which other specs read.
  const members = (await call<{ rows: Member[] }>(page.request, 'POST', '/member/member/list', token, { pageNum: 2, pageSize: 20 })).rows
  let member: Member | undefined
  for (const m of members) {
    const preview = await page.request.fetch(`/api/member/member/${m.memberId}/action/erase/preview`, { method: 'POST', headers: { Authorization: token }, data: { request: 'probe' } })
    if ((await preview.json()).code === 200) {
      member = m
      break
    }
  }
  expect(member, 'a member without holds on the second page').toBeTruthy()

  await useToken(page.context(), baseURL!, token)
  await page.goto('/member/member')
  const list = page.getByTestId('entity-list-member')
  const search = list.getByTestId('crud-search')
  await search.getByLabel('Email').fill(member!.email)
  await search.getByRole('button', { name: 'Search' }).click()
  const row = list.getByTestId('crud-table').locator('tbody tr.ant-table-row')
  await expect(row).toHaveCount(1)
  await clickRowAction(row, 'row-action-erase')

  const dialog = page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('Request').fill('Ticket 4711, e-mail of 28 November')
  const preview = dialog.getByTestId('operation-preview')
  await expect(preview).toContainText('Members')
  await expect(preview).toContainText('1 anonymised')
  await saveScreen(page, 'rider-erasure-preview')
  await dialog.getByTestId('operation-submit').click()
  const again = page.locator('.ant-modal-confirm:visible')
  await expect(again).toContainText(`Erase everything that identifies member ${member!.memberId}?`)
  await page.getByTestId('operation-second-confirm-ok').click()

  // A job: the row names nobody once it has run.
  const erased = `erased-${member!.memberId}@erased.invalid`
  await expect
    .poll(async () => (await call<Member & { erasedTime: string | null }>(page.request, 'GET', `/member/member/${member!.memberId}`, token)).email, { timeout: 60_000 })
    .toBe(erased)
  await search.getByLabel('Email').fill(erased)
  await search.getByRole('button', { name: 'Search' }).click()
  await expect(row).toHaveCount(1)
  await expect(row).toContainText(erased)
  // Not offered again.
  await expect(row.getByTestId('row-action-erase')).toHaveCount(0)
})
