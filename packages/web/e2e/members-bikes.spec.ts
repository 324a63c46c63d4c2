import { LANGUAGE_HEADER } from '@velo/shared'
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test'
import { SimulatedDevice } from '@velo/device-sim'
import { addDevice, apiLogin, brokerUrl, call, demoModel, openSignedIn, removeDevices } from './support/session'
import { clickRowAction, submitOperation } from './support/rows'
import { saveScreen } from './support/screens'

// The members and bikes areas on the entity engine, on the demo data the e2e server starts with
// (support/start-server.mjs runs `npm run demo` at a small scale: members sign up in the app, so
// staff cannot add one). A bound bike is not deleted until it is unbound; a member's details show
// their bound bikes and their rides with a chart; opening unread feedback marks it read, and a
// reply is kept with who wrote it.

interface ListPage<R> {
  rows: R[]
  total: number
}

interface Bike {
  bikeId: number
  frameNumber: string
  bindStatus: string
  memberId: number | null
  memberIdLabel: string | null
  iotDeviceId: number | null
  iotDeviceIdLabel: string | null
}

interface BikeRecord {
  eventKind: string
  detail: string
  memberId: number | null
  operBy: string
}

interface Feedback {
  feedbackId: number
  content: string
  readState: string
  readBy: string
  reply: string
  replyBy: string
}

const listOf = (page: Page, key: string) => page.getByTestId(`entity-list-${key}`)
const rowsOf = (page: Page, key: string) => listOf(page, key).getByTestId('crud-table').locator('tbody tr.ant-table-row')
const success = (page: Page, text: string | RegExp) => page.locator('.ant-message-success').filter({ hasText: text })
const drawer = (page: Page) => page.locator('.ant-drawer:visible')
/** The value of a field in the details (a bordered description list: label cell, then its value). */
const detail = (page: Page, label: string) =>
  drawer(page).getByTestId('entity-details').locator(`xpath=.//th[normalize-space(.)="${label}"]/following-sibling::td[1]`)

async function boundBikes(request: APIRequestContext, token: string): Promise<Bike[]> {
  const page = await call<ListPage<Bike>>(request, 'POST', '/bike/bike/list', token, { pageNum: 1, pageSize: 100, bindStatus: 'bound' })
  expect(page.rows.length, 'the demo data has bound bikes').toBeGreaterThan(1)
  return page.rows
}

/** An operation's dialog (over a details drawer, which is a dialog too). */
const operationDialog = (page: Page) => page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })

/** Chooses an option of a dropdown by its field's label. */
async function choose(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await scope.getByLabel(label, { exact: true }).click()
  await page.locator('.ant-select-dropdown:visible').getByTitle(option, { exact: true }).click()
}

/** Fills one field of a list page's search form and searches. */
async function search(page: Page, key: string, label: string, value: string): Promise<void> {
  const form = listOf(page, key).getByTestId('crud-search')
  await form.getByLabel(label, { exact: true }).fill(value)
  await listOf(page, key).getByTestId('crud-search-submit').click()
}

