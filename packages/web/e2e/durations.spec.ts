import { expect, test, type Page } from '@playwright/test'
import { apiLogin, call, openSignedIn } from './support/session'
import { clickRowAction } from './support/rows'

// Issue 36, "What staff see": durations read as durations. A ride stores its duration in seconds
// (the definition's `duration: 's'`); a member's details show a ride of 4,320 s as "1 h 12 min",
// and as "1小时12分" in Chinese.

interface Ride {
  rideId: number
  memberId: number
  memberIdLabel: string
  duration: number
}

const drawer = (page: Page) => page.locator('.ant-drawer:visible')

test("a ride's duration reads as hours and minutes, in English and in Chinese", async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  // The demo's newest ride, and that member's newest: the first row of their Rides tab.
  const [newest] = (await call<{ rows: Ride[] }>(page.request, 'POST', '/member/ride/list', token, { pageNum: 1, pageSize: 1 })).rows
  expect(newest, 'the demo data has rides').toBeTruthy()
  const ride = (await call<{ rows: Ride[] }>(page.request, 'POST', '/member/ride/list', token, { pageNum: 1, pageSize: 1, memberId: newest!.memberId })).rows[0]!
  // Rides come from the app only: the admin's SQL execution gives this one a known length.
  await call(page.request, 'POST', '/tool/sql/run', token, { sql: `UPDATE mem_ride SET duration = 4320 WHERE ride_id = ${ride.rideId}`, write: true })
  expect((await call<Ride>(page.request, 'GET', `/member/ride/${ride.rideId}`, token)).duration).toBe(4320)

  for (const [lang, tab, column, expected] of [
    ['en_US', 'Rides', 'Duration', '1 h 12 min'],
    ['zh_CN', '骑行记录', '时长', '1小时12分'],
  ] as const) {
    await page.addInitScript((l) => localStorage.setItem('user_lang', l), lang)
    await openSignedIn(page, baseURL!, `/member/member?email=${encodeURIComponent(ride.memberIdLabel)}`)
    const member = page.getByTestId('entity-list-member').getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: ride.memberIdLabel })
    await expect(member).toHaveCount(1)
    await clickRowAction(member, 'row-details')
    const related = drawer(page).getByTestId('related-lists')
    await related.getByRole('tab', { name: tab }).click()
    const table = related.getByTestId('related-ride.memberId').getByTestId('related-table')
    await expect(table.locator('thead th').filter({ hasText: column })).toHaveText(column)
    // The stored number, with its unit, is a hover away.
    await expect(table.locator(`.crud-cell-duration[title="${lang === 'en_US' ? '4,320 s' : '4,320 秒'}"]`)).toHaveText(expected)
  }
})
