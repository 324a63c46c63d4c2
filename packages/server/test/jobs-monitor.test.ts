import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { RouteNode, UserInfo } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import type { Db } from '../src/db/database'
import { SEED_VERSION } from '../src/seed'
import { defineJobKind } from '../src/platform/jobs'
import { loadAuthContext } from '../src/platform/rbac/auth-context'
import { ADMIN_PASSWORD, freshDatabase, idOf, limitedUser, useTestApp } from './harness'
import { type JobStreamEvent, openStream } from './iot-helpers'

// Monitoring › Jobs: the seeded page and its Cancel job button (on a fresh database and on one seeded
// before the page existed), what the admin gets of them, and the stream of everyone's jobs that
// only a holder of monitor:job:list receives.

defineJobKind<{ steps: number; stepMs: number }>({
  kind: 'test.monitorSteps',
  title: (p) => `Monitor ${p.steps} steps`,
  run: async (ctx) => {
    ctx.progress(0, ctx.params.steps)
    for (let i = 1; i <= ctx.params.steps; i++) {
      await sleep(ctx.params.stepMs, undefined, { signal: ctx.signal })
      ctx.progress(i)
    }
    return { steps: ctx.params.steps }
  },
})

/** The Jobs page row and the buttons under it. */
async function jobsMenu(db: Db) {
  const page = await db.selectFrom('sysMenu').selectAll().where('component', '=', 'monitor/job/index').execute()
  const buttons = page.length ? await db.selectFrom('sysMenu').select(['menuName', 'perms', 'menuType']).where('parentId', '=', page[0]!.menuId).orderBy('orderNum').execute() : []
  return { page, buttons }
}

/** Checks what the seed gives Monitoring › Jobs, on any database. */
async function expectJobsMenu(db: Db) {
  const { page, buttons } = await jobsMenu(db)
  expect(page).toHaveLength(1)
  const monitor = await db.selectFrom('sysMenu').select('menuId').where('menuName', '=', 'menu.monitor').where('parentId', '=', 0).executeTakeFirstOrThrow()
  expect(page[0]).toMatchObject({ menuName: 'menu.monitor.job', parentId: monitor.menuId, path: 'job', menuType: 'C', perms: 'monitor:job:list', visible: '0', status: '0' })
  // A list nobody adds to, modifies, deletes or exports: its one button cancels.
  expect(buttons).toEqual([{ menuName: 'button.cancelJob', perms: 'monitor:job:cancel', menuType: 'F' }])
  const siblings = (await db.selectFrom('sysMenu').select(['menuName', 'orderNum']).where('parentId', '=', monitor.menuId).orderBy('orderNum').execute()).map((m) => m.menuName)
  // After the pages that were there before it (later pages, such as Data and backups, may follow).
  expect(siblings.indexOf('menu.monitor.job')).toBeGreaterThan(siblings.indexOf('menu.monitor.outbox'))
}

describe('Monitoring › Jobs in the seeded menu', () => {
  const t = useTestApp()

  it('is seeded under Monitoring with monitor:job:list and a Cancel job button, and the admin has both', async () => {
    await expectJobsMenu(t.app.services.db)
    const routes = (await t.call<RouteNode[]>({ url: '/api/getRouters', token: t.admin })).data
    const monitor = routes.find((r: { path: string }) => r.path === '/monitor')
    expect(monitor!.children!.find((c: { path: string }) => c.path === 'job')).toMatchObject({
      path: 'job',
      component: 'monitor/job/index',
      hidden: false,
      meta: { title: 'menu.monitor.job', icon: 'calendar' },
    })
    // The role form's tree names the page and its button in the reader's language.
    const tree = JSON.stringify((await t.call({ url: '/api/system/menu/treeselect', token: t.admin })).data)
    expect(tree).toContain('"label":"Jobs"')
    expect(tree).toContain('"label":"Cancel job"')
    const zh = JSON.stringify((await t.call({ url: '/api/system/menu/treeselect', token: t.admin, lang: 'zh_CN' })).data)
    expect(zh).toContain('"label":"后台任务"')
    expect(zh).toContain('"label":"取消任务"')
    // The routes check exactly these permissions: the admin holds them…
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token: t.admin })).data.permissions).toEqual(['*:*:*'])
    const list = await t.call({ method: 'POST', url: '/api/monitor/job/list', token: t.admin, body: { pageNum: 1, pageSize: 10 } })
    expect(list.code, list.msg).toBe(200)
    const stream = await openStream(t.app, '/api/monitor/job/stream/all', t.admin)
    expect(stream.status).toBe(200)
    await stream.close()
    // …and a role granted the seeded rows holds what the routes ask for.
    const granted = await limitedUser(t, { userName: 'jobsmenu', perms: ['monitor:job:list', 'monitor:job:cancel'], dataScope: '5' })
    const perms = (await t.call<UserInfo>({ url: '/api/getUserInfo', token: granted.token })).data.permissions
    expect(perms).toEqual(expect.arrayContaining(['monitor:job:list', 'monitor:job:cancel']))
  })
})

