import { LANGUAGE_HEADER } from '@velo/shared'
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test'
import { apiLogin, call, openSignedIn, useToken } from './support/session'
import { clickRowAction, submitOperation } from './support/rows'
import { saveScreen } from './support/screens'

// Repair service orders, the proof of transitions on the generic list page (issue 13): a staff member
// takes an order for a registered bike, picked by its frame number, from draft to finished through
// the row's steps (the review says what each way in means: mail, collection, no transport; issue 36)
// and sees its timeline; the finished order offers neither Modify nor Delete (issue 34: what its
// state allows); a role without the review permission has no Review button and is refused by the
// API; a step the order's state does not allow is refused with a localized message and changes
// nothing.

const suffix = String(Date.now() % 1_000_000)
const ROLE = { roleName: `Service desk ${suffix}`, roleKey: `servicedesk${suffix}` }
const CLERK = { username: `desk${suffix}`, password: 'desk-pass1' }
const PATH = '/service/repairOrder'

interface Order {
  repairOrderId: number
  orderNo: string
  status: string
}

const orders = (page: Page) => page.getByTestId('entity-list-repairOrder')
const orderRow = (page: Page, text: string) => orders(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: text })
const success = (page: Page, text: string | RegExp) => page.locator('.ant-message-success').filter({ hasText: text })

interface Bike {
  bikeId: number
  frameNumber: string
  /** Its model's name, which an order for it shows as its product. */
  productName: string
}

/** A registered bike of a model, colour and size of its own: a service order names one. */
async function addBike(request: APIRequestContext, token: string, tag: string): Promise<Bike> {
  const code = `${tag}${suffix}`.toUpperCase()
  const model = await call<{ modelId: number }>(request, 'POST', '/bike/modelSpec', token, { category: 'city', name: `Service ${code}`, code: `S${code}` })
  const colour = await call<{ colourId: number }>(request, 'POST', '/bike/modelSpec/colour', token, { modelId: model.modelId, name: 'Black', code: 'BK' })
  const size = await call<{ sizeId: number }>(request, 'POST', '/bike/modelSpec/size', token, { modelId: model.modelId, name: 'M', code: 'M' })
  const bike = await call<Bike>(request, 'POST', '/bike/bike', token, { category: 'city', frameNumber: `VLSO${code}`, modelId: model.modelId, colourId: colour.colourId, sizeId: size.sizeId })
  return { ...bike, productName: `Service ${code}` }
}

/** The test ids of a row's actions: its buttons and the items of its More menu. */
async function rowActionIds(page: Page, row: Locator): Promise<string[]> {
  const inline = await row.locator('.crud-row-actions > button[data-testid]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-testid')!))
  if (!inline.includes('row-more')) return inline
  await row.getByTestId('row-more').click()
  const menu = page.locator('.ant-dropdown:visible')
  await expect(menu).toBeVisible()
  const more = await menu.locator('[data-testid]').evaluateAll((items) => items.map((i) => i.getAttribute('data-testid')!))
  await row.getByTestId('row-more').click()
  await expect(menu).toHaveCount(0)
  return [...inline.filter((id) => id !== 'row-more'), ...more]
}

/** An order in Draft, made through the API as the console's add form would. */
async function addOrder(request: APIRequestContext, token: string, bikeId: number): Promise<Order> {
  return call<Order>(request, 'POST', PATH, token, {
    serviceType: 'repair',
    contactEmail: 'rider@example.com',
    bikeId,
    firstName: 'Ada',
    lastName: 'Lovelace',
    issueDescription: 'The motor stops after a kilometre.',
  })
}

/** Runs a step through the API; answers the HTTP status and the envelope. */
async function step(request: APIRequestContext, token: string, id: number, name: string, body: object = {}, language = 'en_US') {
  const response = await request.post(`/api${PATH}/${id}/${name}`, { headers: { Authorization: token, [LANGUAGE_HEADER]: language }, data: body })
  return { status: response.status(), ...((await response.json()) as { code: number; msg: string; data: unknown }) }
}

