import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test'
import { apiLogin, call, openSignedIn } from './support/session'
import { clickRowAction } from './support/rows'
import { saveScreen } from './support/screens'

// App content (issue 16) against the real server: a system message pushed to every enabled member
// (the preview counts them, a job delivers them, the recipients are listed, and a sent message is no
// longer offered for deletion); an agreement saved again under its type, language and version asks to overwrite
// it; publishing an update asks again, as every member must sign it again; a help video plays in the
// console through a signed link; and every App content page and the App upload log open in English
// and in Chinese.

const PAGES = [
  { path: '/content/message', entity: 'message', en: 'System messages', zh: '系统消息', column: ['Title', '标题'] },
  { path: '/content/protocol', entity: 'protocol', en: 'Agreements', zh: '协议管理', column: ['Agreement name', '协议名称'] },
  { path: '/content/appVersion', entity: 'appVersion', en: 'App versions', zh: 'App 版本', column: ['Version code', '版本号'] },
  { path: '/content/activity', entity: 'activity', en: 'Activities', zh: '活动管理', column: ['Start time', '开始时间'] },
  { path: '/content/guide', entity: 'guide', en: 'Feature guides', zh: '功能引导', column: ['Description', '描述'] },
  { path: '/content/achievement', entity: 'achievement', en: 'Achievements', zh: '成就管理', column: ['Target value', '目标值'] },
  { path: '/content/banner', entity: 'banner', en: 'Home banners', zh: '首页轮播', column: ['Image', '图片'] },
  { path: '/content/faq', entity: 'faq', en: 'Help centre FAQ', zh: '帮助中心', column: ['Introduction', '简介'] },
  { path: '/content/policy', entity: 'policy', en: 'Insurance and warranty policy', zh: '保险与质保政策', column: ['Coverage (months)', '保障期（月）'] },
  { path: '/content/userHelp', entity: 'userHelp', en: 'User help', zh: '用户帮助', column: ['Device model', '设备型号'] },
  { path: '/content/errorCode', entity: 'errorCode', en: 'App error codes', zh: 'App 错误码', column: ['Error level', '错误级别'] },
  { path: '/content/serviceCentre', entity: 'serviceCentre', en: 'Store service centres', zh: '门店服务中心', column: ['Address', '地址'] },
  { path: '/monitor/appUploadLog', entity: 'appUploadLog', en: 'App upload log', zh: 'App 上传日志', column: ['File name', '文件名'] },
] as const

const suffix = String(Date.now() % 1_000_000)

interface ListPage<R> {
  rows: R[]
  total: number
}

interface Message {
  messageId: number
  title: string
  status: string
  sentCount: number
}

interface Protocol {
  protocolId: number
  name: string
  type: string
  language: string
  versionCode: string
  status: string
}

const listOf = (page: Page, key: string) => page.getByTestId(`entity-list-${key}`)
const rowsOf = (page: Page, key: string) => listOf(page, key).getByTestId('crud-table').locator('tbody tr.ant-table-row')
const success = (page: Page, text: string | RegExp) => page.locator('.ant-message-success').filter({ hasText: text })
const failure = (page: Page, text: string | RegExp) => page.locator('.ant-message-error').filter({ hasText: text })
const drawer = (page: Page) => page.locator('.ant-drawer:visible')
const operationDialog = (page: Page) => page.locator('.ant-modal:visible').filter({ has: page.getByTestId('operation-form') })
const form = (page: Page) => page.getByTestId('entity-form')

/** A number as the server may write it in a sentence: 1234 or 1,234. */
const numberPattern = (n: number) => new RegExp(`(^|\\D)(${n}|${n.toLocaleString('en-US')})(\\D|$)`)

/** A row's cell under the column headed `header`. */
async function cellOf(page: Page, key: string, row: Locator, header: string): Promise<Locator> {
  const headers = (await listOf(page, key).locator('thead tr').last().locator('th').allInnerTexts()).map((h) => h.trim())
  expect(headers, `a column headed ${header}`).toContain(header)
  return row.locator('td').nth(headers.indexOf(header))
}

/** The top bar's jobs list opens when a job starts here; it would cover the rows. */
async function closeJobsList(page: Page) {
  const jobs = page.getByTestId('jobs-list')
  await expect(jobs).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(jobs).toBeHidden()
}

/** Fills a rich-text field of the open form (the editor is the browser's contenteditable). */
async function fillRichText(page: Page, text: string) {
  const editor = form(page).locator('.crud-rich-text-body')
  await editor.click()
  await editor.fill(text)
}

