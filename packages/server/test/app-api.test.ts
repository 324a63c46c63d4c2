import { randomBytes } from 'node:crypto'
import type { Envelope, Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import type { FieldIssue } from '../src/platform/errors'
import { hashPassword } from '../src/platform/auth/passwords'
import { multipart, useTestApp } from './harness'

// The riders' app API (modules/app, docs/app-api.md): public reads of what the definitions declare
// for the app, with ETags; the version check; members' own sign-in, kept apart from staff sessions;
// their inbox, agreements and uploads; service centres near a point.
const t = useTestApp()
const db = () => t.app.services.db
type Row = Record<string, unknown>

const APP = '/api/app/v1'
const HOUR = 3600_000
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()
const now = () => new Date().toISOString()
const unique = () => randomBytes(4).toString('hex')

/** A request from an address of its own: the per-address limits of one test never touch another's. */
async function fromAddress<T = unknown>(address: string, o: { method?: 'GET' | 'POST'; url: string; body?: object; token?: string }) {
  const res = await t.app.inject({ method: o.method ?? 'GET', url: o.url, payload: o.body, remoteAddress: address, headers: o.token ? { authorization: o.token } : {} })
  const parsed = String(res.headers['content-type'] ?? '').includes('json') ? res.json<Envelope<T>>() : undefined
  return { status: res.statusCode, code: parsed?.code, msg: parsed?.msg ?? '', data: parsed?.data }
}

async function countryId(code: string): Promise<number> {
  return Number((await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()).countryId)
}

async function insert(table: string, values: Row, idField: string): Promise<number> {
  const row = await dynamicDb(db()).insertInto(table).values(values).returning(idField).executeTakeFirstOrThrow()
  return Number(row[idField])
}

const MEMBER_PASSWORD = 'Rider2026!'
let memberHash: string | undefined

/** A member who can sign in to the app (the app's registration is out of scope: the hash is set here). */
async function newMember(o: { status?: string; password?: string | null; countryCode?: string } = {}): Promise<{ memberId: number; email: string }> {
  const email = `rider-${unique()}@example.com`
  memberHash ??= await hashPassword(MEMBER_PASSWORD)
  const passwordHash = o.password === null ? null : o.password ? await hashPassword(o.password) : memberHash
  const memberId = await insert(
    'memMember',
    { email, firstName: 'Ada', lastName: 'Rider', status: o.status ?? '0', passwordHash, countryId: o.countryCode ? await countryId(o.countryCode) : null, createBy: 'app', createTime: now() },
    'memberId',
  )
  return { memberId, email }
}

let signIns = 0
/** Signs the member in from an address of its own (sign-in is limited per address). */
async function signIn(email: string, password = MEMBER_PASSWORD): Promise<string> {
  const res = await fromAddress<{ token: string }>(`10.16.${Math.floor(++signIns / 250)}.${(signIns % 250) + 1}`, { method: 'POST', url: `${APP}/auth/login`, body: { email, password } })
  expect(res.status, res.msg).toBe(200)
  return res.data!.token
}

const get = <T = unknown>(url: string, token?: string, headers: Record<string, string> = {}) => t.call<T>({ url: `${APP}${url}`, token, headers })
const post = <T = unknown>(url: string, token?: string, body?: object) => t.call<T>({ method: 'POST', url: `${APP}${url}`, token, body })

async function uploadPng(): Promise<string> {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex')
  const res = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/common/upload', token: t.admin, ...multipart([{ name: 'banner.png', bytes: png }]) })
  expect(res.status, res.msg).toBe(200)
  return res.data.fileName
}

describe('public reads of what the definitions declare for the app', () => {
  it('answers only published banners within their window, of the language and of the country or of none, in order, with exactly the declared fields', async () => {
    const nl = await countryId('NL')
    const de = await countryId('DE')
    const image = await uploadPng()
    const tag = unique()
    const banner = (title: string, values: Row = {}) =>
      insert('cntBanner', { title: `${tag} ${title}`, image, linkUrl: 'https://velo.example/spring', orderNum: 5, language: 'en_US', status: '0', createBy: 'admin', createTime: now(), remark: 'internal note', ...values }, 'bannerId')
    const everywhere = await banner('everywhere', { orderNum: 2 })
    const dutch = await banner('dutch', { orderNum: 1, countryId: nl, startTime: at(-HOUR), endTime: at(HOUR) })
    const german = await banner('german', { orderNum: 3, countryId: de })
    await banner('disabled', { status: '1' })
    await banner('in German', { language: 'de_DE' })
    await banner('expired', { startTime: at(-2 * HOUR), endTime: at(-HOUR) })
    await banner('future', { startTime: at(HOUR) })
    const mine = (rows: Row[]) => rows.filter((r) => String(r.title).startsWith(tag))

    const dutchReader = await get<Paged<Row>>('/banners?lang=en_US&country=nl')
    expect(dutchReader.status, dutchReader.msg).toBe(200)
    expect(mine(dutchReader.data.rows).map((r) => r.bannerId)).toEqual([dutch, everywhere])
    for (const row of dutchReader.data.rows) expect(Object.keys(row).sort()).toEqual(['bannerId', 'endTime', 'image', 'linkUrl', 'orderNum', 'startTime', 'title'])
    expect(mine(dutchReader.data.rows)[0]).toEqual({ bannerId: dutch, title: `${tag} dutch`, image, linkUrl: 'https://velo.example/spring', orderNum: 1, startTime: expect.any(String), endTime: expect.any(String) })

    expect(mine((await get<Paged<Row>>('/banners?lang=en_US&country=DE')).data.rows).map((r) => r.bannerId)).toEqual([everywhere, german])
    // Without a country the app reads every country's rows.
    expect(mine((await get<Paged<Row>>('/banners?lang=en_US')).data.rows).map((r) => r.bannerId)).toEqual([dutch, everywhere, german])
    expect(mine((await get<Paged<Row>>('/banners?lang=de_DE')).data.rows).map((r) => r.title)).toEqual([`${tag} in German`])
  })

  it('reads what staff write in the console: a guide added there is shown, and gone once disabled', async () => {
    const image = await uploadPng()
    const title = `Pair your bike ${unique()}`
    const added = await t.call<{ guideId: number }>({ method: 'POST', url: '/api/content/guide', token: t.admin, body: { title, description: 'Hold the button for 3 s', image, orderNum: 1, language: 'fr_FR' } })
    expect(added.status, added.msg).toBe(200)
    const shown = (await get<Paged<Row>>('/guides?lang=fr_FR')).data.rows.filter((r: Row) => r.title === title)
    expect(shown).toEqual([{ guideId: added.data.guideId, title, description: 'Hold the button for 3 s', image, functionId: null, functionIdLabel: null, orderNum: 1 }])
    const disabled = await t.call({ method: 'PUT', url: '/api/content/guide', token: t.admin, body: { guideId: added.data.guideId, status: '1' } })
    expect(disabled.status, disabled.msg).toBe(200)
    expect((await get<Paged<Row>>('/guides?lang=fr_FR')).data.rows.some((r: Row) => r.title === title)).toBe(false)
  })

  it('refuses a missing or unknown language, an unknown country and an unknown parameter with 400', async () => {
    for (const url of ['/banners', '/banners?lang=es_ES', '/banners?lang=en_US&country=QQ', '/banners?lang=en_US&country=Netherlands', '/banners?lang=en_US&status=1', '/faq?lang=en_US&type=cooking']) {
      const res = await get(url)
      expect(res.status, url).toBe(400)
      expect(res.code, url).toBe(400)
    }
    const unknown = await t.call({ url: `${APP}/banners?lang=en_US&country=QQ`, lang: 'zh_CN' })
    expect(unknown.msg).toBe('不存在代码为 QQ 的国家/地区')
  })

  it('keeps activities to their window and filters by the declared fields, naming references', async () => {
    const tag = unique()
    const activity = (name: string, values: Row) =>
      insert('cntActivity', { name: `${tag} ${name}`, description: '<p>Ride with us</p>', language: 'en_US', status: '0', createBy: 'admin', createTime: now(), ...values }, 'activityId')
    const running = await activity('running', { startTime: at(-HOUR), endTime: at(HOUR), contactUs: 1, orderNum: 1 })
    await activity('future', { startTime: at(HOUR), endTime: at(2 * HOUR) })
    await activity('past', { startTime: at(-2 * HOUR), endTime: at(-HOUR) })
    const rows = (await get<Paged<Row>>('/activities?lang=en_US')).data.rows.filter((r: Row) => String(r.name).startsWith(tag))
    expect(rows.map((r: Row) => r.activityId)).toEqual([running])
    expect(rows[0]!.contactUs).toBe(true)
    expect(Object.keys(rows[0]!).sort()).toEqual(
      ['activityId', 'bikeType', 'contactUs', 'description', 'endTime', 'functionId', 'functionIdLabel', 'image', 'name', 'orderNum', 'reminder', 'startTime', 'subtitle', 'tagEndTime'].sort(),
    )

    const modelId = await insert('bikeModel', { name: `Model ${tag}`, category: 'city', code: `M${tag}`.toUpperCase(), createBy: 'admin', createTime: now() }, 'modelId')
    const help = (title: string, values: Row) => insert('cntUserHelp', { title: `${tag} ${title}`, language: 'en_US', status: '0', createBy: 'admin', createTime: now(), ...values }, 'helpId')
    const manual = await help('manual', { type: 'manual', modelId })
    await help('video', { type: 'video', modelId })
    await help('other model manual', { type: 'manual' })
    const manuals = (await get<Paged<Row>>(`/help?lang=en_US&type=manual&modelId=${modelId}`)).data.rows
    expect(manuals).toEqual([expect.objectContaining({ helpId: manual, type: 'manual', modelId, modelIdLabel: `Model ${tag}`, video: null, document: null })])
    expect(Object.keys(manuals[0]!).sort()).toEqual(['coverImage', 'document', 'helpId', 'linkUrl', 'modelId', 'modelIdLabel', 'orderNum', 'title', 'type', 'video', 'videoDuration'].sort())

    // An entity without a language or country takes neither, and still refuses what it does not know.
    const code = `E${tag}`.toUpperCase()
    await insert('cntErrorCode', { code, level: 'error', description: 'Battery too hot', solution: 'Let it cool down', errorType: 'bike', status: '0', createBy: 'admin', createTime: now() }, 'errorCodeId')
    const codes = await get<Paged<Row>>('/errorCodes?errorType=bike&lang=fr_FR')
    expect(codes.data.rows.filter((r: Row) => r.code === code)).toEqual([{ errorCodeId: expect.any(Number), code, level: 'error', description: 'Battery too hot', solution: 'Let it cool down', errorType: 'bike' }])
    expect((await get<Paged<Row>>('/errorCodes?errorType=app')).data.rows.some((r: Row) => r.code === code)).toBe(false)
  })

  it('answers at most 500 rows', async () => {
    const tag = unique().toUpperCase()
    const rows = Array.from({ length: 501 }, (_, i) => ({ code: `CAP${tag}${String(i).padStart(3, '0')}`, level: 'info', description: 'Account', solution: 'Sign in again', errorType: 'account', status: '0', createBy: 'admin', createTime: now() }))
    await db().insertInto('cntErrorCode').values(rows).execute()
    const res = await get<Paged<Row>>('/errorCodes?errorType=account')
    expect(res.data.rows).toHaveLength(500)
    expect(res.data.rows.at(-1)!.code).toBe(`CAP${tag}499`)
  })

  it('answers an ETag and Cache-Control, and 304 with no body for the same ETag; a change makes a new one', async () => {
    const tag = unique()
    await insert('contentFaq', { type: 'app', title: `${tag} How do I pair?`, content: '<p>Open the app</p>', language: 'nl_NL', createBy: 'admin', createTime: now() }, 'faqId')
    const first = await get('/faq?lang=nl_NL')
    expect(first.status).toBe(200)
    const etag = String(first.headers.etag)
    expect(etag).toMatch(/^W\/".+"$/)
    expect(first.headers['cache-control']).toBe('public, max-age=60')
    const again = await get('/faq?lang=nl_NL', undefined, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.raw.length).toBe(0)
    expect(again.headers.etag).toBe(etag)
    // Another language's answer, or the same after a change, is another body.
    expect((await get('/faq?lang=fr_FR', undefined, { 'if-none-match': etag })).status).toBe(200)
    await insert('contentFaq', { type: 'app', title: `${tag} Second`, content: '<p>…</p>', language: 'nl_NL', createBy: 'admin', createTime: now() }, 'faqId')
    const changed = await get('/faq?lang=nl_NL', undefined, { 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect(changed.headers.etag).not.toBe(etag)
    // The version check is a public read too.
    const version = await get('/version?platform=android&version=1.0.0')
    expect((await get('/version?platform=android&version=1.0.0', undefined, { 'if-none-match': String(version.headers.etag) })).status).toBe(304)
  })

  it('serves the images and files of rows the app may see, byte ranges included, and nothing else', async () => {
    const image = await uploadPng()
    const shown = await insert('cntBanner', { title: 'Shown', image, language: 'en_US', status: '0', createBy: 'admin', createTime: now() }, 'bannerId')
    const png = await get(`/files/banners/image/${image}`)
    expect(png.status, png.msg).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')
    expect(png.headers['cache-control']).toBe('public, max-age=60')
    expect(png.raw.subarray(0, 4).toString('hex')).toBe('89504e47')
    expect((await get(`/files/banners/image/${image}`, undefined, { 'if-none-match': String(png.headers.etag) })).status).toBe(304)
    // Hidden, the row's image is no longer the app's; a name no row holds never was.
    await db().updateTable('cntBanner').set({ status: '1' }).where('bannerId', '=', shown).execute()
    expect((await get(`/files/banners/image/${image}`)).status).toBe(404)
    expect((await get(`/files/banners/image/upload/2026/11/24/nothing.png`)).status).toBe(404)
    expect((await get(`/files/banners/image/../../etc/passwd`)).status).toBe(404)

    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n')
    const uploaded = await t.call<{ fileName: string }>({ method: 'POST', url: '/api/content/userHelp/file/document', token: t.admin, ...multipart([{ name: 'Manual.pdf', bytes: pdf }]) })
    expect(uploaded.status, uploaded.msg).toBe(200)
    const document = uploaded.data.fileName as string
    const helpId = await insert('cntUserHelp', { title: 'Manual', type: 'manual', document, language: 'en_US', status: '1', createBy: 'admin', createTime: now() }, 'helpId')
    // A hidden row's file is not served; once shown it is, and a range answers 206.
    expect((await get(`/files/help/document/${document}`)).status).toBe(404)
    await db().updateTable('cntUserHelp').set({ status: '0' }).where('helpId', '=', helpId).execute()
    const whole = await get(`/files/help/document/${document}`)
    expect(whole.status).toBe(200)
    expect(whole.headers['content-type']).toBe('application/pdf')
    expect(whole.raw.equals(pdf)).toBe(true)
    const part = await get(`/files/help/document/${document}`, undefined, { range: 'bytes=0-7' })
    expect(part.status).toBe(206)
    expect(part.headers['content-range']).toBe(`bytes 0-7/${pdf.length}`)
    expect(part.raw.toString()).toBe('%PDF-1.4')
    // A field the app does not read, or a file of another field, is not served here.
    expect((await get(`/files/help/video/${document}`)).status).toBe(404)
    expect((await get(`/files/help/remark/${document}`)).status).toBe(404)
  })
})

describe('the version check', () => {
  it('answers the current version and whether to update, comparing versions as numbers; a force version in between forces it', async () => {
    const version = (versionCode: string, values: Row = {}) =>
      insert('cntAppVersion', { platform: 'ios', versionCode, versionType: 'normal', downloadUrl: 'https://apps.example/velo', updateInterval: 24, current: 0, releaseTime: '2026-11-01T00:00:00.000Z', notesEn: `Velo ${versionCode}`, createBy: 'admin', createTime: now(), ...values }, 'versionId')
    await version('1.0.0')
    await version('1.1.0', { versionType: 'force' })
    await version('1.9.0')
    await version('1.10.0', { current: 1, notesDe: 'Neue Karten', updateInterval: 12 })
    await version('1.11.0', { versionType: 'force' })
    const check = async (v: string, lang?: string) => {
      const res = await get<{ latest: { releaseNotes: string } }>(`/version?platform=ios&version=${v}${lang ? `&lang=${lang}` : ''}`)
      expect(res.status, res.msg).toBe(200)
      return res.data
    }
    const latest = { versionCode: '1.10.0', versionType: 'normal', downloadUrl: 'https://apps.example/velo', updateInterval: 12, releaseNotes: 'Velo 1.10.0', releaseTime: '2026-11-01T00:00:00.000Z' }
    expect(await check('1.10.0')).toEqual({ latest, updateAvailable: false, forceUpdate: false })
    // As text, 1.9.0 sorts after 1.10.0.
    expect(await check('1.9.0')).toEqual({ latest, updateAvailable: true, forceUpdate: false })
    expect(await check('1.1.0')).toMatchObject({ updateAvailable: true, forceUpdate: false })
    expect(await check('1.0.9')).toMatchObject({ updateAvailable: true, forceUpdate: true })
    // A forced version after the current one is not offered yet, so it forces nothing.
    expect(await check('2.0.0')).toMatchObject({ updateAvailable: false, forceUpdate: false })
    expect((await check('1.9.0', 'de_DE')).latest.releaseNotes).toBe('Neue Karten')
    // Notes not written in the language fall back to English.
    expect((await check('1.9.0', 'fr_FR')).latest.releaseNotes).toBe('Velo 1.10.0')
    expect(Object.keys(await check('1.0.0'))).toEqual(['latest', 'updateAvailable', 'forceUpdate'])

    for (const url of ['/version?platform=windows&version=1.0.0', '/version?platform=ios&version=1.2', '/version?platform=ios&version=1.2.3.4', '/version?platform=ios&version=abc', '/version?platform=ios&version=1000.0.0', '/version?platform=ios', '/version?version=1.0.0']) {
      const res = await get(url)
      expect(res.status, url).toBe(400)
    }
  })

  it('answers no latest for a platform without a current version, and sees a change within a second', async () => {
    const before = await get('/version?platform=android&version=1.0.0')
    expect(before.data).toEqual({ latest: null, updateAvailable: false, forceUpdate: false })
    await insert('cntAppVersion', { platform: 'android', versionCode: '1.2.0', versionType: 'force', downloadUrl: 'https://play.example/velo', updateInterval: 0, current: 1, releaseTime: now(), createBy: 'admin', createTime: now() }, 'versionId')
    await new Promise((r) => setTimeout(r, 1100))
    expect((await get('/version?platform=android&version=1.0.0')).data).toMatchObject({ latest: { versionCode: '1.2.0' }, updateAvailable: true, forceUpdate: true })
  })
})

describe('member sign-in', () => {
  it('answers a token for the right password, one answer for a wrong password and an unknown e-mail, and 403 for a disabled account', async () => {
    const { memberId, email } = await newMember()
    const good = await fromAddress<{ token: string; expiresAt: string }>('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email, password: MEMBER_PASSWORD } })
    expect(good.status, good.msg).toBe(200)
    expect(good.data!.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Date.parse(good.data!.expiresAt) - Date.now()).toBeGreaterThan(29 * 24 * HOUR)
    // Only the token's hash is kept, in the members' own table.
    const stored = await db().selectFrom('memSession').selectAll().where('memberId', '=', memberId).execute()
    expect(stored).toHaveLength(1)
    expect(stored[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(stored)).not.toContain(good.data!.token)
    expect((await db().selectFrom('memMember').select('lastLoginTime').where('memberId', '=', memberId).executeTakeFirstOrThrow()).lastLoginTime).toBeTruthy()
    // Upper case as typed finds the account stored in lower case.
    expect((await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email: email.toUpperCase(), password: MEMBER_PASSWORD } })).status).toBe(200)

    const wrong = await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email, password: 'not-it-2026' } })
    const unknown = await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email: `nobody-${unique()}@example.com`, password: 'not-it-2026' } })
    const { email: noPassword } = await newMember({ password: null })
    const withoutPassword = await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email: noPassword, password: 'not-it-2026' } })
    for (const refused of [wrong, unknown, withoutPassword]) {
      expect(refused).toMatchObject({ status: 400, code: 400, msg: 'E-mail or password is incorrect', data: null })
    }

    const { email: disabled } = await newMember({ status: '1' })
    const off = await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email: disabled, password: MEMBER_PASSWORD } })
    expect(off).toMatchObject({ status: 403, msg: 'This account is disabled' })
    // Disabled is said only to whoever knows the password.
    expect((await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email: disabled, password: 'not-it-2026' } })).status).toBe(400)
    expect((await fromAddress('10.20.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email, password: '' } })).status).toBe(400)
  })

  it('limits attempts per e-mail, whatever the address, and per address, whatever the e-mail', async () => {
    const { email } = await newMember()
    const perEmail: number[] = []
    for (let i = 0; i < 11; i++) perEmail.push((await fromAddress(`10.30.0.${i + 1}`, { method: 'POST', url: `${APP}/auth/login`, body: { email, password: 'guess-2026' } })).status)
    expect(perEmail.slice(0, 10)).toEqual(Array(10).fill(400))
    expect(perEmail[10]).toBe(429)
    // Even the right password waits now.
    expect((await fromAddress('10.30.1.1', { method: 'POST', url: `${APP}/auth/login`, body: { email, password: MEMBER_PASSWORD } })).status).toBe(429)

    const perAddress: number[] = []
    for (let i = 0; i < 31; i++) perAddress.push((await fromAddress('10.31.0.1', { method: 'POST', url: `${APP}/auth/login`, body: { email: `guess${i}-${unique()}@example.com`, password: 'guess-2026' } })).status)
    expect(perAddress.slice(0, 30).every((s) => s === 400)).toBe(true)
    expect(perAddress[30]).toBe(429)
  })

  it('keeps member and staff tokens apart both ways, ends a session at sign-out, and refuses a member disabled or a session expired meanwhile', async () => {
    const { memberId, email } = await newMember({ countryCode: 'NL' })
    const token = await signIn(email)
    const me = await get('/me', token)
    expect(me.status, me.msg).toBe(200)
    expect(me.data).toEqual({ memberId, email, firstName: 'Ada', lastName: 'Rider', countryCode: 'NL' })
    expect(me.headers['cache-control']).toBe('private, no-store')

    // A member token opens nothing of the console, a staff token nothing of a member's.
    expect((await t.call({ url: '/api/getUserInfo', token })).status).toBe(401)
    expect((await t.call({ method: 'POST', url: '/api/member/member/list', token, body: {} })).status).toBe(401)
    const staffOnApp = await get('/me', t.admin)
    expect(staffOnApp).toMatchObject({ status: 401, code: 50008 })
    expect((await get('/inbox', t.admin)).status).toBe(401)
    expect((await get('/me')).status).toBe(401)

    // Refused before the body is even read.
    expect((await post('/inbox/abc/read', t.admin)).status).toBe(401)

    await db().updateTable('memMember').set({ status: '1' }).where('memberId', '=', memberId).execute()
    expect(await get('/me', token)).toMatchObject({ status: 403, msg: 'This account is disabled' })
    await db().updateTable('memMember').set({ status: '0' }).where('memberId', '=', memberId).execute()
    expect((await get('/me', token)).status).toBe(200)

    expect((await post('/auth/logout', token)).status).toBe(200)
    expect(await get('/me', token)).toMatchObject({ status: 401, code: 50008 })

    const second = await signIn(email)
    await db().updateTable('memSession').set({ expiresAt: at(-1000) }).where('memberId', '=', memberId).where('ended', 'is', null).execute()
    expect(await get('/me', second)).toMatchObject({ status: 401, code: 50014 })
  })
})

