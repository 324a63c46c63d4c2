import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import Database from 'better-sqlite3'
import ExcelJS from 'exceljs'
import { apiLogin, call, openSignedIn, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// The home page and the five dashboards on the demo data the e2e server starts with, in both
// languages. Each checked figure is compared with the same figure computed here by a query of our
// own on the server's database (read-only), from the facts themselves, not from the rollups the
// server reads: the rollups, the country scope and the page's formatting are all under test.

const PORT = process.env.E2E_PORT ?? '18080'
// support/start-server.mjs names the database it made in this file.
const db = new Database(readFileSync(join(tmpdir(), `velo-e2e-database-${PORT}`), 'utf8'), { readonly: true, fileMustExist: true })
test.afterAll(() => db.close())

const one = (sql: string, ...params: unknown[]) => Number(Object.values(db.prepare(sql).get(...params) as Record<string, unknown>)[0])
const day = (t: number) => new Date(t).toISOString().slice(0, 10)
const DAY = 86_400_000
/** The default range of a dashboard: the last `days` UTC days up to today. */
const range = (days: number) => ({ from: day(Date.now() - (days - 1) * DAY), to: day(Date.now()) })
/** A count as the page shows it in either language. */
const shown = (n: number) => n.toLocaleString('en-US')

const card = (page: Page, key: string) => page.getByTestId(`card-value-${key}`)

/** Opens a page in a language (the console keeps the choice in localStorage). */
async function openIn(page: Page, path: string, lang: 'en' | 'zh') {
  await page.evaluate((l) => localStorage.setItem('user_lang', l), lang === 'zh' ? 'zh_CN' : 'en_US')
  await page.goto(path)
}

const TITLES = {
  engagement: { en: 'User engagement', zh: '用户活跃度' },
  performance: { en: 'App performance', zh: 'App 性能' },
  satisfaction: { en: 'Satisfaction', zh: '满意度' },
  bikeStats: { en: 'Registered bikes', zh: '注册车辆统计' },
} as const

test('the home page: cards match their lists and the database, in both languages', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!)
  const bound = one(`select count(*) from bike_bike where bind_status = 'bound'`)
  const week = range(7)
  const active7 = one(
    `select count(*) from (select member_id from mem_ride where substr(upload_time, 1, 10) between ? and ?
      union select member_id from dash_tracking_event where substr(event_time, 1, 10) between ? and ?)`,
    week.from, week.to, week.from, week.to,
  )
  const critical = one(`select count(*) from iot_alarm where severity = 'critical' and state in ('activeUnack', 'activeAck')`)
  expect(bound, 'the demo data has bound bikes').toBeGreaterThan(0)
  for (const lang of ['en', 'zh'] as const) {
    await openIn(page, '/dashboard', lang)
    await expect(card(page, 'bikesRegistered')).toHaveText(shown(bound))
    await expect(card(page, 'membersActive7d')).toHaveText(shown(active7))
    await expect(card(page, 'warningsCritical')).toHaveText(shown(critical))
    await expect(page.getByTestId('figure-registrations')).toContainText(lang === 'en' ? 'Registrations' : '注册趋势')
    await expect(page.getByTestId('chart-registrations').locator('canvas')).toBeVisible()
  }
  await saveScreen(page, 'dashboard-home-zh')

  // A card opens its list with the filter applied: as many rows as the card says.
  await openIn(page, '/dashboard', 'en')
  await page.getByTestId('card-link-warningsCritical').click()
  await expect(page).toHaveURL(/\/iot\/warning\?severity=critical&state=activeUnack,activeAck/)
  const listed = await call<{ total: number }>(page.request, 'POST', '/iot/warning/list', token, { pageNum: 1, pageSize: 1, severity: 'critical', state: ['activeUnack', 'activeAck'] })
  expect(listed.total).toBe(critical)
})