test('a bound bike is not deleted; unbound, it is', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const bike = (await boundBikes(page.request, token))[0]!
  expect(bike.memberId, 'a bound bike has its member').toBeTruthy()
  // Without an IoT device: the Unbind dialog says so.
  if (bike.iotDeviceId !== null) await call(page.request, 'PUT', '/bike/bike', token, { bikeId: bike.bikeId, iotDeviceId: null })

  // The refusal is localized.
  const zh = await page.request.delete(`/api/bike/bike/${bike.bikeId}`, { headers: { Authorization: token, [LANGUAGE_HEADER]: 'zh_CN' } })
  expect(zh.status()).toBe(409)
  expect(((await zh.json()) as { msg: string }).msg).toBe(`不能删除车辆“${bike.frameNumber}”：已绑定的车辆不能删除`)

  await openSignedIn(page, baseURL!, '/bike/bike')
  await search(page, 'bike', 'Bike ID / frame number', bike.frameNumber)
  const row = rowsOf(page, 'bike').filter({ hasText: bike.frameNumber })
  await expect(row).toHaveCount(1)
  await expect(row).toContainText('Bound')

  // The state rule (SPEC §5): no Delete on the row, and ticked, the toolbar's Delete is disabled and says why.
  await expect(row.getByTestId('row-delete')).toHaveCount(0)
  await row.getByRole('checkbox').check()
  await expect(listOf(page, 'bike').getByTestId('crud-delete')).toBeDisabled()
  await listOf(page, 'bike').locator('.crud-disabled-reason').filter({ has: page.getByTestId('crud-delete') }).hover()
  await expect(page.getByRole('tooltip').filter({ hasText: 'Cannot delete' })).toHaveText(`Cannot delete bike "${bike.frameNumber}": Bound vehicle cannot be deleted`)
  await row.getByRole('checkbox').uncheck()
  const confirm = page.locator('.ant-modal-confirm')

  // Unbind, in red, with a reason.
  await clickRowAction(row, 'row-action-unbind')
  const dialog = operationDialog(page)
  await expect(dialog).toContainText(`Unbind ${bike.frameNumber} from its member?`)
  await expect(dialog.getByTestId('operation-note')).toHaveText('No IoT device is fitted to this bike: only the binding ends.')
  await choose(page, dialog, 'Reason', 'Sold or given away')
  await submitOperation(dialog, 'Unbind: done')
  await expect(row).toContainText('Unbound')
  await expect(row.getByTestId('row-action-unbind')).toHaveCount(0)
  const after = await call<Bike>(page.request, 'GET', `/bike/bike/${bike.bikeId}`, token)
  expect(after.bindStatus).toBe('unbound')
  expect(after.memberId).toBeNull()
  await saveScreen(page, 'bike-unbound')

  // Now the row's delete goes through.
  await clickRowAction(row, 'row-delete')
  await expect(confirm).toContainText(bike.frameNumber)
  await confirm.getByRole('button', { name: 'OK' }).click()
  await expect(success(page, 'Deleted successfully')).toBeVisible()
  await expect(row).toHaveCount(0)
  const gone = await page.request.get(`/api/bike/bike/${bike.bikeId}`, { headers: { Authorization: token } })
  expect(((await gone.json()) as { code: number }).code).toBe(404)
})

test("a member's details show their bound bikes and their rides with a chart", async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  // A member with a bound bike and rides (not the first bound bike: the test above deletes it).
  let found: { bike: Bike; rides: number } | undefined
  for (const bike of (await boundBikes(page.request, token)).slice(1)) {
    const rides = await call<ListPage<unknown>>(page.request, 'POST', '/member/ride/list', token, { pageNum: 1, pageSize: 1, memberId: bike.memberId })
    if (rides.total > 0) {
      found = { bike, rides: rides.total }
      break
    }
  }
  expect(found, 'a demo member with a bound bike and rides').toBeTruthy()
  const { bike } = found!
  const email = bike.memberIdLabel!

  await openSignedIn(page, baseURL!, '/member/member')
  await expect(rowsOf(page, 'member').first()).toBeVisible()
  // Members sign up in the app: no Add (nor import) on the page.
  await expect(listOf(page, 'member').getByTestId('crud-add')).toHaveCount(0)
  await expect(listOf(page, 'member').getByTestId('crud-import')).toHaveCount(0)

  await search(page, 'member', 'Email', email)
  const row = rowsOf(page, 'member').filter({ hasText: email })
  await expect(row).toHaveCount(1)
  await expect(row).toContainText('Bound')
  await clickRowAction(row, 'row-details')

  const details = drawer(page)
  await expect(detail(page, 'Email')).toHaveText(email)
  const related = details.getByTestId('related-lists')
  await expect(related.getByRole('tab', { name: 'Bound bikes' })).toHaveAttribute('aria-selected', 'true')
  const bikes = related.getByTestId('related-bike.memberId')
  await expect(bikes.getByTestId('related-table').locator('tbody tr.ant-table-row').filter({ hasText: bike.frameNumber })).toHaveCount(1)

  await related.getByRole('tab', { name: 'Rides' }).click()
  const rides = related.getByTestId('related-ride.memberId')
  await expect(rides.getByTestId('related-table').locator('tbody tr.ant-table-row')).toHaveCount(Math.min(found!.rides, 10))
  await expect(rides.getByTestId('related-chart-ride.memberId')).toContainText('Distance (km) per week')
  // echarts draws on a canvas.
  const canvas = rides.getByTestId('related-chart-canvas').locator('canvas')
  await expect(canvas).toBeVisible()
  expect((await canvas.boundingBox())!.height).toBeGreaterThan(100)
  await saveScreen(page, 'member-details')
})