async function protocolsLike(request: APIRequestContext, token: string, p: Pick<Protocol, 'type' | 'language' | 'versionCode'>) {
  const found = await call<ListPage<Protocol>>(request, 'POST', '/content/protocol/list', token, { pageNum: 1, pageSize: 50, type: p.type, language: p.language, versionCode: p.versionCode })
  // The list filters by each; the version is compared here as well, whatever the filter does with it.
  return found.rows.filter((r) => r.type === p.type && r.language === p.language && r.versionCode === p.versionCode)
}

test.describe.configure({ mode: 'serial' })

test('a system message to all members: the preview counts them, the push job delivers, and a sent message is not deleted', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const enabled = (await call<ListPage<unknown>>(page.request, 'POST', '/member/member/list', token, { pageNum: 1, pageSize: 1, status: '0' })).total
  expect(enabled, 'the demo data has enabled members').toBeGreaterThan(0)
  const title = `Maintenance notice ${suffix}`

  await openSignedIn(page, baseURL!, '/content/message')
  await expect(listOf(page, 'message')).toBeVisible()
  await listOf(page, 'message').getByTestId('crud-add').click()
  await form(page).getByLabel('Title').fill(title)
  await fillRichText(page, 'The app is down for maintenance on Sunday from 02:00 to 04:00.')
  // The audience's default is all members.
  await expect(form(page).getByLabel('All members')).toBeChecked()
  await page.getByTestId('entity-form-save').click()
  await expect(success(page, 'Added successfully')).toBeVisible()
  const row = rowsOf(page, 'message').filter({ hasText: title })
  await expect(row).toContainText('Draft')

  // Push: the preview says how many members it reaches before anything is sent.
  await clickRowAction(row, 'row-action-push')
  const dialog = operationDialog(page)
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('operation-preview').locator('tr').filter({ hasText: 'Recipients' })).toContainText(numberPattern(enabled))
  await saveScreen(page, 'content-message-push')
  await dialog.getByTestId('operation-submit').click()
  await expect(success(page, /Push/).first()).toBeVisible()
  await closeJobsList(page)

  const stored = async () => (await call<ListPage<Message>>(page.request, 'POST', '/content/message/list', token, { pageNum: 1, pageSize: 10, title })).rows.find((m) => m.title === title)
  // The push is a background job, one inbox message per enabled member: no page says when the
  // server has stored them all.
  await expect.poll(async () => (await stored())?.status).toBe('sent')
  expect((await stored())!.sentCount).toBe(enabled)
  await expect(await cellOf(page, 'message', row, 'Status')).toHaveText('Sent')
  await expect(await cellOf(page, 'message', row, 'Sent')).toHaveText(String(enabled))
  // Pushed once: no Push any more.
  await expect(row.getByTestId('row-action-push')).toHaveCount(0)

  // The details list the recipients.
  await clickRowAction(row, 'row-details')
  const related = drawer(page).getByTestId('related-lists')
  await related.getByRole('tab', { name: 'Recipients' }).click()
  const recipients = related.getByTestId('related-messageRecipient.messageId').getByTestId('related-table').locator('tbody tr.ant-table-row')
  await expect(recipients.first()).toBeVisible()
  expect(await recipients.count()).toBe(Math.min(enabled, 10))
  await saveScreen(page, 'content-message-recipients')
  await drawer(page).locator('.ant-drawer-close').click()
  await expect(drawer(page)).toHaveCount(0)

  // A sent message is history: no Modify or Delete is offered for it, and the server refuses a delete.
  await expect(row.getByTestId('row-edit')).toHaveCount(0)
  await expect(row.getByTestId('row-delete')).toHaveCount(0)
  // Details is all the row offers now: no More menu to hide them in either.
  await expect(row.getByTestId('row-details')).toBeVisible()
  await expect(row.getByTestId('row-more')).toHaveCount(0)
  const refused = await page.request.delete(`/api/content/message/${(await stored())!.messageId}`, { headers: { Authorization: token } })
  expect(refused.status()).toBe(409)
  expect(((await refused.json()) as { msg: string }).msg).toBe(`Cannot delete system message "${title}": it is being sent or has been sent`)
  await listOf(page, 'message').getByTestId('crud-refresh').click()
  await expect(row).toHaveCount(1)
  expect((await stored())?.status).toBe('sent')
})

