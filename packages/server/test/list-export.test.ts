import { onlineSession } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { inTreeOrder } from '../src/platform/crud/tree-order'
import { limitedUser, readWorkbook, useTestApp } from './harness'

// Every list exports (SPEC §1; issue 13): the menu tree too, in the order its page shows it (each
// node followed by what is below it, so a page's buttons sit under the page), the mail outbox and
// the online users.

describe('a tree in the order its page shows it', () => {
  const row = (id: number, parentId: number) => ({ id, parentId })
  const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r.id)

  it('puts each node before its children, siblings in the order given', () => {
    const rows = [row(1, 0), row(2, 0), row(3, 1), row(4, 2), row(5, 1), row(6, 3)]
    expect(ids(inTreeOrder(rows, 'id', 'parentId'))).toEqual([1, 3, 6, 5, 2, 4])
  })

  it('starts a tree where a filtered-out parent was, and keeps rows caught in a loop', () => {
    expect(ids(inTreeOrder([row(3, 1), row(6, 3), row(2, 0)], 'id', 'parentId'))).toEqual([3, 6, 2])
    expect(ids(inTreeOrder([row(1, 2), row(2, 1), row(3, 0)], 'id', 'parentId'))).toEqual([3, 1, 2])
  })
})

describe('exports of the lists that had none', () => {
  const t = useTestApp()

  it('exports the menu tree in its page order, with the ids that rebuild it', async () => {
    const res = await t.call({ method: 'POST', url: '/api/system/menu/export', token: t.admin, body: {} })
    expect(res.status, res.msg).toBe(200)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.name).toBe('Menus')
    const col = (label: string) => sheet.header.indexOf(label)
    const [id, parent, name, order] = [col('ID'), col('Parent menu'), col('Menu name'), col('Order')]
    const menus = sheet.rows.map((r) => ({ id: Number(r[id]), parentId: Number(r[parent]), name: String(r[name]), order: Number(r[order]) }))
    expect(menus).toHaveLength(Number((await t.app.services.db.selectFrom('sysMenu').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n))
    const at = new Map(menus.map((m, i) => [m.id, i]))
    for (const [i, m] of menus.entries()) {
      // Below its parent, and the siblings before it come earlier in the sort.
      if (m.parentId !== 0) expect(at.get(m.parentId)!, m.name).toBeLessThan(i)
      const before = menus.slice(0, i).filter((s) => s.parentId === m.parentId)
      for (const s of before) expect(s.order, `${s.name} before ${m.name}`).toBeLessThanOrEqual(m.order)
    }
    // The first area, then its first page, then that page's buttons.
    expect(menus.slice(0, 3).map((m) => m.name)).toEqual(['menu.dashboard', 'menu.dashboard.engagement', 'button.list'])
  })

  it('is a seeded button a role can hold: with it a user exports, without it 403', async () => {
    const seeded = await t.app.services.db.selectFrom('sysMenu').select('menuType').where('perms', '=', 'system:menu:export').execute()
    expect(seeded).toEqual([{ menuType: 'F' }])
    const exporter = await limitedUser(t, { userName: 'menuexporter', perms: ['system:menu:list', 'system:menu:export'], dataScope: '1' })
    const reader = await limitedUser(t, { userName: 'menureader', perms: ['system:menu:list'], dataScope: '1' })
    expect((await t.call({ method: 'POST', url: '/api/system/menu/export', token: exporter.token, body: {} })).status).toBe(200)
    expect((await t.call({ method: 'POST', url: '/api/system/menu/export', token: reader.token, body: {} })).status).toBe(403)
  })

  it('exports the online users of the list filters, with the list columns', async () => {
    const res = await t.call({ method: 'POST', url: '/api/monitor/online/export', token: t.admin, body: { userName: 'adm' } })
    expect(res.status, res.msg).toBe(200)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.header).toEqual(onlineSession.exported.map((f) => f.label.en_US))
    expect(sheet.header).not.toContain('Session')
    expect(sheet.rows.length).toBeGreaterThan(0)
    expect(sheet.rows.every((r) => r[0] === 'admin')).toBe(true)
    const seeded = await t.app.services.db.selectFrom('sysMenu').select('perms').where('perms', '=', 'monitor:online:export').execute()
    expect(seeded).toHaveLength(1)
    const viewer = await limitedUser(t, { userName: 'onlineviewer', perms: ['monitor:online:list'], dataScope: '1' })
    expect((await t.call({ method: 'POST', url: '/api/monitor/online/export', token: viewer.token, body: {} })).status).toBe(403)
  })

  it('exports the mail outbox, reset codes masked as in the list', async () => {
    await t.app.services.mailer.send({ to: 'rider@example.com', subject: 'Your code', body: 'Your code is 482913', secrets: ['482913'] })
    const res = await t.call({ method: 'POST', url: '/api/monitor/outbox/export', token: t.admin, body: { mailTo: 'rider' } })
    expect(res.status, res.msg).toBe(200)
    const sheet = await readWorkbook(res.raw)
    expect(sheet.rows).toHaveLength(1)
    const text = JSON.stringify(sheet.rows)
    expect(text).toContain('rider@example.com')
    expect(text).not.toContain('482913')
  })
})