test.beforeAll(async ({ request }) => {
  // A role with every button of the page but Review (and so without Reject, which needs it too).
  const token = await apiLogin(request)
  const menus = (await call<{ rows: Array<{ menuId: number; parentId: number; menuType: string; perms: string | null }> }>(request, 'POST', '/system/menu/list', token, {})).rows
  const ordersPage = menus.find((m) => m.menuType === 'C' && m.perms === 'service:repairOrder:list')
  expect(ordersPage, 'the seeded Repair service orders page').toBeTruthy()
  const buttons = menus.filter((m) => m.parentId === ordersPage!.menuId && m.perms !== 'service:repairOrder:review')
  expect(buttons.map((b) => b.perms)).toContain('service:repairOrder:withdraw')
  const role = await call<{ roleId: number }>(request, 'POST', '/system/role', token, {
    ...ROLE,
    roleSort: 0,
    status: '0',
    // Every order, whoever wrote it: the role's own rows only (the default) would hide the admin's.
    dataScope: '1',
    menuIds: [ordersPage!.parentId, ordersPage!.menuId, ...buttons.map((b) => b.menuId)],
  })
  const depts = await call<{ value: number }[]>(request, 'GET', '/system/dept/options', token)
  await call(request, 'POST', '/system/user', token, {
    userName: CLERK.username,
    nickName: 'Service desk clerk',
    deptId: depts[0]!.value,
    password: CLERK.password,
    email: `${CLERK.username}@example.com`,
    phonenumber: '+31 20 555 0101',
    roleIds: [role.roleId],
  })
})