// Issue 36: staff unbind a bike from the member's details too, with the bike list's dialog and right.
test("a member's bike is unbound from their details: the dialog names the bike, the member and the IoT device's fate, and asks why", async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  // A bound bike with its IoT device (not the first: the first test deletes it; not the next: the test above lists it).
  const bike = (await boundBikes(page.request, token)).slice(2).find((b) => b.iotDeviceId !== null && b.memberIdLabel)
  expect(bike, 'a demo bike bound to a member, with an IoT device fitted').toBeTruthy()
  const { frameNumber, memberId } = bike!
  const email = bike!.memberIdLabel!
  const sn = bike!.iotDeviceIdLabel!
  const theirs = await call<ListPage<Bike>>(page.request, 'POST', '/bike/bike/list', token, { pageNum: 1, pageSize: 100, memberId, bindStatus: 'bound' })

  await openSignedIn(page, baseURL!, '/member/member')
  await search(page, 'member', 'Email', email)
  const member = rowsOf(page, 'member').filter({ hasText: email })
  await expect(member).toHaveCount(1)
  await clickRowAction(member, 'row-details')
  const bikes = drawer(page).getByTestId('related-bike.memberId')
  const row = bikes.getByTestId('related-table').locator('tbody tr.ant-table-row').filter({ hasText: frameNumber })
  await expect(row).toHaveCount(1)

  await clickRowAction(row, 'row-action-unbind')
  const dialog = operationDialog(page)
  await expect(dialog).toContainText(`Unbind: bike ${frameNumber}`)
  // What staff decide on: the bike, whose it is, and what becomes of its device.
  await expect(dialog.getByTestId('operation-context-frameNumber')).toHaveText(frameNumber)
  await expect(dialog.getByTestId('operation-context-memberId')).toHaveText(email)
  await expect(dialog.getByTestId('operation-context-iotDeviceId')).toHaveText(sn)
  await expect(dialog.getByTestId('operation-note')).toHaveText(
    `The IoT device ${sn} stays fitted to this bike and goes on reporting to the console; its bind state becomes Unbound, and its warnings no longer reach ${email}.`,
  )
  // The reason is required.
  await dialog.getByTestId('operation-submit').click()
  await expect(dialog).toContainText('Reason is required')
  await choose(page, dialog, 'Reason', 'Stolen or lost')
  const note = `Reported stolen at the station (${Date.now() % 1_000_000})`
  await dialog.getByLabel('Note').fill(note)
  await saveScreen(page, 'member-bike-unbind')
  await submitOperation(dialog, 'Unbind: done')
  await expect(dialog).toHaveCount(0)

  // The member's details read again: the bike is no longer theirs, and the last one unbinds them.
  await expect(row).toHaveCount(0)
  if (theirs.total === 1) await expect(detail(page, 'Bind status')).toHaveText('Unbound')
  const after = await call<Bike>(page.request, 'GET', `/bike/bike/${bike!.bikeId}`, token)
  expect(after).toMatchObject({ bindStatus: 'unbound', memberId: null, iotDeviceId: bike!.iotDeviceId })
  const device = await call<{ bindState: string }>(page.request, 'GET', `/iot/device/${bike!.iotDeviceId}`, token)
  expect(device.bindState).toBe('unbound')

  // The bike's history keeps why, and whose it was.
  const records = await call<ListPage<BikeRecord>>(page.request, 'POST', '/bike/record/list', token, { pageNum: 1, pageSize: 10, bikeId: bike!.bikeId, eventKind: 'unbound' })
  expect(records.rows[0]).toMatchObject({ detail: `Stolen or lost: ${note}`, memberId, operBy: 'admin' })
  await drawer(page).getByRole('button', { name: 'Close' }).click()
  await page.goto('/bike/bike')
  await search(page, 'bike', 'Bike ID / frame number', frameNumber)
  await clickRowAction(rowsOf(page, 'bike').filter({ hasText: frameNumber }), 'row-details')
  await expect(drawer(page).getByTestId('related-bikeRecord.bikeId')).toContainText(`Stolen or lost: ${note}`)
})

