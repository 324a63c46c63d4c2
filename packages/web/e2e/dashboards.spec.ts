import { expect, test, type Page, type Response } from '@playwright/test'
import Database from 'better-sqlite3'
import ExcelJS from 'exceljs'
import { apiLogin, call, openSignedIn, useToken } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'
import { databaseFile } from './support/server'

// The home page and the five dashboards on the demo data the e2e server starts with, in both
// languages. Each checked figure is compared with the same figure computed here by a query of our
// own on the server's database (read-only), from the facts themselves, not from the rollups the
// server reads: the rollups, the country scope and the page's formatting are all under test.

// support/start-server.mjs names the database of this worker's server in a file (support/server.ts).
const db = new Database(databaseFile(), { readonly: true, fileMustExist: true })
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
  // Every dashboard opens on the same default range (DASHBOARD_DEFAULT_DAYS).
  const sat = range(90)
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

// Issue 36 ("What staff see"): the charts name every bar, tell series apart, say their axes, draw
// today as partial; one default range, said on the page; the picker stops at the server's limit;
// every home card opens a list of as many rows as it says.

interface ChartView {
  /** The option echarts holds (series, axes), as getOption answers it. */
  option: { series: { name: string; type: string; data: unknown[]; yAxisIndex?: number; lineStyle?: { type?: string } }[]; xAxis: Axis[]; yAxis: Axis[] }
  /** The texts echarts drew (labels, names) and did not hide. */
  texts: string[]
  /** The colour each series is drawn in, in series order. */
  colors: string[]
}
interface Axis {
  type: string
  data?: string[]
  name?: string
  position?: string
}

/**
 * What a figure's chart drew, read through its echarts instance: the dashboards' echarts chunk the
 * page loaded is imported again (the browser hands back the same module, so getInstanceByDom knows
 * the chart), and the drawn texts are those of its display list (hidden labels are not in it).
 */
async function chartView(page: Page, key: string): Promise<ChartView> {
  const box = page.getByTestId(`chart-${key}`)
  await expect(box.locator('canvas')).toBeVisible()
  // Let the chart finish its first layout.
  await page.waitForTimeout(300)
  return box.evaluate(async (element) => {
    const chunks = performance
      .getEntriesByType('resource')
      .map((e) => e.name)
      .filter((n) => /\.js($|\?)/.test(n))
    type Instance = {
      getOption(): unknown
      getZr(): { storage: { getDisplayList(update: boolean): { style?: { text?: string }; ignore?: boolean; invisible?: boolean }[] } }
      getModel(): { getSeries(): { getData(): { getVisual(k: string): { fill?: string; stroke?: string } | undefined } }[] }
    }
    for (const url of chunks) {
      let module: Record<string, unknown>
      try {
        module = (await import(url)) as Record<string, unknown>
      } catch {
        continue
      }
      for (const value of Object.values(module)) {
        const echarts = value as { getInstanceByDom?: (el: Element) => Instance | undefined } | null
        const chart = typeof echarts?.getInstanceByDom === 'function' ? echarts.getInstanceByDom(element) : undefined
        if (!chart) continue
        const texts = chart
          .getZr()
          .storage.getDisplayList(true)
          .filter((el) => !el.ignore && !el.invisible && typeof el.style?.text === 'string')
          .map((el) => el.style!.text!)
        const colors = chart
          .getModel()
          .getSeries()
          .map((s) => {
            const style = s.getData().getVisual('style')
            return String(style?.fill ?? style?.stroke ?? '')
          })
        return { option: JSON.parse(JSON.stringify(chart.getOption())), texts, colors }
      }
    }
    throw new Error('no echarts instance on this chart')
  })
}

/** The category axis of a chart (vertical or horizontal bars). */
const categoryAxis = (view: ChartView) => [...view.option.xAxis, ...view.option.yAxis].find((a) => a.type === 'category')!

/** Whether echarts drew a label for the category, whole (a long name wraps rather than being cut). */
const labelled = (texts: string[], category: string) => texts.includes(category)

const BAR_FIGURES: Record<string, string[]> = {
  '/analytics/bikeStats': ['byCountry', 'online', 'byMonth'],
  '/analytics/satisfaction': ['tags', 'stars'],
  '/analytics/engagement': ['weekly', 'monthly'],
}