describe('the inbox', () => {
  it('lists the member’s messages newest first with the unread count, and marks one read once however often, counting it once', async () => {
    const { memberId, email } = await newMember()
    const other = await newMember()
    const token = await signIn(email)
    const otherToken = await signIn(other.email)
    const message = (title: string) => insert('cntMessage', { title, content: `<p>${title}</p>`, audience: 'all', status: 'sent', sentCount: 2, createBy: 'admin', createTime: now(), remark: 'internal' }, 'messageId')
    const older = await message('Older')
    const newer = await message('Newer')
    const theirs = await message('Theirs only')
    await insert('cntMessageRecipient', { messageId: older, memberId, createTime: at(-2 * HOUR) }, 'recipientId')
    await insert('cntMessageRecipient', { messageId: newer, memberId, createTime: at(-HOUR) }, 'recipientId')
    await insert('cntMessageRecipient', { messageId: older, memberId: other.memberId, createTime: at(-2 * HOUR) }, 'recipientId')
    await insert('cntMessageRecipient', { messageId: theirs, memberId: other.memberId, createTime: at(-HOUR) }, 'recipientId')

    const inbox = await get<Paged<Row>>('/inbox', token)
    expect(inbox.status, inbox.msg).toBe(200)
    expect(inbox.data).toMatchObject({ total: 2, unread: 2 })
    expect(inbox.data.rows.map((r: Row) => r.messageId)).toEqual([newer, older])
    expect(Object.keys(inbox.data.rows[0]!).sort()).toEqual(['content', 'deliveredAt', 'messageId', 'readTime', 'title'])
    expect(inbox.data.rows[0]).toMatchObject({ title: 'Newer', content: '<p>Newer</p>', readTime: null })
    expect((await get<Paged<Row>>('/inbox?pageSize=1&pageNum=2', token)).data.rows.map((r: Row) => r.messageId)).toEqual([older])

    const readCount = async (messageId: number) => Number((await db().selectFrom('cntMessage').select('readCount').where('messageId', '=', messageId).executeTakeFirstOrThrow()).readCount)
    const first = await post<{ readTime: string }>(`/inbox/${older}/read`, token)
    expect(first.status, first.msg).toBe(200)
    const again = await post<{ readTime: string }>(`/inbox/${older}/read`, token)
    expect(again.data.readTime).toBe(first.data.readTime)
    expect(await readCount(older)).toBe(1)
    expect((await get('/inbox', token)).data).toMatchObject({ total: 2, unread: 1 })

    // Two devices at once: one of them counts it.
    await Promise.all([post(`/inbox/${older}/read`, otherToken), post(`/inbox/${older}/read`, otherToken)])
    expect(await readCount(older)).toBe(2)

    // Another member's message, or none, is not found and changes nothing.
    const foreign = await post(`/inbox/${theirs}/read`, token)
    expect(foreign).toMatchObject({ status: 404, msg: 'The message does not exist' })
    expect((await post('/inbox/99999999/read', token)).status).toBe(404)
    expect(await readCount(theirs)).toBe(0)
    expect((await get('/inbox?pageSize=0', token)).status).toBe(400)
  })
})