test('opening unread feedback marks it read; a reply is kept with who wrote it', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const unread = await call<ListPage<Feedback>>(page.request, 'POST', '/member/feedback/list', token, { pageNum: 1, pageSize: 10, readState: 'unread' })
  expect(unread.rows.length, 'the demo data has unread feedback').toBeGreaterThan(0)
  const item = unread.rows[0]!
  // Enough of its content to find it by (the content search is "contains").
  const words = item.content.slice(0, 16)

  await openSignedIn(page, baseURL!, '/member/feedback')
  await search(page, 'feedback', 'Content', words)
  // Members write alike: the row is the one of its id (antd keys rows by the definition's id field).
  const row = rowsOf(page, 'feedback').and(page.locator(`[data-row-key="${item.feedbackId}"]`))
  await expect(row).toHaveCount(1)
  await expect(row).toContainText('Unread')

  // Opened in the details: read, by this user.
  await clickRowAction(row, 'row-details')
  await expect(detail(page, 'Read state')).toHaveText('Read')
  await expect(detail(page, 'Read by')).toHaveText('admin')
  await drawer(page).getByRole('button', { name: 'Close' }).click()
  await expect(drawer(page)).toHaveCount(0)
  // The list shows it read without a refresh: closing the details reloads it.
  await expect(row).not.toContainText('Unread')
  await expect(row).toContainText('Read')

  // Reply: the text is required.
  await clickRowAction(row, 'row-action-reply')
  const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await dialog.getByTestId('operation-submit').click()
  await expect(dialog).toContainText('Reply is required')
  const reply = `Thank you, we have passed this on to the team (${Date.now() % 1_000_000}).`
  await dialog.getByLabel('Reply').fill(reply)
  await dialog.getByTestId('operation-submit').click()
  await expect(success(page, 'Reply: done')).toBeVisible()
  await expect(dialog).toHaveCount(0)
  await expect(row).toContainText(reply)

  await clickRowAction(row, 'row-details')
  await expect(detail(page, 'Reply')).toHaveText(reply)
  await expect(detail(page, 'Reply by')).toHaveText('admin')
  await expect(detail(page, 'Reply time')).toHaveText(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/)
  await saveScreen(page, 'feedback-replied')

  const saved = await call<Feedback>(page.request, 'GET', `/member/feedback/${item.feedbackId}`, token)
  expect(saved).toMatchObject({ readState: 'read', readBy: 'admin', reply, replyBy: 'admin' })
})

test('in Chinese, a bike gets a colour and size of its model, and shows its IoT device coming online live', async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!)
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  const models = await call<ListPage<{ modelId: number; name: string }>>(page.request, 'POST', '/bike/modelSpec/list', token, { pageNum: 1, pageSize: 10 })
  const model = models.rows[0]!
  const colours = await call<{ value: number; label: string }[]>(page.request, 'GET', `/bike/modelSpec/colour/options?modelId=${model.modelId}`, token)
  const sizes = await call<{ value: number; label: string }[]>(page.request, 'GET', `/bike/modelSpec/size/options?modelId=${model.modelId}`, token)
  expect(colours.length && sizes.length, 'the demo model has colours and sizes').toBeTruthy()
  const frameNumber = `VLE2E${String(Date.now() % 1_000_000_000).padStart(9, '0')}`

  await page.goto('/bike/bike')
  await listOf(page, 'bike').getByTestId('crud-add').click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('车辆编号/车架号').fill(frameNumber)
  const choose = async (label: string, option: string) => {
    await dialog.getByLabel(label, { exact: true }).click()
    await page.locator('.ant-select-dropdown:visible').getByTitle(option, { exact: true }).click()
  }
  await choose('类别', '城市')
  // The colour waits for the model, then offers the model's colours only.
  await expect(dialog.getByText('请先选择车型').first()).toBeVisible()
  await choose('车型', model.name)
  await choose('颜色', colours[0]!.label)
  await choose('尺寸', sizes[0]!.label)
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success')).toBeVisible()

  // An IoT device fitted to it: the row shows its SN and state, then follows the device live.
  const iotModel = await demoModel(page.request, token)
  const device = await addDevice(page.request, token, `${iotModel.snPrefix}BK${String(Date.now() % 1_000_000).padStart(6, '0')}`, iotModel.modelId)
  const bike = (await call<ListPage<Bike>>(page.request, 'POST', '/bike/bike/list', token, { pageNum: 1, pageSize: 1, frameNumber })).rows[0]!
  await call(page.request, 'PUT', '/bike/bike', token, { bikeId: bike.bikeId, iotDeviceId: device.deviceId })
  await search(page, 'bike', '车辆编号/车架号', frameNumber)
  const row = rowsOf(page, 'bike').filter({ hasText: frameNumber })
  await expect(row).toContainText(device.sn)
  await expect(row).toContainText('未激活')
  const sim = new SimulatedDevice({ url: await brokerUrl(page.request, token), sn: device.sn, secret: device.secret, heartbeatSeconds: 20, telemetrySeconds: 0, keepalive: 5, mqtt: { reconnectPeriod: 0 } })
  try {
    await sim.connect()
    await expect(row).toContainText('在线')
    await saveScreen(page, 'bike-device-live-zh')
  } finally {
    await sim.disconnect().catch(() => {})
    await call(page.request, 'PUT', '/bike/bike', token, { bikeId: bike.bikeId, iotDeviceId: null }).catch(() => {})
    await removeDevices(page.request, token, [device.deviceId]).catch(() => {})
  }
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
})