describe('a database seeded before Monitoring › Jobs existed', () => {
  it('gets the page and its button at its next start (seed version 5), once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-seed-jobs-'))
    const database = await freshDatabase(dir)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), LOG_LEVEL: 'silent', ADMIN_PASSWORD, CAPTCHA_ENABLED: 'false' }
    try {
      const first = await buildApp(loadConfig(env), { logger: false })
      const db = first.services.db
      const menus = (await db.selectFrom('sysMenu').select('menuId').execute()).length
      // Back to what seed version 4 left: no Jobs page, no Cancel job button.
      const { page } = await jobsMenu(db)
      await db.deleteFrom('sysMenu').where('parentId', '=', page[0]!.menuId).execute()
      await db.deleteFrom('sysMenu').where('menuId', '=', page[0]!.menuId).execute()
      await db.updateTable('sysConfig').set({ configValue: '4' }).where('configKey', '=', 'sys.seed.version').execute()
      await first.close()

      const second = await buildApp(loadConfig(env), { logger: false })
      const db2 = second.services.db
      expect(second.seedResult).toMatchObject({ seeded: true, generatedAdminPassword: undefined })
      expect((await db2.selectFrom('sysConfig').select('configValue').where('configKey', '=', 'sys.seed.version').executeTakeFirstOrThrow()).configValue).toBe(String(SEED_VERSION))
      await expectJobsMenu(db2)
      expect((await db2.selectFrom('sysMenu').select('menuId').execute()).length).toBe(menus)
      // The admin sees it in the menu.
      const login = await second.inject({ method: 'POST', url: '/api/login', payload: { username: 'admin', password: ADMIN_PASSWORD } })
      const token = login.json().data.token as string
      const routes = (await second.inject({ url: '/api/getRouters', headers: { authorization: token } })).json().data
      const monitor = routes.find((r: { path: string }) => r.path === '/monitor')
      expect(monitor.children.map((c: { path: string }) => c.path)).toContain('job')
      await second.close()

      // Applied once: a later start adds nothing.
      const third = await buildApp(loadConfig(env), { logger: false })
      expect(third.seedResult).toEqual({ seeded: false })
      expect((await third.services.db.selectFrom('sysMenu').select('menuId').execute()).length).toBe(menus)
      await third.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps a page an admin already has and adds only the missing button', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-seed-jobs-'))
    const database = await freshDatabase(dir)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), LOG_LEVEL: 'silent', ADMIN_PASSWORD, CAPTCHA_ENABLED: 'false' }
    try {
      const first = await buildApp(loadConfig(env), { logger: false })
      const db = first.services.db
      const { page } = await jobsMenu(db)
      await db.deleteFrom('sysMenu').where('parentId', '=', page[0]!.menuId).execute()
      await db.updateTable('sysMenu').set({ orderNum: 42, icon: 'monitor' }).where('menuId', '=', page[0]!.menuId).execute()
      await db.updateTable('sysConfig').set({ configValue: '4' }).where('configKey', '=', 'sys.seed.version').execute()
      await first.close()

      const second = await buildApp(loadConfig(env), { logger: false })
      const after = await jobsMenu(second.services.db)
      expect(after.page).toHaveLength(1)
      expect(after.page[0]).toMatchObject({ menuId: page[0]!.menuId, orderNum: 42, icon: 'monitor' })
      expect(after.buttons).toEqual([{ menuName: 'button.cancelJob', perms: 'monitor:job:cancel', menuType: 'F' }])
      await second.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('GET /monitor/job/stream/all', () => {
  const t = useTestApp()

  it("tells a holder of monitor:job:list every user's jobs; a plain user is refused it and hears only their own", async () => {
    const db = t.app.services.db
    const starter = await limitedUser(t, { userName: 'jobstarter', perms: [], dataScope: '5' })
    const plain = await limitedUser(t, { userName: 'jobplain', perms: [], dataScope: '5' })
    const watcher = await limitedUser(t, { userName: 'jobwatcher2', perms: ['monitor:job:list'], dataScope: '5' })

    const refused = await openStream(t.app, '/api/monitor/job/stream/all', plain.token)
    expect(refused.status).toBe(403)
    await refused.close()

    const all = await openStream<JobStreamEvent>(t.app, '/api/monitor/job/stream/all', watcher.token)
    expect(all.status).toBe(200)
    expect(all.contentType).toContain('text/event-stream')
    // The watcher's own stream (the top bar's) and the plain user's stay with their own jobs.
    const watcherOwn = await openStream(t.app, '/api/monitor/job/stream', watcher.token)
    const plainOwn = await openStream(t.app, '/api/monitor/job/stream', plain.token)

    const row = await t.app.services.jobs.enqueue('test.monitorSteps', { steps: 3, stepMs: 40 }, (await loadAuthContext(db, starter.userId))!)
    const done = await all.next((e) => e.event === 'job' && e.data.jobId === row.jobId && e.data.state === 'succeeded', "the other user's job finishing")
    expect(done.data).toMatchObject({ title: 'Monitor 3 steps', createBy: 'jobstarter', createById: starter.userId, done: 3, total: 3 })
    expect(all.events.filter((e) => e.data.jobId === row.jobId).map((e) => e.data.state)[0]).toBe('queued')
    await sleep(100)
    expect(watcherOwn.events.filter((e) => e.event === 'job')).toEqual([])
    expect(plainOwn.events.filter((e) => e.event === 'job')).toEqual([])
    await Promise.all([watcherOwn.close(), plainOwn.close()])

    // Losing the right ends the stream at its next check.
    const roleId = await idOf(t, 'role', 'rjobwatcher2')
    await db.deleteFrom('sysRoleMenu').where('roleId', '=', roleId).execute()
    const ended = await Promise.race([all.ended.then(() => true), sleep(8000).then(() => false)])
    expect(ended, 'the stream ended').toBe(true)
  })
})