test('an agreement saved again under its type, language and version asks to overwrite it; OK keeps one row, renamed', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  // A type and language with no 1.0.0 yet (the demo data may have some).
  const candidates = ['privacy', 'emailSubscription'].flatMap((type) => ['nl_NL', 'fr_FR', 'de_DE', 'en_US'].map((language) => ({ type, language, versionCode: '1.0.0' })))
  let key: (typeof candidates)[number] | undefined
  for (const c of candidates) if ((await protocolsLike(page.request, token, c)).length === 0) key = key ?? c
  key ??= { type: 'privacy', language: 'nl_NL', versionCode: `1.${Number(suffix) % 1000}.${Math.floor(Number(suffix) / 1000) % 1000}` }
  const typeLabel = key.type === 'privacy' ? 'Privacy agreement' : 'Email subscription agreement'
  const languageLabel = { en_US: 'English', de_DE: 'German', nl_NL: 'Dutch', fr_FR: 'French' }[key.language]!
  const first = `Privacy terms ${suffix}`
  const second = `Privacy terms ${suffix}, revised`

  await openSignedIn(page, baseURL!, '/content/protocol')
  const add = async (name: string) => {
    await listOf(page, 'protocol').getByTestId('crud-add').click()
    await form(page).getByLabel('Agreement name').fill(name)
    await form(page).getByLabel(typeLabel).check()
    await form(page).getByLabel(languageLabel).check()
    await form(page).getByLabel('Version code').fill(key!.versionCode)
    await fillRichText(page, `${name}: how we keep and use your data.`)
    await page.getByTestId('entity-form-save').click()
  }
  await add(first)
  await expect(success(page, 'Added successfully')).toBeVisible()
  await expect(rowsOf(page, 'protocol').filter({ hasText: first })).toHaveCount(1)

  // The same type, language and version: the server asks, the form says it and waits.
  await add(second)
  const question = page.locator('.form-confirm-overwrite')
  await expect(question).toBeVisible()
  await expect(question).toContainText('Protocol already exists, overwrite?')
  await expect(form(page)).toBeVisible()
  await saveScreen(page, 'content-protocol-overwrite')
  await page.getByTestId('form-confirm-ok').click()
  await expect(form(page)).toHaveCount(0)
  await expect(failure(page, /./)).toHaveCount(0)

  const rows = await protocolsLike(page.request, token, key)
  expect(rows).toHaveLength(1)
  expect(rows[0]!.name).toBe(second)
  await listOf(page, 'protocol').getByTestId('crud-refresh').click()
  await expect(rowsOf(page, 'protocol').filter({ hasText: second })).toHaveCount(1)
  await expect(rowsOf(page, 'protocol').filter({ hasText: new RegExp(`^(?!.*revised).*${first}`) })).toHaveCount(0)

  // Cancel sends nothing more: the form stays open with what was typed.
  await add(`${second} again`)
  await expect(question).toBeVisible()
  await question.getByRole('button', { name: 'Cancel' }).click()
  await expect(form(page)).toBeVisible()
  await expect(form(page).getByLabel('Agreement name')).toHaveValue(`${second} again`)
  await page.getByRole('dialog').filter({ has: form(page) }).getByRole('button', { name: 'Cancel' }).click()
  expect((await protocolsLike(page.request, token, key))[0]!.name).toBe(second)
})

test('publishing an agreement marked as an update asks again, as every member must sign it again', async ({ page, baseURL }) => {
  const token = await apiLogin(page.request)
  const versionCode = `2.${Number(suffix) % 1000}.${Math.floor(Number(suffix) / 1000) % 1000}`
  const name = `Email terms ${suffix}`

  await openSignedIn(page, baseURL!, '/content/protocol')
  await listOf(page, 'protocol').getByTestId('crud-add').click()
  await form(page).getByLabel('Agreement name').fill(name)
  await form(page).getByLabel('Email subscription agreement').check()
  await form(page).getByLabel('English').check()
  await form(page).getByLabel('Version code').fill(versionCode)
  await form(page).getByLabel('Is update').click()
  await fillRichText(page, 'We send news about your bike and the app; unsubscribe at any time.')
  await page.getByTestId('entity-form-save').click()
  await expect(success(page, 'Added successfully')).toBeVisible()
  const row = rowsOf(page, 'protocol').filter({ hasText: name })
  await expect(row).toContainText('Draft')

  await clickRowAction(row, 'row-action-publish')
  const dialog = operationDialog(page)
  await expect(dialog).toBeVisible()
  await dialog.getByTestId('operation-submit').click()
  const again = page.locator('.operation-second-confirm:visible')
  await expect(again).toBeVisible()
  await expect(again).toContainText(/sign .*again/i)
  await saveScreen(page, 'content-protocol-resign')
  await page.getByTestId('operation-second-confirm-ok').click()
  await expect(row).toContainText('Published')
  const stored = await protocolsLike(page.request, token, { type: 'emailSubscription', language: 'en_US', versionCode })
  expect(stored[0]?.status).toBe('published')
})

