import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { addRole, addUser, type Refusal, useTestApp } from './harness'

// The help centre FAQ has a definition (shared/entities/content.ts), a migration and its seeded menu
// row, and no route code: the engine serves it.
const t = useTestApp()

describe('a module that is only a definition, a migration and a menu row', () => {
  it('adds, lists, modifies, exports and deletes through the engine', async () => {
    const add = await t.call<{ faqId: number; content: string }>({
      method: 'POST',
      url: '/api/content/faq',
      token: t.admin,
      body: { type: 'battery', title: 'How long does charging take?', content: '<p>About <b>4 hours</b>.</p><iframe src="https://evil"></iframe>' },
    })
    expect(add.status, add.msg).toBe(200)
    expect(add.data.content).toBe('<p>About <b>4 hours</b>.</p>')
    const list = await t.call<Paged<unknown>>({ method: 'POST', url: '/api/content/faq/list', token: t.admin, body: { type: 'battery' } })
    expect(list.data.total).toBe(1)
    const edit = await t.call<{ orderNum: number }>({ method: 'PUT', url: '/api/content/faq', token: t.admin, body: { faqId: add.data.faqId, orderNum: 3 } })
    expect(edit.data.orderNum).toBe(3)
    const exported = await t.call({ method: 'POST', url: '/api/content/faq/export', token: t.admin, body: {} })
    expect(exported.status).toBe(200)
    expect((await t.call({ method: 'DELETE', url: `/api/content/faq/${add.data.faqId}`, token: t.admin })).status).toBe(200)
  })

  it('refuses a blank required rich text and an unknown type', async () => {
    const res = await t.call<Refusal>({ method: 'POST', url: '/api/content/faq', token: t.admin, body: { type: 'bikes', title: 'x', content: '' } })
    expect(res.status).toBe(400)
    expect(res.data.errors.map((e: { field: string }) => e.field).sort()).toEqual(['content', 'type'])
  })

  it('answers only users holding its permissions, from the seeded menu buttons', async () => {
    await addRole(t, { roleKey: 'faqReader', dataScope: '1', perms: ['content:faq:list'] })
    await addUser(t, { userName: 'faqreader', roleKeys: ['faqReader'] })
    const reader = await t.login('faqreader', 'secret12')
    expect((await t.call({ method: 'POST', url: '/api/content/faq/list', token: reader, body: {} })).status).toBe(200)
    expect((await t.call({ method: 'POST', url: '/api/content/faq', token: reader, body: { type: 'app', title: 'x', content: 'y' } })).status).toBe(403)
  })
})