describe('agreements', () => {
  it('shows the published agreement of a type and language, and 404 where none is published', async () => {
    const tag = unique()
    const protocol = (versionCode: string, status: string) =>
      insert('cntProtocol', { name: `Privacy ${tag}`, type: 'privacy', content: `<p>Terms ${versionCode}</p>`, language: 'nl_NL', versionCode, isUpdate: 0, status, publishTime: status === 'draft' ? null : now(), createBy: 'admin', createTime: now(), remark: 'legal' }, 'protocolId')
    await protocol(`8.0.${parseInt(tag.slice(0, 2), 16)}`, 'retired')
    const published = await protocol(`8.1.${parseInt(tag.slice(0, 2), 16)}`, 'published')
    await protocol(`8.2.${parseInt(tag.slice(0, 2), 16)}`, 'draft')
    const current = await get('/agreements/current?type=privacy&lang=nl_NL')
    expect(current.status, current.msg).toBe(200)
    expect(current.data).toEqual({ protocolId: published, name: `Privacy ${tag}`, type: 'privacy', language: 'nl_NL', versionCode: expect.stringMatching(/^8\.1\./), isUpdate: false, content: expect.stringContaining('Terms 8.1'), publishTime: expect.any(String) })
    const none = await t.call({ url: `${APP}/agreements/current?type=emailSubscription&lang=fr_FR`, lang: 'zh_CN' })
    expect(none).toMatchObject({ status: 404, msg: '协议不存在或未发布' })
    expect((await get('/agreements/current?type=cookies&lang=nl_NL')).status).toBe(400)
  })

  it('signs once however often, cancels once, signs again, keeping the counts and the privacy consent in step', async () => {
    const { memberId, email } = await newMember()
    const token = await signIn(email)
    const other = await newMember()
    const otherToken = await signIn(other.email)
    const protocolId = await insert(
      'cntProtocol',
      { name: 'Privacy policy', type: 'privacy', content: '<p>Terms</p>', language: 'de_DE', versionCode: '2.0.0', status: 'published', publishTime: now(), createBy: 'admin', createTime: now() },
      'protocolId',
    )
    const counts = async () => db().selectFrom('cntProtocol').select(['signCount', 'cancelCount']).where('protocolId', '=', protocolId).executeTakeFirstOrThrow()
    const consent = async (id = memberId) => (await db().selectFrom('memMember').select('privacyAgreement').where('memberId', '=', id).executeTakeFirstOrThrow()).privacyAgreement

    const signed = await post(`/agreements/${protocolId}/sign`, token)
    expect(signed.status, signed.msg).toBe(200)
    expect(signed.data).toMatchObject({ current: { protocolId, versionCode: '2.0.0' }, signed: true, signedVersion: '2.0.0' })
    expect(await post(`/agreements/${protocolId}/sign`, token)).toMatchObject({ status: 200 })
    expect(await counts()).toEqual({ signCount: 1, cancelCount: 0 })
    expect(await consent()).toBe('agreed')
    const signature = await db().selectFrom('cntProtocolSignature').selectAll().where('memberId', '=', memberId).execute()
    expect(signature).toMatchObject([{ protocolId, type: 'privacy', language: 'de_DE', versionCode: '2.0.0', state: 'signed', cancelTime: null }])
    expect((await get('/agreements/standing?type=privacy&lang=de_DE', token)).data).toMatchObject({ signed: true, signedVersion: '2.0.0', current: { protocolId } })

    // Two signs at once by another member count once.
    const both = await Promise.all([post(`/agreements/${protocolId}/sign`, otherToken), post(`/agreements/${protocolId}/sign`, otherToken)])
    expect(both.map((r) => r.status)).toEqual([200, 200])
    expect(await counts()).toEqual({ signCount: 2, cancelCount: 0 })

    const cancelled = await post(`/agreements/${protocolId}/cancel`, token)
    expect(cancelled.status, cancelled.msg).toBe(200)
    expect(cancelled.data).toMatchObject({ signed: false })
    await post(`/agreements/${protocolId}/cancel`, token)
    expect(await counts()).toEqual({ signCount: 1, cancelCount: 1 })
    expect(await consent()).toBe('disagreed')
    expect(await db().selectFrom('cntProtocolSignature').select(['state', 'cancelTime']).where('memberId', '=', memberId).executeTakeFirstOrThrow()).toMatchObject({ state: 'cancelled', cancelTime: expect.any(String) })

    await post(`/agreements/${protocolId}/sign`, token)
    expect(await counts()).toEqual({ signCount: 2, cancelCount: 0 })
    expect(await consent()).toBe('agreed')
  })

  it('counts a signature of an older version as not signed once an update is published; cancelling withdraws every signed version', async () => {
    const { memberId, email } = await newMember()
    const token = await signIn(email)
    const version = (versionCode: string, status: string, isUpdate: number) =>
      insert('cntProtocol', { name: 'Mail', type: 'emailSubscription', content: '<p>Mail</p>', language: 'nl_NL', versionCode, isUpdate, status, publishTime: now(), createBy: 'admin', createTime: now() }, 'protocolId')
    const first = await version('1.0.0', 'published', 0)
    expect((await post(`/agreements/${first}/sign`, token)).data).toMatchObject({ signed: true, signedVersion: '1.0.0' })
    await db().updateTable('cntProtocol').set({ status: 'retired' }).where('protocolId', '=', first).execute()
    const update = await version('1.1.0', 'published', 1)
    const standing = await get('/agreements/standing?type=emailSubscription&lang=nl_NL', token)
    expect(standing.data).toEqual({ current: { protocolId: update, versionCode: '1.1.0' }, signed: false, signedVersion: '1.0.0' })
    // The retired version is no longer offered for signing.
    expect((await post(`/agreements/${first}/sign`, token)).status).toBe(404)
    expect((await post(`/agreements/${update}/sign`, token)).data).toEqual({ current: { protocolId: update, versionCode: '1.1.0' }, signed: true, signedVersion: '1.1.0' })

    expect((await post(`/agreements/${update}/cancel`, token)).data).toMatchObject({ signed: false, signedVersion: null })
    const counts = await db().selectFrom('cntProtocol').select(['protocolId', 'signCount', 'cancelCount']).where('protocolId', 'in', [first, update]).orderBy('protocolId').execute()
    expect(counts).toEqual([
      { protocolId: first, signCount: 0, cancelCount: 1 },
      { protocolId: update, signCount: 0, cancelCount: 1 },
    ])
    expect((await db().selectFrom('cntProtocolSignature').select('state').where('memberId', '=', memberId).execute()).map((r: Row) => r.state)).toEqual(['cancelled', 'cancelled'])
    // The privacy consent is the privacy agreement's only.
    expect((await db().selectFrom('memMember').select('privacyAgreement').where('memberId', '=', memberId).executeTakeFirstOrThrow()).privacyAgreement).toBe('disagreed')
  })

  it('refuses to sign a draft, retired or unknown agreement (404), changing nothing', async () => {
    const { email, memberId } = await newMember()
    const token = await signIn(email)
    for (const status of ['draft', 'retired']) {
      const protocolId = await insert(
        'cntProtocol',
        { name: `Mail ${status}`, type: 'emailSubscription', content: '<p>Mail</p>', language: 'fr_FR', versionCode: status === 'draft' ? '3.1.0' : '3.0.0', status, createBy: 'admin', createTime: now() },
        'protocolId',
      )
      const res = await post(`/agreements/${protocolId}/sign`, token)
      expect(res).toMatchObject({ status: 404, msg: 'The agreement does not exist or is not published' })
      expect(await db().selectFrom('cntProtocol').select(['signCount']).where('protocolId', '=', protocolId).executeTakeFirstOrThrow()).toEqual({ signCount: 0 })
    }
    expect((await post('/agreements/99999999/sign', token)).status).toBe(404)
    expect(await db().selectFrom('cntProtocolSignature').select('signatureId').where('memberId', '=', memberId).execute()).toEqual([])
    expect((await post('/agreements/1/sign')).status).toBe(401)
  })
})

