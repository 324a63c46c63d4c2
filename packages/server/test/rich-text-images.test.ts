import { randomBytes } from 'node:crypto'
import type { FieldDef, Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { importRowSchema } from '../src/platform/crud/schemas'
import { sanitizeRichText } from '../src/platform/rich-text'
import { hashPassword } from '../src/platform/auth/passwords'
import { useTestApp } from './harness'

// Rich text keeps only images the console stored itself (platform/rich-text.ts): an image from
// anywhere else is a pixel every reader's browser, and every rider's phone, would fetch from whoever
// put it there. Cleaned when written (add, modify, import) and again when the app API reads it.
const t = useTestApp()
const db = () => t.app.services.db
const now = () => new Date().toISOString()

const STORED = 'upload/2026/11/24/3f2a9c1e-8b4d-4e6f-9a0b-1c2d3e4f5a6b.png'
/** The url POST /common/upload answers for a stored image. */
const UPLOADED = `/api/common/download?fileName=${encodeURIComponent(STORED)}`
const PIXEL = 'https://tracker.example.com/p.gif?rider=1'
const DATA = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** Text with an image of each kind: only the first is the console's. */
const mixed = `<p>Ours <img src="${UPLOADED}" alt="map"> theirs <img src="${PIXEL}" width="1" height="1"> inline <img src="${DATA}"> and <a href="https://example.com/help">a link</a></p>`
const cleaned = `<p>Ours <img src="${UPLOADED}" alt="map" /> theirs  inline  and <a href="https://example.com/help">a link</a></p>`

describe('the rich-text sanitizer', () => {
  it('keeps the console’s own images and removes every other', () => {
    expect(sanitizeRichText(mixed)).toBe(cleaned)
    const keeps = [
      UPLOADED,
      `/api/common/download?fileName=${STORED}`,
      `/admin-api/common/download?fileName=${encodeURIComponent(STORED)}`,
      `/api/app/v1/files/guides/image/${STORED}`,
    ]
    for (const src of keeps) expect(sanitizeRichText(`<img src="${src}">`), src).toBe(`<img src="${src.replace(/&/g, '&amp;')}" />`)
    const removes = [
      PIXEL,
      'http://tracker.example.com/p.gif',
      `https://tracker.example.com${UPLOADED}`,
      `//tracker.example.com${UPLOADED}`,
      DATA,
      'javascript:alert(1)',
      `${UPLOADED}&then=https://tracker.example.com/p.gif`,
      '/api/common/download?fileName=upload/../../secret.png',
      '/api/common/download?fileName=file%2Fcontent%2F2026%2F11%2F24%2F3f2a9c1e-8b4d-4e6f-9a0b-1c2d3e4f5a6b.png',
      '/api/common/avatar?url=avatar/2026/11/24/3f2a9c1e-8b4d-4e6f-9a0b-1c2d3e4f5a6b.png',
      '',
    ]
    for (const src of removes) expect(sanitizeRichText(`<p>a<img src="${src}">b</p>`), src).toBe('<p>ab</p>')
    expect(sanitizeRichText('<p>a<img>b<img srcset="https://tracker.example.com/p.gif 1x">c</p>')).toBe('<p>abc</p>')
  })
})

describe('written through the console', () => {
  it('add and modify store only the console’s images', async () => {
    const add = await t.call<{ faqId: number; content: string }>({ method: 'POST', url: '/api/content/faq', token: t.admin, body: { type: 'battery', title: 'Charging', content: mixed } })
    expect(add.status, add.msg).toBe(200)
    expect(add.data.content).toBe(cleaned)
    const stored = await db().selectFrom('contentFaq').select('content').where('faqId', '=', add.data.faqId).executeTakeFirstOrThrow()
    expect(stored.content).toBe(cleaned)
    const edit = await t.call<{ content: string }>({ method: 'PUT', url: '/api/content/faq', token: t.admin, body: { faqId: add.data.faqId, content: `<p>New <img src="${PIXEL}"></p>` } })
    expect(edit.status, edit.msg).toBe(200)
    expect(edit.data.content).toBe('<p>New </p>')
    expect((await t.call<{ content: string }>({ url: `/api/content/faq/${add.data.faqId}`, token: t.admin })).data.content).toBe('<p>New </p>')
  })

  it('an imported row’s rich text is cleaned the same way', () => {
    const column = { name: 'content', kind: 'richText', label: { en_US: 'Content', zh_CN: '内容' }, required: true } as FieldDef
    const parsed = importRowSchema([column]).parse({ content: mixed }) as { content: string }
    expect(parsed.content).toBe(cleaned)
  })
})

describe('read by the riders’ app', () => {
  it('rows stored before the rule (or past the API) come out without foreign images', async () => {
    const tag = randomBytes(4).toString('hex')
    // FAQ, policies: the definitions' public reads.
    await db()
      .insertInto('contentFaq')
      .values({ type: 'app', title: `FAQ ${tag}`, content: mixed, language: 'fr_FR', orderNum: 0, status: '0', createBy: 'admin', createTime: now() })
      .execute()
    const faq = await t.call<Paged<{ title: string; content: string }>>({ url: '/api/app/v1/faq?lang=fr_FR' })
    expect(faq.status, faq.msg).toBe(200)
    expect(faq.data.rows.find((r: { title: string }) => r.title === `FAQ ${tag}`)!.content).toBe(cleaned)
    expect(faq.raw.toString()).not.toContain('tracker.example.com')

    // The published agreement.
    await db()
      .insertInto('cntProtocol')
      .values({ name: `Terms ${tag}`, type: 'privacy', content: mixed, language: 'fr_FR', versionCode: '9.9.9', isUpdate: 0, status: 'published', publishTime: now(), createBy: 'admin', createTime: now() })
      .execute()
    const agreement = await t.call<{ content: string }>({ url: '/api/app/v1/agreements/current?type=privacy&lang=fr_FR' })
    expect(agreement.status, agreement.msg).toBe(200)
    expect(agreement.data.content).toBe(cleaned)

    // A member's inbox.
    const email = `rider-${tag}@example.com`
    const member = await db()
      .insertInto('memMember')
      .values({ email, firstName: 'Ada', lastName: 'Rider', status: '0', passwordHash: await hashPassword('Rider2026!'), createBy: 'app', createTime: now() })
      .returning('memberId')
      .executeTakeFirstOrThrow()
    const message = await db()
      .insertInto('cntMessage')
      .values({ title: `Hello ${tag}`, content: mixed, audience: 'all', status: 'sent', sentCount: 1, createBy: 'admin', createTime: now() })
      .returning('messageId')
      .executeTakeFirstOrThrow()
    await db().insertInto('cntMessageRecipient').values({ messageId: message.messageId, memberId: member.memberId, createTime: now() }).execute()
    const login = await t.call<{ token: string }>({ method: 'POST', url: '/api/app/v1/auth/login', body: { email, password: 'Rider2026!' } })
    expect(login.status, login.msg).toBe(200)
    const inbox = await t.call<Paged<{ content: string }>>({ url: '/api/app/v1/inbox', token: login.data.token })
    expect(inbox.status, inbox.msg).toBe(200)
    expect(inbox.data.rows[0]!.content).toBe(cleaned)
  })
})
