import { readFile } from 'node:fs/promises'
import { expect, test, type Page } from '@playwright/test'
import { apiLogin, call, openSignedIn } from './support/session'
import { expectSuccessMessage } from './support/messages'
import { clickRowAction, submitOperation } from './support/rows'
import { saveScreen } from './support/screens'
import { sheetRowsOf } from './support/excel'

// Orders › Bike orders (issue 15): a staff member adds an order of 100, generates its frame numbers
// after seeing the format and the next number, generates 6 more past the 5 % rule (a warning, then a
// second confirmation, then the order's flag), exports the numbers and reads them back, and prints
// the label sheet: a PDF with one label per number, 24 to an A4 page.

const suffix = String(Date.now() % 1_000_000)
const ORDER_NO = `PO-E2E-${suffix}`
const FRAME = 'ABCDEFGHJKLMNPRSTUVWXYZ'
const SPEC = Array.from({ length: 5 }, (_, i) => FRAME[(Number(suffix) + i * 7) % FRAME.length]).join('')

interface FrameNumber {
  frameNumber: string
  status: string
}

const orders = (page: Page) => page.getByTestId('entity-list-deviceOrder')
const orderRow = (page: Page) => orders(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: ORDER_NO })
const dialog = (page: Page) => page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
const drawer = (page: Page) => page.locator('.ant-drawer:visible')


/** Runs the row's Generate numbers for `count`, checking the dialog's preview first; answers the dialog. */
async function openGenerate(page: Page, count: number) {
  await clickRowAction(orderRow(page), 'row-action-generate')
  const d = dialog(page)
  await expect(d).toBeVisible()
  await d.getByLabel('Count').fill(String(count))
  return d
}