test('every bar of every bar chart is named, in both languages', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  for (const lang of ['en', 'zh'] as const) {
    for (const [path, keys] of Object.entries(BAR_FIGURES)) {
      await openIn(page, path, lang)
      for (const key of keys) {
        const view = await chartView(page, key)
        const categories = categoryAxis(view).data ?? []
        expect(categories.length, `${path} ${key} has bars`).toBeGreaterThan(0)
        const unnamed = categories.filter((c) => !labelled(view.texts, c))
        expect(unnamed, `${path} ${key} (${lang}): bars without a label`).toEqual([])
      }
      await saveScreen(page, `dashboard-bars-${path.split('/').pop()}-${lang}`)
    }
  }
  // The full-page view of the bikes' dashboard, for the reviewer.
  await openIn(page, '/analytics/bikeStats', 'en')
  await chartView(page, 'byCountry')
  await page.getByTestId('figure-byCountry').scrollIntoViewIfNeeded()
  await saveScreen(page, 'dashboard-by-country-en')
})

test('the firmware legend gives each version its own colour, the tail grouped as Other', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const versions = one(
    `select count(*) from (select distinct firmware_version from iot_device union select distinct display_version from iot_device
      union select distinct bms_version from iot_device union select distinct ecu_version from iot_device)`,
  )
  for (const lang of ['en', 'zh'] as const) {
    await openIn(page, '/analytics/bikeStats', lang)
    const view = await chartView(page, 'firmware')
    const names = view.option.series.map((s) => s.name)
    expect(names.length).toBeLessThanOrEqual(9)
    expect(new Set(view.colors).size, `distinct colours for ${names.join(', ')}`).toBe(view.colors.length)
    if (versions > 9) expect(names.at(-1)).toBe(lang === 'en' ? 'Other' : '其他')
    await page.getByTestId('figure-firmware').scrollIntoViewIfNeeded()
    await saveScreen(page, `dashboard-firmware-${lang}`)
  }
})

test('two-axis charts say which series is on which axis, with units; new members have their own axis', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const words = { en: { hours: 'hours', csat: 'CSAT (%)' }, zh: { hours: '小时', csat: 'CSAT（%）' } }
  for (const lang of ['en', 'zh'] as const) {
    await openIn(page, '/analytics/satisfaction', lang)
    const reply = await chartView(page, 'responseTime')
    expect(reply.option.yAxis[0]!.name).toContain(words[lang].hours)
    expect(reply.option.yAxis[1]!.name).toBeTruthy()
    // The names are drawn, not only set.
    expect(reply.texts).toContain(reply.option.yAxis[0]!.name)
    const csat = await chartView(page, 'csatTrend')
    expect(csat.option.yAxis[1]!.name).toBe(words[lang].csat)
    expect(csat.texts).toContain(words[lang].csat)
    await page.getByTestId('figure-csatTrend').scrollIntoViewIfNeeded()
    await saveScreen(page, `dashboard-satisfaction-axes-${lang}`)

    await openIn(page, '/analytics/engagement', lang)
    const daily = await chartView(page, 'daily')
    const axisOf = (name: string) => daily.option.series.find((s) => s.name === name)!.yAxisIndex ?? 0
    const [newMembers, rides] = lang === 'en' ? ['New members', 'Rides'] : ['新增会员', '骑行次数']
    expect(axisOf(newMembers)).toBe(1)
    expect(axisOf(rides)).toBe(0)
    expect(daily.option.yAxis[1]!.name).toBe(newMembers)
    await saveScreen(page, `dashboard-engagement-daily-${lang}`)
  }
})

test('today, not over yet, is drawn as partial on every daily chart, never as a drop to zero', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const today = day(Date.now())
  for (const [path, key] of [
    ['/dashboard', 'registrations'],
    ['/analytics/engagement', 'daily'],
    ['/analytics/performance', 'crashFree'],
    ['/analytics/performance', 'startTime'],
  ] as const) {
    await openIn(page, path, 'en')
    const view = await chartView(page, key)
    const days = categoryAxis(view).data!
    const last = days.length - 1
    expect(days[last]).toBe(today)
    const names = [...new Set(view.option.series.map((s) => s.name))]
    for (const name of names) {
      const pieces = view.option.series.filter((s) => s.name === name)
      const solid = pieces.find((s) => s.lineStyle?.type !== 'dashed')!
      const dashed = pieces.find((s) => s.lineStyle?.type === 'dashed')
      // The solid line stops the day before; a dashed piece carries today's count so far.
      expect(solid.data[last], `${key} ${name}: the solid line leaves today out`).toBeNull()
      expect(dashed, `${key} ${name}: today's piece is dashed`).toBeTruthy()
      // Only the last whole day and today: nothing else is drawn twice.
      expect(dashed!.data.slice(0, -2).every((v) => v === null)).toBe(true)
    }
    expect(view.texts).toContain('Today so far')
  }
  await saveScreen(page, 'dashboard-partial-day-en')
})