test('user engagement: active and new members from the rides and events themselves; the cohorts heat map', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const r = range(90)
  const active = one(
    `select count(*) from (select member_id from mem_ride where substr(upload_time, 1, 10) between ? and ?
      union select member_id from dash_tracking_event where substr(event_time, 1, 10) between ? and ?)`,
    r.from, r.to, r.from, r.to,
  )
  const fresh = one(`select count(*) from mem_member where substr(create_time, 1, 10) between ? and ?`, r.from, r.to)
  expect(active, 'the demo data has active members').toBeGreaterThan(0)
  for (const lang of ['en', 'zh'] as const) {
    await openIn(page, '/analytics/engagement', lang)
    await expect(page).toHaveTitle(`${TITLES.engagement[lang]} - Velo Admin`)
    await expect(card(page, 'active')).toHaveText(shown(active))
    await expect(card(page, 'newMembers')).toHaveText(shown(fresh))
    await expect(page.getByTestId('chart-daily').locator('canvas')).toBeVisible()
    await expect(page.getByTestId('figure-retention')).toContainText(lang === 'en' ? 'Retention by sign-up week' : '按注册周的留存')
  }
  await saveScreen(page, 'dashboard-engagement-zh')

  // The daily figure as a table: yesterday's active members, as the facts say.
  await openIn(page, '/analytics/engagement', 'en')
  await page.getByTestId('toggle-daily').getByText('Table').click()
  const yesterday = day(Date.now() - DAY)
  const dau = one(
    `select count(*) from (select member_id from mem_ride where substr(upload_time, 1, 10) = ? union select member_id from dash_tracking_event where substr(event_time, 1, 10) = ?)`,
    yesterday, yesterday,
  )
  const row = page.getByTestId('table-daily').locator('tr').filter({ hasText: yesterday })
  await expect(row).toContainText(shown(dau))
})

test('the range and filters live in the URL; a bad range is refused with the server’s words', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const from = day(Date.now() - 29 * DAY)
  const to = day(Date.now())
  await openIn(page, `/analytics/engagement?from=${from}&to=${to}&platform=ios`, 'en')
  const members = one(
    `select count(distinct member_id) from dash_tracking_event where platform = 'ios' and substr(event_time, 1, 10) between ? and ?`,
    from, to,
  )
  await expect(card(page, 'active')).toHaveText(shown(members))
  // Reloading keeps the view.
  await page.reload()
  await expect(page).toHaveURL(/platform=ios/)
  await expect(card(page, 'active')).toHaveText(shown(members))

  await openIn(page, `/analytics/engagement?from=${to}&to=${from}`, 'en')
  await expect(page.getByTestId('dashboard-error')).toContainText('The range starts after it ends')
  await openIn(page, `/analytics/engagement?from=${to}&to=${from}`, 'zh')
  await expect(page.getByTestId('dashboard-error')).toContainText('起始日期晚于截止日期')
})

test('app performance, satisfaction and registered bikes: figures from the database, in both languages', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const perf = range(90)
  const sessions = one(`select count(*) from dash_tracking_event where code = 'app.launch' and substr(event_time, 1, 10) between ? and ?`, perf.from, perf.to)
  const sat = range(180)
  const feedback = one(`select count(*) from mem_feedback where substr(create_time, 1, 10) between ? and ?`, sat.from, sat.to)
  const fiveStars = one(`select count(*) from mem_feedback where stars = 5 and substr(create_time, 1, 10) between ? and ?`, sat.from, sat.to)
  const registered = one(`select count(*) from bike_bike where bind_status = 'bound'`)
  expect(sessions, 'the demo data has app sessions').toBeGreaterThan(0)
  for (const lang of ['en', 'zh'] as const) {
    await openIn(page, '/analytics/performance', lang)
    await expect(page).toHaveTitle(`${TITLES.performance[lang]} - Velo Admin`)
    await expect(card(page, 'sessions')).toHaveText(shown(sessions))
    await expect(page.getByTestId('table-byVersion')).toBeVisible()

    await openIn(page, '/analytics/satisfaction', lang)
    await expect(page).toHaveTitle(`${TITLES.satisfaction[lang]} - Velo Admin`)
    await expect(card(page, 'feedback')).toHaveText(shown(feedback))

    await openIn(page, '/analytics/bikeStats', lang)
    await expect(page).toHaveTitle(`${TITLES.bikeStats[lang]} - Velo Admin`)
    await expect(card(page, 'registered')).toHaveText(shown(registered))
    await expect(page.getByTestId('chart-byModel').locator('canvas')).toBeVisible()
  }
  await saveScreen(page, 'dashboard-bikes-zh')

  // The star distribution as a table, and the figures as a workbook with the same numbers.
  await openIn(page, '/analytics/satisfaction', 'en')
  await page.getByTestId('toggle-stars').getByText('Table').click()
  await expect(page.getByTestId('table-stars').locator('tr').filter({ hasText: /^5/ })).toContainText(shown(fiveStars))
  const download = page.waitForEvent('download')
  await page.getByTestId('dashboard-export').click()
  const file = await download
  expect(file.suggestedFilename()).toBe(`satisfaction_${sat.from}_${sat.to}.xlsx`)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(await file.path())
  const stars = workbook.getWorksheet('Stars')!
  const five = stars.getSheetValues().find((r) => Array.isArray(r) && String(r[1]) === '5') as unknown[]
  expect(Number(five[2])).toBe(fiveStars)
})