test('every members and bikes page opens in Chinese, with rows where the demo data has them', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  const pages = [
    { path: '/member/member', key: 'member', zh: '会员列表', rows: true },
    { path: '/member/feedback', key: 'feedback', zh: '意见反馈', rows: true },
    { path: '/member/feedbackTag', key: 'feedbackTag', zh: '反馈标签', rows: true },
    { path: '/bike/bike', key: 'bike', zh: '车辆列表', rows: true },
    { path: '/bike/picture', key: 'bikePicture', zh: '车辆图片', rows: false },
    { path: '/bike/modelSpec', key: 'bikeModel', zh: '车型颜色尺寸', rows: true },
    { path: '/bike/staticImage', key: 'staticImage', zh: '静态图片', rows: false },
    { path: '/bike/record', key: 'bikeRecord', zh: '车辆档案', rows: true },
  ]
  for (const p of pages) {
    await page.goto(p.path)
    await expect(page).toHaveTitle(`${p.zh} - Velo Admin`)
    await expect(listOf(page, p.key).getByTestId('crud-table')).toBeVisible()
    if (p.rows) await expect(rowsOf(page, p.key).first()).toBeVisible()
    // The toolbar and the search are in Chinese too.
    await expect(listOf(page, p.key).getByTestId('crud-search-submit')).toContainText('搜索')
    await expect(page.locator('.ant-message-error')).toHaveCount(0)
  }
  await saveScreen(page, 'bike-records-zh')
})

// STYLE pattern 12: a list's state lives in its URL.
test('a list keeps its search, page and sort in the address: a reload opens it as it was, and the menu brings it back so', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/member/member')
  const list = listOf(page, 'member')
  await expect(rowsOf(page, 'member').first()).toBeVisible()
  const email = list.locator('thead th').filter({ hasText: 'Email' })
  await email.click()
  await expect(email).toHaveAttribute('aria-sort', 'ascending')
  await expect(page).toHaveURL(/\/member\/member\?orderByColumn=email&isAsc=asc$/)
  // The page-2 rows are read once their answer is drawn: the pagination turns before they arrive.
  const page2Listed = page.waitForResponse(
    (r) => new URL(r.url()).pathname.endsWith('/member/member/list') && r.request().method() === 'POST' && /"pageNum":2\b/.test(r.request().postData() ?? ''),
  )
  await list.locator('.ant-pagination-item-2').click()
  await expect(page).toHaveURL(/\/member\/member\?pageNum=2&orderByColumn=email&isAsc=asc$/)
  await expect(list.locator('.ant-pagination-item-2')).toHaveClass(/ant-pagination-item-active/)
  await page2Listed
  await expect(list.locator('.ant-spin-spinning')).toHaveCount(0)
  const firstOnPage2 = await rowsOf(page, 'member').first().locator('td').nth(1).textContent()

  // A reload (or the address sent to a colleague) shows the same page in the same order.
  await page.reload()
  await expect(list.locator('.ant-pagination-item-2')).toHaveClass(/ant-pagination-item-active/)
  await expect(email).toHaveAttribute('aria-sort', 'ascending')
  await expect(rowsOf(page, 'member').first().locator('td').nth(1)).toHaveText(firstOnPage2!)

  // A search starts from the first page, and says so.
  await search(page, 'member', 'Email', 'example')
  await expect(page).toHaveURL(/\/member\/member\?email=example&orderByColumn=email&isAsc=asc$/)
  await expect(list.locator('.ant-pagination-item-1')).toHaveClass(/ant-pagination-item-active/)

  // Away and back by the menu (a link naming no filters): the list is as the user left it, and its address says so again.
  const goTo = (path: string) =>
    page.evaluate((to) => {
      window.history.pushState(null, '', to)
      window.dispatchEvent(new PopStateEvent('popstate'))
    }, path)
  await goTo('/system/user')
  await expect(page.getByTestId('entity-list-user').locator('.ant-table-row').first()).toBeVisible()
  await goTo('/member/member')
  await expect(page).toHaveURL(/\/member\/member\?email=example&orderByColumn=email&isAsc=asc$/)
  await expect(list.getByTestId('crud-search').getByLabel('Email', { exact: true })).toHaveValue('example')

  // Reset clears the search; the sort stays, as the column header shows.
  await list.getByTestId('crud-search-reset').click()
  await expect(page).toHaveURL(/\/member\/member\?orderByColumn=email&isAsc=asc$/)
})