test('a staff member reviews an order for mail return, adds a remark, receives the bike, finishes it and sees the timeline; finished, it offers no Modify or Delete', async ({ page, baseURL }) => {
  // An order's whole life in one test, some seventy steps: a minute on a busy two-core machine.
  test.setTimeout(120_000)
  const token = await openSignedIn(page, baseURL!, PATH)
  const bike = await addBike(page.request, token, 'A')
  const bikeId = bike.frameNumber
  await expect(orders(page)).toBeVisible()

  // A new order, through the add form: the bike is picked by its frame number, not typed.
  await orders(page).getByTestId('crud-add').click()
  const form = page.getByTestId('entity-form')
  await form.getByLabel('Repair', { exact: true }).check()
  await form.getByLabel('Contact email').fill('rider@example.com')
  await form.getByLabel('Bike ID').click()
  await form.getByLabel('Bike ID').fill(bike.frameNumber)
  await page.locator('.ant-select-dropdown:visible').getByTitle(bike.frameNumber, { exact: true }).click()
  await form.getByLabel('First name').fill('Ada')
  await form.getByLabel('Last name').fill('Lovelace')
  await form.getByLabel('Issue description').fill('The motor stops after a kilometre.')
  await page.getByTestId('entity-form-save').click()
  await expect(success(page, 'Added successfully')).toBeVisible()
  const row = orderRow(page, bikeId)
  await expect(row).toContainText('Draft')
  // The product comes from the bike.
  await expect(row).toContainText(bike.productName)
  // A draft is still modified and deleted.
  expect(await rowActionIds(page, row)).toEqual(expect.arrayContaining(['row-edit', 'row-delete']))

  // Submit: no input, so a confirmation naming the order.
  await clickRowAction(row, 'row-step-submit')
  const confirm = page.locator('.ant-modal-confirm')
  await expect(confirm).toContainText(/Submit RS\d{8}-\w{6}\?/)
  await confirm.getByRole('button', { name: 'Submit' }).click()
  await expect(success(page, 'Submit: now Pending review')).toBeVisible()
  await expect(row).toContainText('Pending review')

  // The status filter, by keyboard: All → Draft → Pending review.
  const bar = orders(page).getByRole('radiogroup', { name: 'Filter by Status' })
  await bar.getByRole('radio', { name: /^All \(\d+\)$/ }).focus()
  await page.keyboard.press('ArrowRight')
  await expect(bar.getByRole('radio', { name: /^Draft \(\d+\)$/ })).toBeChecked()
  await expect(row).toHaveCount(0)
  await page.keyboard.press('ArrowRight')
  await expect(bar.getByRole('radio', { name: /^Pending review \(\d+\)$/ })).toBeChecked()
  await expect(row).toBeVisible()
  await bar.getByText(/^All \(/).click()

  // Review, choosing mail return: each way in says what it means (issue 36), not only its name.
  await clickRowAction(row, 'row-step-review')
  const review = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  const ways = review.getByTestId('operation-target')
  await expect(ways.getByRole('radio')).toHaveCount(3)
  await expect(ways.getByRole('radio', { name: /^Bike collecting\s*By mail: the rider sends the bike to us/ })).toBeVisible()
  await expect(ways.getByRole('radio', { name: /^Arranging collection\s*Collection: we book a courier to pick the bike up/ })).toBeVisible()
  await expect(ways.getByRole('radio', { name: /^Processing\s*Being repaired\. No transport needed/ })).toBeVisible()
  await ways.getByText('Bike collecting', { exact: true }).click()
  await expect(ways.getByRole('radio', { name: /^Bike collecting/ })).toBeChecked()
  await review.getByLabel('Remark').fill('Mail it back in the original box')
  await submitOperation(review, 'Review: now Bike collecting')
  await expect(row).toContainText('Bike collecting')
  await expect(bar).toContainText(/Bike collecting \([1-9]\d*\)/)

  // While the customer mails the bike: a remark, and the order stays where it is.
  await clickRowAction(row, 'row-step-addRemark')
  const remark = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await remark.getByTestId('operation-submit').click()
  await expect(remark).toContainText('Remark is required')
  await remark.getByLabel('Remark').fill('Parcel announced by the carrier')
  await submitOperation(remark, 'Add remark: now Bike collecting')

  await clickRowAction(row, 'row-step-receive')
  const receive = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await receive.getByLabel('Tracking number').fill('3SABC1234567')
  await submitOperation(receive, 'Bike received: now Processing')
  await expect(row).toContainText('Processing')

  // Finish has its own confirmation, shown above its optional remark.
  await clickRowAction(row, 'row-step-finish')
  const finish = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await expect(finish).toContainText(/Finish RS\d{8}-\w{6}\?/)
  await submitOperation(finish, 'Finish: now Finished')
  await expect(row).toContainText('Finished')

  // Only now can it be evaluated, with stars.
  await clickRowAction(row, 'row-action-evaluate')
  const evaluate = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await evaluate.locator('.ant-rate-star').nth(3).click()
  await evaluate.getByLabel('Evaluation text').fill('Quick and friendly')
  await submitOperation(evaluate, 'Evaluate: done')

  // The timeline in the details: every step, who, and what was entered.
  await clickRowAction(row, 'row-details')
  const details = page.locator('.ant-drawer:visible')
  const records = details.getByTestId('transition-record')
  await expect(records).toHaveCount(5)
  await expect(records.nth(0)).toContainText('Submit')
  await expect(records.nth(0)).toContainText('Draft')
  await expect(records.nth(0)).toContainText('Pending review')
  await expect(records.nth(0)).toContainText('admin')
  await expect(records.nth(1)).toContainText('Review')
  await expect(records.nth(1)).toContainText('Mail it back in the original box')
  await expect(records.nth(2)).toContainText('Add remark')
  await expect(records.nth(2)).toContainText('Parcel announced by the carrier')
  await expect(records.nth(3)).toContainText('Tracking number')
  await expect(records.nth(3)).toContainText('3SABC1234567')
  await expect(records.nth(4)).toContainText('Finished')
  await expect(records.nth(1)).toContainText(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/)
  await saveScreen(page, 'service-order-timeline')
  await details.locator('.ant-drawer-close').click()
  await expect(details).toHaveCount(0)

  // Finished and rated, it is the record of what was done: neither Modify nor Delete, in the row or its More menu.
  const offered = await rowActionIds(page, row)
  expect(offered).toContain('row-details')
  expect(offered).not.toContain('row-edit')
  expect(offered).not.toContain('row-delete')
  // Ticked, the toolbar's Modify and Delete are disabled and say why.
  await row.getByRole('checkbox').check()
  const order = (await call<{ rows: Order[] }>(page.request, 'POST', `${PATH}/list`, token, { pageNum: 1, pageSize: 1, bikeId: bike.bikeId })).rows[0]!
  await expect(orders(page).getByTestId('crud-edit')).toBeDisabled()
  await expect(orders(page).getByTestId('crud-delete')).toBeDisabled()
  await orders(page).locator('.crud-disabled-reason').filter({ has: page.getByTestId('crud-delete') }).hover()
  await expect(page.getByRole('tooltip').filter({ hasText: 'Cannot delete' })).toHaveText(`Cannot delete service order "${order.orderNo}": it is Finished`)
  await saveScreen(page, 'service-order-finished-kept')
  await row.getByRole('checkbox').uncheck()
  // The server refuses them too, and the order and its history stay.
  const refused = await page.request.delete(`/api${PATH}/${order.repairOrderId}`, { headers: { Authorization: token } })
  expect(refused.status()).toBe(409)
  expect(((await refused.json()) as { msg: string }).msg).toBe(`Cannot delete service order "${order.orderNo}": it is Finished`)
  expect((await call<Array<{ step: string }>>(page.request, 'GET', `${PATH}/${order.repairOrderId}/history`, token)).map((h) => h.step)).toEqual(['submit', 'review', 'addRemark', 'receive', 'finish'])
})

test('a role without the review permission sees no Review button, and the API refuses it with 403', async ({ page, browser, baseURL }) => {
  const admin = await apiLogin(page.request)
  const order = await addOrder(page.request, admin, (await addBike(page.request, admin, 'B')).bikeId)
  expect((await step(page.request, admin, order.repairOrderId, 'submit')).code).toBe(200)

  const context = await browser.newContext({ baseURL })
  const clerk = await context.newPage()
  const token = await apiLogin(clerk.request, CLERK)
  await useToken(context, baseURL!, token)
  await clerk.goto(PATH)
  const row = orderRow(clerk, order.orderNo)
  await expect(row).toContainText('Pending review')
  // Withdraw is theirs (the first step, so in the row); Review and Reject are not, neither in the row nor under More.
  await expect(row.getByTestId('row-step-withdraw')).toBeVisible()
  await expect(row.getByTestId('row-step-review')).toHaveCount(0)
  await expect(row.getByTestId('row-step-reject')).toHaveCount(0)
  await row.getByTestId('row-more').click()
  const more = clerk.locator('.ant-dropdown:visible')
  await expect(more.getByTestId('row-details')).toBeVisible()
  await expect(more.getByTestId('row-step-review')).toHaveCount(0)
  await expect(more.getByTestId('row-step-reject')).toHaveCount(0)

  const refused = await step(clerk.request, token, order.repairOrderId, 'review', { to: 'processing' })
  expect(refused.status).toBe(403)
  expect((await call<Order>(page.request, 'GET', `${PATH}/${order.repairOrderId}`, admin)).status).toBe('pending')
  await context.close()
})

test('a step the state does not allow is refused with a localized message and changes nothing', async ({ page, baseURL }) => {
  const admin = await apiLogin(page.request)
  const order = await addOrder(page.request, admin, (await addBike(page.request, admin, 'C')).bikeId)
  expect((await step(page.request, admin, order.repairOrderId, 'submit')).code).toBe(200)

  // Finish is for an order in Processing; this one waits for its review.
  const refused = await step(page.request, admin, order.repairOrderId, 'finish')
  expect(refused.status).toBe(409)
  expect(refused.msg).toBe('Cannot Finish: it is Pending review now')
  const refusedZh = await step(page.request, admin, order.repairOrderId, 'finish', {}, 'zh_CN')
  expect(refusedZh.msg).toBe('当前状态为“待审核”，不能完成')
  expect((await call<Order>(page.request, 'GET', `${PATH}/${order.repairOrderId}`, admin)).status).toBe('pending')
  const history = await call<Array<{ step: string }>>(page.request, 'GET', `${PATH}/${order.repairOrderId}/history`, admin)
  expect(history.map((h) => h.step)).toEqual(['submit'])

  // In the console: the page still offers Review, but another reviewer got there first.
  await openSignedIn(page, baseURL!, PATH)
  const row = orderRow(page, order.orderNo)
  await expect(row).toContainText('Pending review')
  expect((await step(page.request, admin, order.repairOrderId, 'review', { to: 'processing' })).code).toBe(200)
  await clickRowAction(row, 'row-step-review')
  const review = page.getByRole('dialog').filter({ has: page.getByTestId('operation-form') })
  await review.getByTestId('operation-target').getByText('Arranging collection', { exact: true }).click()
  await review.getByTestId('operation-submit').click()
  await expect(page.locator('.ant-message-error').filter({ hasText: 'Cannot Review: it is Processing now' })).toBeVisible()
  // The list shows where the order is now; the refused step left no trace.
  await review.getByRole('button', { name: 'Cancel' }).click()
  await expect(row).toContainText('Processing')
  const after = await call<Array<{ step: string }>>(page.request, 'GET', `${PATH}/${order.repairOrderId}/history`, admin)
  expect(after.map((h) => h.step)).toEqual(['submit', 'review'])
})