test('a role scoped to its department sees only its region’s members', async ({ browser, page, baseURL }) => {
  const token = await apiLogin(page.request)
  // The seeded Sales Europe department holds the European countries; the common role (dashboards,
  // data scope "department and below") is the seeded one.
  const depts = await call<{ value: number; label: string }[]>(page.request, 'GET', '/system/dept/options', token)
  const europe = depts.find((d) => d.label === 'Sales Europe')!.value
  const { rows: roles } = await call<{ rows: { roleId: number; roleKey: string }[] }>(page.request, 'POST', '/system/role/list', token, { pageNum: 1, pageSize: 10, roleKey: 'common' })
  const user = { username: `region${Date.now() % 1_000_000}`, password: 'region-pass1' }
  await call(page.request, 'POST', '/system/user', token, {
    userName: user.username,
    nickName: 'Regional manager',
    deptId: europe,
    password: user.password,
    email: `${user.username}@example.com`,
    phonenumber: '+31 20 555 0142',
    roleIds: [roles.find((r) => r.roleKey === 'common')!.roleId],
  })
  const r = range(90)
  const all = one(`select count(*) from mem_member where substr(create_time, 1, 10) between ? and ?`, r.from, r.to)
  const regional = one(
    `select count(*) from mem_member where substr(create_time, 1, 10) between ? and ? and country_id in (select country_id from sys_dept_country where dept_id = ?)`,
    r.from, r.to, europe,
  )
  expect(regional, 'the region holds some of the new members, not all').toBeLessThan(all)

  const context = await browser.newContext()
  try {
    const theirs = await context.newPage()
    await useToken(context, baseURL!, await apiLogin(theirs.request, { username: user.username, password: user.password }))
    await theirs.goto('/analytics/engagement')
    await expect(card(theirs, 'newMembers')).toHaveText(shown(regional))
    // Their country picker offers the dashboards' countries even though they may not open the countries page.
    await theirs.getByTestId('dashboard-filter-countryId').click()
    await expect(theirs.locator('.ant-select-dropdown:visible .ant-select-item-option').first()).toBeVisible()
    await saveScreen(theirs, 'dashboard-engagement-regional')
  } finally {
    await context.close()
    // Sales Europe's users are counted by the system access spec: leave it as it was.
    const { rows } = await call<{ rows: { userId: number }[] }>(page.request, 'POST', '/system/user/list', token, { pageNum: 1, pageSize: 10, userName: user.username })
    for (const r of rows) await call(page.request, 'DELETE', `/system/user/${r.userId}`, token)
  }
})

test('the tracking configuration: a node with children is not deleted', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!)
  const stamp = Date.now() % 1_000_000
  await call(page.request, 'POST', '/dashboard/tracking', token, { parentId: 0, name: `Checkout ${stamp}`, code: `checkout${stamp}`, label: 'Checkout', path: '/checkout', orderNum: 9 })
  const { rows } = await call<{ rows: { nodeId: number; code: string }[] }>(page.request, 'POST', '/dashboard/tracking/list', token, { pageNum: 1, pageSize: 100 })
  const parent = rows.find((n) => n.code === `checkout${stamp}`)!
  await call(page.request, 'POST', '/dashboard/tracking', token, { parentId: parent.nodeId, name: `Pay ${stamp}`, code: `checkout${stamp}.pay`, label: 'Pay', path: '/checkout/pay', orderNum: 1 })

  await openIn(page, '/analytics/tracking', 'en')
  const row = page.getByTestId('entity-list-trackingNode').locator('tr.ant-table-row').filter({ hasText: `Checkout ${stamp}` })
  await expect(row).toBeVisible()
  await clickRowAction(row, 'row-delete')
  await page.locator('.ant-modal-confirm:visible').getByRole('button', { name: 'OK' }).click()
  await expect(page.locator('.ant-message-error').filter({ hasText: 'Cannot delete node: Child nodes exist' })).toBeVisible()
  const still = await call<{ rows: { code: string }[] }>(page.request, 'POST', '/dashboard/tracking/list', token, { pageNum: 1, pageSize: 100 })
  expect(still.rows.map((n) => n.code)).toContain(`checkout${stamp}`)
})