describe('service centres near a point', () => {
  it('answers the published centres within the radius, nearest first, with their distance', async () => {
    const nl = await countryId('NL')
    const tag = unique()
    const centre = (name: string, latitude: number, longitude: number, status = '0') =>
      insert('cntServiceCentre', { name: `${tag} ${name}`, address: `${name} 1`, countryId: nl, latitude, longitude, offersSales: 1, offersRepair: 1, status, createBy: 'admin', createTime: now() }, 'centreId')
    const amsterdam = await centre('Amsterdam', 52.3702, 4.8952)
    const utrecht = await centre('Utrecht', 52.0907, 5.1214)
    const rotterdam = await centre('Rotterdam', 51.9244, 4.4777)
    await centre('Berlin', 52.52, 13.405)
    await centre('Closed Amsterdam', 52.371, 4.896, '1')
    const near = async (query: string) => {
      const res = await get<Paged<Row>>(`/serviceCentres/near?${query}`)
      expect(res.status, res.msg).toBe(200)
      return res.data.rows.filter((r) => String(r.name).startsWith(tag))
    }
    const fromDam = await near('lat=52.3731&lng=4.8926')
    expect(fromDam.map((r) => r.centreId)).toEqual([amsterdam, utrecht])
    expect(fromDam[0]!.distanceKm).toBeLessThan(1)
    expect(fromDam[1]!.distanceKm).toBeGreaterThan(30)
    expect(fromDam[1]!.distanceKm).toBeLessThan(40)
    expect(Object.keys(fromDam[0]!).sort()).toEqual(
      ['address', 'centreId', 'countryId', 'countryIdLabel', 'distanceKm', 'email', 'latitude', 'longitude', 'name', 'offersRepair', 'offersSales', 'offersTestRide', 'offersWarranty', 'openingHours', 'phone'].sort(),
    )
    expect(fromDam[0]).toMatchObject({ countryId: nl, countryIdLabel: 'Netherlands', offersSales: true, offersTestRide: false })
    expect((await near('lat=52.3731&lng=4.8926&radiusKm=100')).map((r) => r.centreId)).toEqual([amsterdam, utrecht, rotterdam])
    expect((await near('lat=52.3731&lng=4.8926&radiusKm=100&limit=1')).map((r) => r.centreId)).toEqual([amsterdam])
    expect(await near('lat=0&lng=0')).toEqual([])
    for (const query of ['lat=91&lng=0', 'lat=0&lng=181', 'lat=0&lng=0&radiusKm=501', 'lat=0&lng=0&radiusKm=0', 'lat=0&lng=0&limit=101', 'lng=0', 'lat=x&lng=0']) {
      expect((await get(`/serviceCentres/near?${query}`)).status, query).toBe(400)
    }
  })

  it('finds centres across the date line', async () => {
    const tag = unique()
    const fj = await countryId('NL')
    const east = await insert('cntServiceCentre', { name: `${tag} East`, address: 'x', countryId: fj, latitude: -17.0, longitude: 179.9, createBy: 'admin', createTime: now() }, 'centreId')
    const west = await insert('cntServiceCentre', { name: `${tag} West`, address: 'x', countryId: fj, latitude: -17.0, longitude: -179.8, createBy: 'admin', createTime: now() }, 'centreId')
    const rows = (await get<Paged<Row>>('/serviceCentres/near?lat=-17&lng=179.95&radiusKm=40')).data.rows.filter((r) => String(r.name).startsWith(tag))
    expect(rows.map((r) => r.centreId)).toEqual([east, west])
  })
})

