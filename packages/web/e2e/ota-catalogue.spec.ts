import { createHash, randomBytes } from 'node:crypto'
import { expect, type Page, test } from '@playwright/test'
import { apiLogin, call, openSignedIn } from './support/session'
import { saveScreen } from './support/screens'

// The OTA catalogue in the built console: on a part's page a supplier, a product and a firmware
// whose file is uploaded and summed by the server (SHA-256 before saving, the CRC-8 with its variant
// once saved); a declared CRC8 that differs from the file is refused in the server's words.

const suffix = String(Date.now() % 1_000_000)
const SUPPLIER = `Bafang E2E ${suffix}`
const PRODUCT = `DP C18 E2E ${suffix}`
const image = randomBytes(20_000)
const sha256 = createHash('sha256').update(image).digest('hex')

/** CRC-8/SMBUS (poly 0x07, init 0, no reflection), as the server names it. */
function crc8Smbus(bytes: Uint8Array): string {
  let crc = 0
  for (const byte of bytes) {
    crc ^= byte
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff
  }
  return crc.toString(16).toUpperCase().padStart(2, '0')
}

const listOf = (page: Page, key: string) => page.getByTestId(`entity-list-${key}`)
const rowsOf = (page: Page, key: string) => listOf(page, key).getByTestId('crud-table').locator('tbody tr.ant-table-row')
const form = (page: Page) => page.getByTestId('entity-form')
const success = (page: Page) => page.locator('.ant-message-success')

async function pick(page: Page, label: string, option: string) {
  const select = form(page).getByLabel(label, { exact: true })
  await select.click()
  await select.fill(option)
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: option }).click()
  await expect(form(page).locator('.ant-form-item').filter({ has: page.getByLabel(label, { exact: true }) }).locator('.ant-select-content')).toHaveAttribute('title', option)
}

async function addFirmware(page: Page, o: { name: string; code: string; version: string; crc8?: string }) {
  await listOf(page, 'displayFirmware').getByTestId('crud-add').click()
  await form(page).getByLabel('Firmware name').fill(o.name)
  await form(page).getByLabel('Unique code').fill(o.code)
  await pick(page, 'Supplier', SUPPLIER)
  await pick(page, 'Product', PRODUCT)
  await form(page).getByLabel('Custom version').fill(o.version)
  await form(page).getByTestId('file-input-file').locator('input[type=file]').setInputFiles({ name: 'dp-c18.bin', mimeType: 'application/octet-stream', buffer: image })
  // Summed by the server while it streamed in: the SHA-256 shows before the form is saved.
  await expect(form(page).getByTestId('file-input-file')).toContainText(sha256)
  if (o.crc8) await form(page).getByLabel('CRC8', { exact: true }).fill(o.crc8)
  await page.getByTestId('entity-form-save').click()
}

test.afterAll(async ({ request }) => {
  // Clean-up only: a refusal here is not what this spec tests.
  const token = await apiLogin(request)
  const ids = async (path: string, body: Record<string, unknown>, idField: string) =>
    ((await call<{ rows: Record<string, number>[] }>(request, 'POST', `${path}/list`, token, { pageNum: 1, pageSize: 50, ...body }).catch(() => ({ rows: [] }))).rows.map((r) => r[idField]))
  for (const [path, body, idField] of [
    ['/ota/displaypart/firmware', { name: suffix }, 'firmwareId'],
    ['/ota/displaypart/product', { name: PRODUCT }, 'productId'],
    ['/ota/displaypart/supplier', { name: SUPPLIER }, 'supplierId'],
  ] as const) {
    const found = await ids(path, body, idField)
    if (found.length) await call(request, 'DELETE', `${path}/${found.join(',')}`, token).catch(() => {})
  }
})