/**
 * Checks that a chart draws its last period, the current one, as partial: a bar faint and hatched,
 * a line's solid piece stopping the period before with a dashed piece to it, and the mark's words.
 */
async function expectPartialLast(page: Page, key: string, current: string, mark: string) {
  await page.getByTestId(`figure-${key}`).scrollIntoViewIfNeeded()
  const view = await chartView(page, key)
  const periods = categoryAxis(view).data!
  const last = periods.length - 1
  expect(periods[last], `${key}: the range ends in the current period`).toBe(current)
  for (const bar of view.option.series.filter((s) => s.type === 'bar')) {
    // Earlier bars are plain values; the current one is faint and hatched.
    const item = bar.data[last] as { itemStyle?: { opacity?: number; decal?: unknown } }
    expect(item.itemStyle?.opacity, `${key} ${bar.name}: the current bar is faint`).toBeLessThan(1)
    expect(item.itemStyle?.decal, `${key} ${bar.name}: and hatched`).toBeTruthy()
    expect(bar.data.slice(0, -1).every((v) => typeof v !== 'object' || v === null)).toBe(true)
  }
  for (const name of new Set(view.option.series.filter((s) => s.type === 'line').map((s) => s.name))) {
    const pieces = view.option.series.filter((s) => s.type === 'line' && s.name === name)
    const solid = pieces.find((s) => s.lineStyle?.type !== 'dashed')!
    const dashed = pieces.find((s) => s.lineStyle?.type === 'dashed')
    expect(solid.data[last], `${key} ${name}: the solid line leaves the current period out`).toBeNull()
    expect(dashed, `${key} ${name}: the current period's piece is dashed`).toBeTruthy()
    expect(dashed!.data.slice(0, -2).every((v) => v === null)).toBe(true)
  }
  expect(view.texts, `${key}: the current period is marked`).toContain(mark)
}

test('this week and this month, not over yet, are drawn as partial on weekly and monthly charts', async ({ page, baseURL }) => {
  // Every weekly and monthly chart of the dashboards, in both languages: past the default minute.
  test.setTimeout(120_000)
  await openSignedIn(page, baseURL!)
  const today = day(Date.now())
  // The server writes a week as its Monday (UTC) and a month as YYYY-MM.
  const current = { week: day(Date.now() - ((new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7) * DAY), month: today.slice(0, 7) }
  const marks = { en: { week: 'This week so far', month: 'This month so far' }, zh: { week: '本周（未完）', month: '本月（未完）' } }
  const pages: Record<string, [string, 'week' | 'month'][]> = {
    '/analytics/engagement': [['weekly', 'week'], ['monthly', 'month'], ['ridesPerActive', 'week']],
    '/analytics/satisfaction': [['csatTrend', 'week'], ['responseTime', 'week']],
    '/analytics/bikeStats': [['byMonth', 'month']],
  }
  for (const lang of ['en', 'zh'] as const) {
    for (const [path, figures] of Object.entries(pages)) {
      await openIn(page, path, lang)
      for (const [key, unit] of figures) await expectPartialLast(page, key, current[unit], marks[lang][unit])
    }
  }
  await openIn(page, '/analytics/engagement', 'en')
  await expectPartialLast(page, 'weekly', current.week, marks.en.week)
  await saveScreen(page, 'dashboard-partial-week-en')
})

test('every dashboard opens on one default range, said on the page', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  const r = range(90)
  for (const lang of ['en', 'zh'] as const) {
    for (const path of ['/dashboard', '/analytics/engagement', '/analytics/performance', '/analytics/satisfaction', '/analytics/bikeStats']) {
      // This page's own figures: the page left behind may still be asking for its own (the home page
      // refreshes itself), and that answer's body is gone once the next page is opened.
      const key = path === '/dashboard' ? 'home' : path.split('/').at(-1)!
      // Each answer's body is read as it arrives: one of the page left behind is gone once the next page opens, and is skipped.
      const bodies: Promise<{ data: { query: { from: string; to: string } } } | null>[] = []
      const listen = (res: Response) => {
        if (new URL(res.url()).pathname === `/api/analytics/${key}` && res.request().method() === 'GET') bodies.push(res.json().catch(() => null))
      }
      page.on('response', listen)
      await openIn(page, path, lang)
      await expect.poll(async () => (await Promise.all(bodies)).some(Boolean)).toBe(true)
      page.off('response', listen)
      const answer = (await Promise.all(bodies)).filter((b) => b !== null).at(-1)!
      expect(answer.data.query, path).toMatchObject(r)
      const inputs = page.getByTestId('dashboard-filters').locator('.ant-picker-input input')
      await expect(inputs.nth(0)).toHaveValue(r.from)
      await expect(inputs.nth(1)).toHaveValue(r.to)
      await expect(page.getByTestId('dashboard-range-note')).toContainText(lang === 'en' ? 'The last 90 days' : '最近 90 天')
    }
  }
})