describe('uploads of logs and crash reports', () => {
  const form = (file: { name: string; bytes: Buffer } | undefined, fields: Record<string, string>) =>
    multipart([...Object.entries(fields).map(([field, value]) => ({ field, value })), ...(file ? [{ field: 'file', ...file }] : [])])
  const upload = <T = unknown>(token: string, body: ReturnType<typeof form>) => t.call<T>({ method: 'POST', url: `${APP}/uploads`, token, ...body })
  const fields = { deviceId: 'iPhone15,2', logType: 'crash', platform: 'ios', appVersion: '1.10.0', osVersion: 'iOS 18.1' }
  const files = async () => Number((await db().selectFrom('sysFile').select((eb) => eb.fn.countAll().as('n')).where('entity', '=', 'appUploadLog').executeTakeFirstOrThrow()).n)

  it('stores the file, records the upload for the member, and staff list and download it', async () => {
    const { memberId, email } = await newMember()
    const token = await signIn(email)
    const text = Buffer.from('2026-11-24 12:00:01 FATAL crash in MapView\n')
    const res = await upload<{ uploadId: number }>(token, form({ name: 'crash-2026-11-24.log', bytes: text }, fields))
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toEqual({ uploadId: expect.any(Number), originalName: 'crash-2026-11-24.log', fileSize: text.length })
    const listed = await t.call<Paged<{ file: string }>>({ method: 'POST', url: '/api/monitor/appUploadLog/list', token: t.admin, body: { memberId } })
    expect(listed.status, listed.msg).toBe(200)
    expect(listed.data.rows).toMatchObject([{ uploadId: res.data.uploadId, memberId, deviceId: 'iPhone15,2', logType: 'crash', platform: 'ios', appVersion: '1.10.0', osVersion: 'iOS 18.1', originalName: 'crash-2026-11-24.log', fileSize: text.length }])
    const stored = listed.data.rows[0]!.file
    const download = await t.call({ url: `/api/monitor/appUploadLog/file/file/${stored}`, token: t.admin })
    expect(download.status).toBe(200)
    expect(download.raw.equals(text)).toBe(true)
    // A member write is not a staff operation: the operation log does not hold it.
    const logged = await db().selectFrom('sysOperLog').select('operId').where('operUrl', 'like', '/api/app/v1/%').execute()
    expect(logged).toEqual([])
  })

  it('refuses a wrong extension, content that is not what it says, missing fields and a file too large, keeping nothing', async () => {
    const { email, memberId } = await newMember()
    const token = await signIn(email)
    const before = await files()
    const exe = await upload(token, form({ name: 'tool.exe', bytes: Buffer.from('MZ') }, fields))
    expect(exe).toMatchObject({ status: 400, msg: expect.stringContaining('log, txt, json, zip, gz') })
    expect((await upload(token, form({ name: 'logs.zip', bytes: Buffer.from('not a zip at all') }, fields))).status).toBe(400)
    const noType = await upload<{ errors: FieldIssue[] }>(token, form({ name: 'app.log', bytes: Buffer.from('x') }, { ...fields, logType: 'panic' }))
    expect(noType.status).toBe(400)
    expect(noType.data.errors.map((e: { field: string }) => e.field)).toEqual(['logType'])
    expect((await upload(token, form(undefined, fields))).status).toBe(400)
    expect((await upload(token, form({ name: 'app.log', bytes: Buffer.from('x') }, { ...fields, platform: '' }))).status).toBe(400)
    const big = await upload(token, form({ name: 'huge.log', bytes: Buffer.alloc(50 * 1024 * 1024 + 1, 0x61) }, fields))
    expect(big.status).toBe(413)
    expect(await files()).toBe(before)
    expect(await db().selectFrom('monAppUploadLog').select('uploadId').where('memberId', '=', memberId).execute()).toEqual([])
    expect((await upload(t.admin, form({ name: 'app.log', bytes: Buffer.from('x') }, fields))).status).toBe(401)
  })

  it('limits uploads per member: the 21st within the hour is refused', async () => {
    const { email } = await newMember()
    const token = await signIn(email)
    const statuses: number[] = []
    for (let i = 0; i < 21; i++) statuses.push((await upload(token, form({ name: `log${i}.txt`, bytes: Buffer.from(`line ${i}\n`) }, { ...fields, logType: 'log' }))).status)
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200))
    expect(statuses[20]).toBe(429)
    // Another member is not held back by it.
    const other = await newMember()
    expect((await upload(await signIn(other.email), form({ name: 'log.txt', bytes: Buffer.from('ok') }, { ...fields, logType: 'log' }))).status).toBe(200)
  })
})