test('a display part page adds a supplier, a product and a firmware whose digests the server computed', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/ota/displaypart')
  await expect(page.getByTestId('ota-part-displaypart')).toBeVisible()

  await listOf(page, 'displayPartSupplier').getByTestId('crud-add').click()
  await form(page).getByLabel('Supplier name').fill(SUPPLIER)
  await form(page).getByLabel('Supplier code').fill('BF')
  await form(page).getByLabel('IoT code').fill('B')
  await page.getByTestId('entity-form-save').click()
  await expect(success(page)).toBeVisible()
  await expect(rowsOf(page, 'displayPartSupplier').filter({ hasText: SUPPLIER })).toBeVisible()

  await page.getByTestId('ota-tab-product').click()
  await expect(page).toHaveURL(/tab=product/)
  await listOf(page, 'displayPartProduct').getByTestId('crud-add').click()
  await pick(page, 'Supplier', SUPPLIER)
  await form(page).getByLabel('Product name').fill(PRODUCT)
  await form(page).getByLabel('Product code').fill('DC')
  await form(page).getByLabel('Hardware revision').fill('H2')
  await page.getByTestId('entity-form-save').click()
  await expect(rowsOf(page, 'displayPartProduct').filter({ hasText: PRODUCT })).toBeVisible()

  await page.getByTestId('ota-tab-firmware').click()
  await addFirmware(page, { name: `DP C18 ${suffix} 1.10.0`, code: `dp-c18-${suffix}-1`, version: '1.10.0' })
  const row = rowsOf(page, 'displayFirmware').filter({ hasText: `DP C18 ${suffix} 1.10.0` })
  await expect(row).toBeVisible()
  await expect(row.getByTestId('firmware-crc8')).toHaveText(`${crc8Smbus(image)} CRC-8/SMBUS`)
  await expect(row).toContainText('20000')
  await saveScreen(page, 'ota-catalogue-firmware')

  // The tab survives a reload: it is in the URL.
  await page.reload()
  await expect(listOf(page, 'displayFirmware')).toBeVisible()
})

test('a declared CRC8 that differs from the file is refused with both values and the variant', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/ota/displaypart?tab=firmware')
  const right = crc8Smbus(image)
  const wrong = right === '00' ? '01' : '00'
  await addFirmware(page, { name: `DP C18 ${suffix} 2.0.0`, code: `dp-c18-${suffix}-2`, version: '2.0.0', crc8: wrong })
  await expect(page.getByText(`The declared CRC8 ${wrong} does not match the file: its CRC-8/SMBUS is ${right}`).first()).toBeVisible()
  await expect(form(page)).toBeVisible()
  await saveScreen(page, 'ota-catalogue-crc8-refused')
})

const PARTS = [
  { path: '/ota/iotpart', key: 'iotpart', en: 'IoT module parts', zh: '物联网模块' },
  { path: '/ota/displaypart', key: 'displaypart', en: 'Display parts', zh: '仪表部件' },
  { path: '/ota/bmspart', key: 'bmspart', en: 'Battery parts', zh: '电池部件' },
  { path: '/ota/ecupart', key: 'ecupart', en: 'Controller parts', zh: '控制器部件' },
]

test('the four part pages open in English and in Chinese, with their four tabs', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!)
  for (const lang of ['en', 'zh'] as const) {
    if (lang === 'zh') await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
    for (const p of PARTS) {
      await page.goto(p.path)
      await expect(page.getByTestId(`ota-part-${p.key}`)).toBeVisible()
      await expect(page).toHaveTitle(`${p[lang]} - Velo Admin`)
      const tabs = lang === 'en' ? ['Suppliers', 'Products', 'Firmware', 'Upgrades'] : ['供应商', '产品', '固件', '升级']
      for (const [i, tab] of ['supplier', 'product', 'firmware', 'upgrade'].entries()) await expect(page.getByTestId(`ota-tab-${tab}`)).toHaveText(tabs[i]!)
      await expect(page.locator('.ant-message-error')).toHaveCount(0)
    }
  }
  await saveScreen(page, 'ota-parts-zh')
})