test('an order of 100: generate, 6 more past 5 % with a second confirmation, export, labels', async ({ page, baseURL }) => {
  // Generation, export and the label job in one test: about a minute on a busy 2-core machine.
  test.setTimeout(120_000)
  const token = await apiLogin(page.request)
  await openSignedIn(page, baseURL!, '/order/deviceOrder')
  await expect(orders(page)).toBeVisible()

  // The add form: the order and its frame-number template.
  await orders(page).getByTestId('crud-add').click()
  const form = page.getByTestId('entity-form')
  await form.getByLabel('Order number').fill(ORDER_NO)
  await form.getByLabel('Model', { exact: true }).click()
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').first().click()
  await form.getByLabel('Quantity ordered').fill('100')
  await form.getByLabel('Sales region/area').fill('EU West')
  await form.getByLabel('Delivery date').fill('2026-12-18')
  await form.getByLabel('Delivery date').press('Enter')
  await form.getByLabel('Purchasing entity').fill('Velo Europe B.V.')
  await form.getByLabel('TP number').fill(`TP-${suffix}`)
  await form.getByLabel('Frame supplier').fill('Giant Frames Ltd')
  await form.getByLabel('Brand code').fill('VL')
  await form.getByLabel('Manufacturer').fill('A')
  await form.getByLabel('Year', { exact: true }).fill('2026')
  await form.getByLabel('Model/colour/size code').fill(SPEC)
  await page.getByTestId('entity-form-save').click()
  await expect(page.locator('.ant-message-success').filter({ hasText: 'Added successfully' })).toBeVisible()
  await expect(orderRow(page)).toBeVisible()

  // Generate 100: the dialog shows the format and the next number before anything is made.
  let d = await openGenerate(page, 100)
  const preview = d.getByTestId('operation-preview')
  await expect(preview).toContainText(`VL · A · T · ${SPEC} · ###### · check`)
  await expect(preview).toContainText(new RegExp(`VLAT${SPEC}000001[0-9X]`))
  await expect(preview).toContainText('100 ordered · 0 generated · 100 after this')
  await expect(d.getByTestId('operation-preview-warning')).toHaveCount(0)
  await saveScreen(page, 'bike-order-generate')
  await expectSuccessMessage(page, 'Generate numbers', () => d.getByTestId('operation-submit').click())
  await expect(orderRow(page)).toContainText('100')

  const list = async () => {
    const order = (await call<{ rows: { orderId: number; numbersGenerated: number; overrun: boolean }[] }>(page.request, 'POST', '/order/deviceOrder/list', token, { orderNo: ORDER_NO })).rows[0]!
    const numbers = await call<{ rows: FrameNumber[]; total: number }>(page.request, 'POST', '/order/deviceOrder/number/list', token, { orderId: order.orderId, pageSize: 500 })
    return { order, numbers }
  }
  await expect.poll(async () => (await list()).order.numbersGenerated).toBe(100)
  const first = await list()
  expect(first.numbers.total).toBe(100)
  for (const n of first.numbers.rows) expect(n.frameNumber).toMatch(new RegExp(`^VLAT${SPEC}\\d{6}[0-9X]$`))

  // 6 more: past 105 the dialog warns, and OK asks once more before anything is generated.
  d = await openGenerate(page, 6)
  await expect(d.getByTestId('operation-preview-warning')).toContainText('106 numbers for 100 ordered (6 % over)')
  await d.getByTestId('operation-submit').click()
  const again = page.locator('.ant-modal-confirm:visible')
  await expect(again).toContainText('need a second confirmation')
  await saveScreen(page, 'bike-order-overrun')
  await page.getByTestId('operation-second-confirm-ok').click()
  await expect.poll(async () => (await list()).order.numbersGenerated).toBe(106)
  expect((await list()).order.overrun).toBe(true)
  await expect(orderRow(page).getByText('Yes')).toBeVisible()

  // The order's numbers in its details: the status filter counts them; export them and read them back.
  await clickRowAction(orderRow(page), 'row-details')
  const numbersTab = drawer(page).getByRole('tab', { name: 'Frame numbers' })
  await numbersTab.click()
  const numbersList = drawer(page).getByTestId('entity-list-frameNumber')
  await expect(numbersList).toBeVisible()
  await expect(numbersList).toContainText('Generated (106)')
  await saveScreen(page, 'bike-order-numbers')
  const exported = page.waitForEvent('download')
  await numbersList.getByTestId('crud-export').click()
  // The export's own question: the second confirmation above may still be fading out.
  await page.locator('.ant-modal-confirm:visible', { hasText: 'Export every' }).getByRole('button', { name: 'OK' }).click()
  const sheet = await sheetRowsOf(await exported)
  const header = sheet[0]!
  const col = header.indexOf('Frame number')
  const all = (await list()).numbers.rows.map((n) => n.frameNumber)
  expect(sheet.slice(1).map((r) => r[col])).toEqual(all)
  expect(all).toHaveLength(106)
  await drawer(page).locator('.ant-drawer-close').click()
  await expect(drawer(page)).toHaveCount(0)

  // The label sheet: a job whose PDF downloads from the jobs list, 24 labels to a page.
  await clickRowAction(orderRow(page), 'row-action-printLabels')
  d = dialog(page)
  const started = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/action/printLabels'))
  await d.getByTestId('operation-submit').click()
  const { jobId } = ((await (await started).json()) as { data: { jobId: number } }).data
  // A job started here opens the top bar's jobs list, which follows it live: its file downloads
  // there once the job has written the PDF (106 labels, 5 pages).
  const download = page.getByTestId(`job-download-${jobId}`)
  await expect(download).toBeVisible()
  const pdfDownload = page.waitForEvent('download')
  await download.click()
  const file = await pdfDownload
  expect(file.suggestedFilename()).toBe(`labels-${ORDER_NO}.pdf`)
  const pdf = (await readFile(await file.path())).toString('latin1')
  expect(pdf.startsWith('%PDF-')).toBe(true)
  expect(pdf.match(/\/Type \/Page\b/g)).toHaveLength(Math.ceil(106 / 24))
  await expect.poll(async () => (await list()).numbers.rows.filter((n) => n.status === 'printed').length).toBe(106)
})