describe('the routes', () => {
  it('each declares the App API tag, a summary and its answers, and the member routes their token', () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith(`${APP}/`) && r.method !== 'HEAD')
    expect(routes.length).toBeGreaterThan(20)
    for (const r of routes) {
      const schema = r.schema as { tags?: string[]; summary?: string; response?: object; security?: unknown[] }
      expect(schema.tags, r.url).toEqual(['App API'])
      expect(schema.summary, r.url).toBeTruthy()
      expect(schema.response, r.url).toBeTruthy()
      expect(r.config?.permission, r.url).toMatch(/^(public|member)$/)
      expect(schema.security, r.url).toEqual(r.config?.permission === 'member' ? [{ memberToken: [] }] : [])
    }
  })

  it('are documented in the OpenAPI document, the app rows as their declarations give them', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/json', headers: { authorization: t.admin } })).json()
    expect(doc.components.securitySchemes.memberToken).toEqual({ type: 'apiKey', in: 'header', name: 'Authorization' })
    expect(doc.paths['/api/app/v1/inbox'].get.security).toEqual([{ memberToken: [] }])
    expect(doc.paths['/api/app/v1/banners'].get.security).toEqual([])
    const banners = doc.paths['/api/app/v1/banners'].get.responses['200'].content['application/json'].schema
    expect(banners.properties.data.properties.rows.items.$ref).toBe('#/components/schemas/AppBanner')
    expect(Object.keys(doc.components.schemas.AppBanner.properties)).toEqual(['bannerId', 'title', 'image', 'linkUrl', 'orderNum', 'startTime', 'endTime'])
  })
})
