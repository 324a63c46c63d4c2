import { randomBytes } from 'node:crypto'
import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { hashPassword } from '../src/platform/auth/passwords'
import { appLanguageOf } from '../src/modules/app/feedback'
import { snapshot, useTestApp } from './harness'

// POST /app/v1/feedback (modules/app/feedback.ts): a member's feedback with the language it was
// written in (the body's, else the Accept-Language header's), which staff see in the list and the
// reply dialog. Bad input is refused and writes nothing.
const t = useTestApp()
const db = () => t.app.services.db
const URL = '/api/app/v1/feedback'
const unique = () => randomBytes(4).toString('hex')
const PASSWORD = 'Rider2026!'

async function newMember(): Promise<{ memberId: number; token: string }> {
  const email = `writer-${unique()}@example.com`
  const row = await db()
    .insertInto('memMember')
    .values({ email, firstName: 'Wri', lastName: 'Ter', status: '0', passwordHash: await hashPassword(PASSWORD), createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  const res = await t.call<{ token: string }>({ method: 'POST', url: '/api/app/v1/auth/login', body: { email, password: PASSWORD } })
  expect(res.status, res.msg).toBe(200)
  return { memberId: Number(row.memberId), token: res.data.token as string }
}

async function newTag(name: string, status = '0'): Promise<number> {
  const res = await t.call<{ tagId: number }>({ method: 'POST', url: '/api/member/feedbackTag', token: t.admin, body: { name, orderNum: 1, status } })
  expect(res.status, res.msg).toBe(200)
  return res.data.tagId as number
}

const send = (token: string | undefined, body: Record<string, unknown>, headers: Record<string, string> = {}) => t.call<{ feedbackId: number; language: string }>({ method: 'POST', url: URL, token, body, headers })
const feedbackRows = () => snapshot(t, 'memFeedback' as never, 'memFeedbackTagLink' as never)

describe('app feedback', () => {
  it('stores the language of the body, which staff read in the list, its filter and the details', async () => {
    const { memberId, token } = await newMember()
    const tag = await newTag(`Saddle ${unique()}`)
    // The body's language wins over the header: the app says which language the member wrote in.
    const res = await send(token, { stars: 4, content: 'Der Sattel ist sehr bequem', tagIds: [tag], language: 'de_DE' }, { 'accept-language': 'fr-FR,fr;q=0.9' })
    expect(res.status, res.msg).toBe(200)
    expect(res.data.language).toBe('de_DE')
    expect(res.msg).toBe('Thank you for your feedback')

    const opened = await t.call({ url: `/api/member/feedback/${res.data.feedbackId}`, token: t.admin })
    expect(opened.status, opened.msg).toBe(200)
    expect(opened.data).toMatchObject({ memberId, stars: 4, language: 'de_DE', content: 'Der Sattel ist sehr bequem', tagIds: [tag], readState: 'read' })
    // The list filters by it.
    const listed = await t.call<Paged<{ feedbackId: number; language: string }>>({ method: 'POST', url: '/api/member/feedback/list', token: t.admin, body: { memberId, language: 'de_DE' } })
    expect(listed.data.rows.map((r) => [r.feedbackId, r.language])).toEqual([[res.data.feedbackId, 'de_DE']])
    expect((await t.call<Paged<unknown>>({ method: 'POST', url: '/api/member/feedback/list', token: t.admin, body: { memberId, language: 'fr_FR' } })).data.total).toBe(0)
  })

  it('takes the language from Accept-Language when the body has none, else leaves it unknown', async () => {
    const { token } = await newMember()
    for (const [header, expected] of [
      ['nl-NL,nl;q=0.9,en;q=0.8', 'nl_NL'],
      // The first app language the header asks for, by weight: Italian is not one; Austrian German reads German.
      ['it-IT, de-AT;q=0.7, fr;q=0.8', 'fr_FR'],
      ['de-AT', 'de_DE'],
      ['zh-CN,zh;q=0.9', ''],
    ] as const) {
      const res = await send(token, { stars: 5, content: `Great bike (${header})` }, { 'accept-language': header })
      expect(res.status, res.msg).toBe(200)
      expect(res.data.language, header).toBe(expected)
      const row = await db().selectFrom('memFeedback').select('language').where('feedbackId', '=', res.data.feedbackId).executeTakeFirstOrThrow()
      expect(row.language, header).toBe(expected)
    }
    const none = await send(token, { stars: 3, content: 'No header' })
    expect(none.status, none.msg).toBe(200)
    expect(none.data.language).toBe('')
  })

  it('refuses a language the app does not have, bad stars or text and tags not offered (400), and strangers (401), writing nothing', async () => {
    const { token } = await newMember()
    const disabled = await newTag(`Old ${unique()}`, '1')
    const before = await feedbackRows()
    for (const body of [
      { stars: 4, content: 'Hallo', language: 'de' },
      { stars: 4, content: 'Hallo', language: 'zh_CN' },
      { stars: 4, content: 'Hallo', language: '' },
      { stars: 6, content: 'Too many stars', language: 'en_US' },
      { stars: 4, content: '   ', language: 'en_US' },
      { stars: 4, content: 'x'.repeat(2001), language: 'en_US' },
      { stars: 4, content: 'Disabled tag', tagIds: [disabled] },
      { stars: 4, content: 'Unknown tag', tagIds: [987654] },
      { stars: 4, content: 'Extra field', memberId: 1 },
    ]) {
      const res = await send(token, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
    }
    const unknownTag = await send(token, { stars: 4, content: 'Unknown tag', tagIds: [987654] })
    expect(unknownTag.msg).toBe('Feedback tag 987654 does not exist or is disabled')
    expect((await send(undefined, { stars: 4, content: 'Anonymous', language: 'en_US' })).status).toBe(401)
    expect(await feedbackRows()).toEqual(before)
  })

  it('reads Accept-Language by weight, exact tags first, and ignores what the app does not speak', () => {
    expect(appLanguageOf(undefined)).toBeUndefined()
    expect(appLanguageOf('*')).toBeUndefined()
    expect(appLanguageOf('en-GB')).toBe('en_US')
    expect(appLanguageOf('fr-BE;q=0.5, nl-BE;q=0.6')).toBe('nl_NL')
    expect(appLanguageOf('de;q=0, fr')).toBe('fr_FR')
    expect(appLanguageOf('es-ES, pt')).toBeUndefined()
  })
})