// Issue 36: the order's details count its numbers by state, and count them again after a number is
// voided or replaced in the details' own list: the drawer never shows "Voided 1" with 2 stored.
test("the order's details count its numbers again after one is voided and one replaced there", async ({ page, baseURL }) => {
  const token = await openSignedIn(page, baseURL!, '/order/deviceOrder')
  const tag = `${suffix}R`
  const spec = Array.from({ length: 4 }, (_, i) => FRAME[(Number(suffix) + i * 5 + 3) % FRAME.length]).join('')
  const model = await call<{ modelId: number }>(page.request, 'POST', '/bike/modelSpec', token, { category: 'city', name: `Order ${tag}`, code: `O${spec}` })
  const colour = await call<{ colourId: number }>(page.request, 'POST', '/bike/modelSpec/colour', token, { modelId: model.modelId, name: 'Black', code: 'BK' })
  const size = await call<{ sizeId: number }>(page.request, 'POST', '/bike/modelSpec/size', token, { modelId: model.modelId, name: 'M', code: 'M' })
  const orderNo = `PO-E2E-${tag}`
  const order = await call<{ orderId: number }>(page.request, 'POST', '/order/deviceOrder', token, {
    orderNo,
    orderType: 'regular',
    modelId: model.modelId,
    quantity: 10,
    salesRegion: 'EU West',
    deliveryDate: '2026-12-18',
    purchasingEntity: 'Velo Europe B.V.',
    tpNumber: `TP-${tag}`,
    frameSupplier: 'Giant Frames Ltd',
    brandCode: 'VL',
    manufacturerCode: 'B',
    modelYear: 2026,
    specCode: spec,
  })
  await call(page.request, 'POST', `/order/deviceOrder/${order.orderId}/action/generate`, token, { count: 3 })
  const stored = () => call<Record<string, number>>(page.request, 'GET', `/order/deviceOrder/${order.orderId}`, token)
  await expect.poll(async () => (await stored()).numbersGenerated).toBe(3)
  const { rows: made } = await call<{ rows: (FrameNumber & { numberId: number })[] }>(page.request, 'POST', '/order/deviceOrder/number/list', token, { orderId: order.orderId })
  const [bound, spare] = made.map((n) => n.frameNumber)
  // The first number is stamped on a bike, which binds it.
  await call(page.request, 'POST', '/bike/bike', token, { category: 'city', frameNumber: bound, modelId: model.modelId, colourId: colour.colourId, sizeId: size.sizeId })

  await page.reload()
  // By the cell's whole text: the first test's order number, followed by its type "Regular", also holds this one's.
  const row = orders(page).getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ has: page.getByText(orderNo, { exact: true }) })
  await clickRowAction(row, 'row-details')
  const details = drawer(page).getByTestId('entity-details')
  /** The drawer's count of one state, as the details show it. */
  const count = (label: string) => details.locator('th', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::td[1]')
  await expect(count('Voided')).toHaveText('0')
  await expect(count('Bound to bikes')).toHaveText('1')
  await expect(count('Not yet printed')).toHaveText('2')
  await drawer(page).getByRole('tab', { name: 'Frame numbers' }).click()
  const numbers = drawer(page).getByTestId('entity-list-frameNumber')
  const numberRow = (frame: string) => numbers.getByTestId('crud-table').locator('tbody tr.ant-table-row').filter({ hasText: frame })

  // Void the spare number in the details' list: the order's counts above follow.
  await clickRowAction(numberRow(spare!), 'row-step-void')
  let d = dialog(page)
  await d.getByLabel('Reason').fill('Stamped twice')
  await submitOperation(d, 'Void: now Voided')
  await expect(count('Voided')).toHaveText('1')
  await expect(count('Not yet printed')).toHaveText('1')

  // Replace the bound one: it is voided too, and its replacement is bound to the bike.
  await clickRowAction(numberRow(bound!), 'row-action-replace')
  d = dialog(page)
  await d.getByText('Damaged frame', { exact: true }).click()
  await submitOperation(d, 'Replace number: done')
  await expect(numbers).toContainText('Voided (2)')
  await expect(count('Voided')).toHaveText('2')
  await expect(count('Bound to bikes')).toHaveText('1')
  await saveScreen(page, 'bike-order-details-after-replace')
  expect(await stored()).toMatchObject({ countVoided: 2, countBound: 1, countGenerated: 1 })

})