test('the date picker stops at 400 days and says so; a longer range in the URL offers the default', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  // A range of 100 days ending 200 days ago; then its start moved back, past the limit and to it.
  const end = day(Date.now() - 200 * DAY)
  const tooFar = day(Date.now() - 200 * DAY - 400 * DAY)
  const farthest = day(Date.now() - 200 * DAY - 399 * DAY)
  await openIn(page, `/analytics/engagement?from=${day(Date.now() - 299 * DAY)}&to=${end}`, 'en')
  await expect(card(page, 'active')).toBeVisible()
  const inputs = page.getByTestId('dashboard-filters').locator('.ant-picker-input input')
  await inputs.nth(0).click()
  await expect(page.getByTestId('dashboard-range-limit')).toContainText('at most 400 days')
  await saveScreen(page, 'dashboard-range-picker-en')
  // A 401-day range is not taken: the day is disabled, typed or clicked.
  await inputs.nth(0).fill(tooFar)
  await inputs.nth(0).press('Enter')
  await page.waitForTimeout(500)
  expect(page.url()).not.toContain(`from=${tooFar}`)
  await inputs.nth(0).fill(farthest)
  await inputs.nth(0).press('Enter')
  if (!page.url().includes(`from=${farthest}`)) await inputs.nth(1).press('Enter')
  await expect(page).toHaveURL(new RegExp(`from=${farthest}&to=${end}`))
  await expect(card(page, 'active')).toBeVisible()
  await expect(page.getByTestId('dashboard-error')).toHaveCount(0)

  // A pasted URL past the limit: the server's words, and a way out that works (no "Try again").
  for (const lang of ['en', 'zh'] as const) {
    await openIn(page, `/analytics/engagement?from=${tooFar}&to=${end}`, lang)
    await expect(page.getByTestId('dashboard-error')).toBeVisible()
    await expect(page.getByTestId('dashboard-retry')).toHaveCount(0)
    await saveScreen(page, `dashboard-range-too-long-${lang}`)
    await page.getByTestId('dashboard-default-range').click()
    await expect(card(page, 'active')).toBeVisible()
    await expect(page).not.toHaveURL(/from=/)
  }
})

test('every home card opens a list whose total is the card’s', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await openIn(page, '/dashboard', 'en')
  const links = page.locator('[data-testid^="card-link-"]')
  await expect(links.first()).toBeVisible()
  const cards = await links.evaluateAll((els) =>
    els.map((el) => ({ key: el.getAttribute('data-testid')!.slice('card-link-'.length), href: el.getAttribute('href')!, value: el.querySelector('[data-testid^="card-value-"]')!.textContent! })),
  )
  // Every card of the home page with a link: the admin holds every right.
  expect(cards.map((c) => c.key).sort()).toEqual(
    ['bikesRegistered', 'devicesOnline', 'membersActive7d', 'serviceOverdue', 'upgradesRunning', 'warningsCritical', 'warningsMajor', 'warningsMinor', 'warningsWarning'].sort(),
  )
  // The demo's devices keep raising warnings while the suite runs, so a card and its list are
  // compared at the same moment: the card as shown just before its click, and again if a warning
  // arrived in between.
  for (const c of cards) {
    const path = new URL(c.href, baseURL).pathname
    await expect
      .poll(
        async () => {
          const listed = page.waitForResponse((res) => new URL(res.url()).pathname.endsWith(`${path}/list`) && res.request().method() === 'POST')
          await openIn(page, '/dashboard', 'en')
          const shown = Number((await page.getByTestId(`card-link-${c.key}`).locator('[data-testid^="card-value-"]').textContent())!.replace(/\D/g, ''))
          await page.getByTestId(`card-link-${c.key}`).click()
          await expect(page).toHaveURL(c.href)
          const answer = (await (await listed).json()) as { data: { total: number } }
          return answer.data.total - shown
        },
        { message: `${c.key}: the list at ${c.href} counts what the card shows`, intervals: [0, 500, 1000], timeout: 30_000 },
      )
      .toBe(0)
    if (c.key === 'membersActive7d') await saveScreen(page, 'dashboard-members-active-list-en')
  }
})