/**
 * A short real WebM, recorded in the browser from a canvas (MediaRecorder), so the player has
 * something it decodes.
 */
async function recordWebm(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const canvas = document.createElement('canvas')
    canvas.width = 160
    canvas.height = 120
    const g = canvas.getContext('2d')!
    const stream = canvas.captureStream(15)
    const recorder = new MediaRecorder(stream, { mimeType: 'video/webm' })
    const chunks: Blob[] = []
    recorder.ondataavailable = (e) => chunks.push(e.data)
    const stopped = new Promise((resolve) => (recorder.onstop = resolve))
    recorder.start()
    for (let frame = 0; frame < 15; frame++) {
      g.fillStyle = `hsl(${frame * 24}, 80%, 50%)`
      g.fillRect(0, 0, 160, 120)
      await new Promise((r) => setTimeout(r, 66))
    }
    recorder.stop()
    await stopped
    const bytes = new Uint8Array(await new Blob(chunks, { type: 'video/webm' }).arrayBuffer())
    let text = ''
    for (const b of bytes) text += String.fromCharCode(b)
    return btoa(text)
  })
  return Buffer.from(base64, 'base64')
}

test('a help video plays in the console through a link that works without the token, for that file only', async ({ page, baseURL }) => {
  const title = `Charging your battery ${suffix}`
  await openSignedIn(page, baseURL!, '/content/userHelp')
  const video = await recordWebm(page)
  expect(video.length).toBeGreaterThan(100)

  await listOf(page, 'userHelp').getByTestId('crud-add').click()
  await form(page).getByLabel('Title').fill(title)
  await form(page).getByLabel('Using video').check()
  await form(page).getByTestId('file-input-video').locator('input[type=file]').setInputFiles({ name: 'charging.webm', mimeType: 'video/webm', buffer: video })
  // Uploaded: it can be watched before the form is saved.
  await expect(form(page).getByTestId('play-video')).toBeVisible()
  await page.getByTestId('entity-form-save').click()
  await expect(success(page, 'Added successfully')).toBeVisible()

  // The list leaves the video out; the details play it.
  const row = rowsOf(page, 'userHelp').filter({ hasText: title })
  await clickRowAction(row, 'row-details')
  await drawer(page).getByTestId('play-video').click()
  const player = page.getByTestId('video-player')
  await expect(player).toBeVisible()
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1)
  await saveScreen(page, 'content-help-video')

  // The link is the file's, without the token, by byte ranges; changed, it is refused.
  const src = (await player.getAttribute('src'))!
  expect(src).toMatch(/\/signed\/.+\?exp=\d+&sig=/)
  const ranged = await page.request.get(src, { headers: { Range: 'bytes=0-99' } })
  expect(ranged.status()).toBe(206)
  expect(Buffer.from(await ranged.body()).equals(video.subarray(0, 100))).toBe(true)
  const sig = /sig=([^&]+)/.exec(src)![1]!
  const tampered = await page.request.get(src.replace(`sig=${sig}`, `sig=${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`))
  expect(tampered.status()).toBe(403)
  const plain = await page.request.get(src.replace('/signed/', '/').replace(/\?.*$/, ''))
  expect(plain.status()).toBe(401)
})

/** Opens a page and checks its title and its columns: the generated list page, not "Not in this version yet". */
async function expectPage(page: Page, p: (typeof PAGES)[number], lang: 'en' | 'zh') {
  await page.goto(p.path)
  const list = listOf(page, p.entity)
  await expect(list).toBeVisible()
  await expect(page).toHaveTitle(`${p[lang]} - Velo Admin`)
  await expect(list.locator('thead th').filter({ hasText: p.column[lang === 'en' ? 0 : 1] }).first()).toBeVisible()
  await expect(page.locator('.status-panel, .ant-result')).toHaveCount(0)
  await expect(page.locator('.ant-message-error')).toHaveCount(0)
}

test('every App content page and the App upload log open in English and in Chinese', async ({ page, baseURL }) => {
  // Thirteen pages twice: more than the default minute on a busy two-core machine.
  test.setTimeout(150_000)
  await openSignedIn(page, baseURL!)
  for (const p of PAGES) await expectPage(page, p, 'en')
  await page.evaluate(() => localStorage.setItem('user_lang', 'zh_CN'))
  for (const p of PAGES) await expectPage(page, p, 'zh')
  await saveScreen(page, 'monitor-app-upload-log-zh')
})
