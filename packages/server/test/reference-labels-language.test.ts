import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { readWorkbook, useTestApp } from './harness'

// A reference's label follows the reader's language where the referenced table keeps a name per
// language (a country: 荷兰 / Netherlands): the list's `<name>Label`, a row's details, pickers and
// exports, as the dashboards name countries. An export in Chinese imports back by those names.
const t = useTestApp()
const db = () => t.app.services.db

async function memberIn(code: string): Promise<number> {
  const country = await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirstOrThrow()
  const row = await db()
    .insertInto('memMember')
    .values({ email: `labels-${code.toLowerCase()}@example.com`, firstName: 'Ada', lastName: 'Labels', countryId: country.countryId, createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}

describe('reference labels in the reader language', () => {
  it('names a member country in English or Chinese in the list, the details, the picker and the export', async () => {
    const id = await memberIn('NL')
    const list = (lang: 'en_US' | 'zh_CN') => t.call<Paged<{ countryIdLabel: string }>>({ method: 'POST', url: '/api/member/member/list', token: t.admin, lang, body: { email: 'labels-nl' } })
    expect((await list('en_US')).data.rows[0]!.countryIdLabel).toBe('Netherlands')
    expect((await list('zh_CN')).data.rows[0]!.countryIdLabel).toBe('荷兰')
    // Asked twice in each language: the kept statement of a list shape is kept per language.
    expect((await list('en_US')).data.rows[0]!.countryIdLabel).toBe('Netherlands')
    expect((await list('zh_CN')).data.rows[0]!.countryIdLabel).toBe('荷兰')

    const get = await t.call<{ countryIdLabel: string }>({ method: 'GET', url: `/api/member/member/${id}`, token: t.admin, lang: 'zh_CN' })
    expect(get.data.countryIdLabel).toBe('荷兰')

    const options = await t.call<{ label: string }[]>({ method: 'GET', url: '/api/system/country/options?keyword=荷', token: t.admin, lang: 'zh_CN' })
    expect(options.data.map((o: { label: string }) => o.label)).toContain('荷兰')
    const english = await t.call<{ label: string }[]>({ method: 'GET', url: '/api/system/country/options?keyword=Nether', token: t.admin, lang: 'en_US' })
    expect(english.data.map((o: { label: string }) => o.label)).toEqual(['Netherlands'])

    const exported = await t.call({ method: 'POST', url: '/api/member/member/export', token: t.admin, lang: 'zh_CN', body: { email: 'labels-nl' } })
    expect(exported.status).toBe(200)
    const sheet = await readWorkbook(exported.raw)
    expect(JSON.stringify(sheet)).toContain('荷兰')
    expect(JSON.stringify(sheet)).not.toContain('Netherlands')
  })
})
