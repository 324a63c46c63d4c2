import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { allEntities, defineEntity, definedButtons, type JobInfo, registerEntities } from '@velo/shared'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Dialect, dynamicDb } from '../src/db/database'
import { generateMigration } from '../src/db/schema-gen/generate'
import { registerEntityRoutes } from '../src/platform/crud/routes'
import { createTestApp, limitedUser, type TestApp } from './harness'

// Adding a module with a transition and an action is a definition plus the generated migration: the
// module below has no route and no page code, only the handler of its action. Everything else — the
// table, the routes of its steps and actions, their permissions and menu buttons, the history, the
// job that runs its bulk action, OpenAPI — comes from the engine.

const label = (en: string, zh = en) => ({ en_US: en, zh_CN: zh })
const ticket = defineEntity({
  key: 'testTicket',
  table: 'testTicket',
  path: '/test/ticket',
  permission: 'test:ticket',
  label: label('Tickets', '工单'),
  idField: 'ticketId',
  labelField: 'title',
  defaultSort: { field: 'ticketId', order: 'asc' },
  scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
  fields: [
    { name: 'ticketId', kind: 'number', int: true, label: label('ID'), readOnly: true },
    { name: 'title', kind: 'text', label: label('Title', '标题'), required: true, max: 100, search: 'like' },
    {
      name: 'state',
      kind: 'enum',
      label: label('State', '状态'),
      default: 'open',
      search: 'eq',
      options: [
        { value: 'open', label: label('Open', '待处理') },
        { value: 'approved', label: label('Approved', '已批准') },
        { value: 'closed', label: label('Closed', '已关闭') },
      ],
    },
    { name: 'stamped', kind: 'number', int: true, label: label('Stamped'), readOnly: true, default: 0 },
    { name: 'dueTime', kind: 'datetime', label: label('Due'), readOnly: true },
  ],
  transitions: {
    field: 'state',
    steps: [
      { name: 'approve', label: label('Approve', '批准'), from: ['open'], to: 'approved', input: [{ name: 'note', kind: 'text', label: label('Note'), max: 50, required: true }] },
      { name: 'close', label: label('Close', '关闭'), from: ['approved'], to: 'closed' },
    ],
    deadline: { field: 'dueTime', due: { open: { days: 1 } } },
  },
  actions: [
    { name: 'stamp', label: label('Stamp', '盖章'), on: 'selection', mode: 'job' },
    { name: 'ping', label: label('Ping'), on: 'row', when: { field: 'state', is: ['approved'] } },
  ],
})
registerEntities(ticket)

let t: TestApp
let admin: string
const scratch: string[] = []

/** The migration `npm run migration:new` writes for the new definition, in a scratch copy of the migrations' snapshot. */
function generateTicketMigration() {
  const migrations = fileURLToPath(new URL('../src/db/migrations/', import.meta.url))
  const root = fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url))
  mkdirSync(root, { recursive: true })
  const dir = mkdtempSync(join(root, 'velo-engine2-'))
  scratch.push(dir)
  copyFileSync(join(migrations, 'snapshot.json'), join(dir, 'snapshot.json'))
  copyFileSync(fileURLToPath(new URL('../src/db/migrate.ts', import.meta.url)), join(dir, 'migrate.ts'))
  const result = generateMigration({
    name: 'test-tickets',
    entities: allEntities(),
    migrationsDir: dir,
    migrateFile: join(dir, 'migrate.ts'),
    foundationImport: join(migrations, '2026-11-20T00-foundation'),
    databaseImport: fileURLToPath(new URL('../src/db/database', import.meta.url)),
  })
  expect(result.changes.map((c) => c.table)).toEqual(['test_ticket'])
  return result.migration!
}

beforeAll(async () => {
  const migration = generateTicketMigration()
  const mod = (await import(migration.file)) as Record<string, (d: Dialect) => { up: (db: Kysely<unknown>) => Promise<void> }>
  t = await createTestApp({}, {
    modules: async (api, services) => {
      await Object.values(mod)[0]!(services.dialect).up(services.db.withoutPlugins() as unknown as Kysely<unknown>)
      registerEntityRoutes(api, services, ticket, {
        actions: {
          // A bulk action as a job: one row at a time, reporting progress, stopping when cancelled.
          stamp: async ({ tx, rows, progress, signal }) => {
            for (const [i, row] of rows.entries()) {
              signal.throwIfAborted()
              await dynamicDb(tx).updateTable('testTicket').set({ stamped: Number(row.stamped) + 1 }).where('ticketId', '=', row.ticketId).execute()
              progress(i + 1, rows.length)
            }
            return { stamped: rows.length }
          },
          ping: async ({ rows }) => ({ pong: rows[0]!.title }),
        },
      })
    },
  })
  admin = await t.login()
  // The page's buttons, as the seed makes them for a catalogue page: from the definition.
  const now = new Date().toISOString()
  for (const [perms, menuName] of definedButtons(ticket)) {
    await t.app.services.db
      .insertInto('sysMenu')
      .values({ menuName, parentId: 0, orderNum: 1, path: '', component: null, query: null, isFrame: '1', isCache: '0', noClose: '0', menuType: 'F', visible: '0', status: '0', perms, icon: '#', createBy: 'test', createTime: now, updateBy: '', updateTime: null, remark: '' })
      .execute()
  }
})

afterAll(async () => {
  await t?.close()
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true })
})

async function newTicket(title: string) {
  const res = await t.call({ method: 'POST', url: '/api/test/ticket', token: admin, body: { title } })
  expect(res.status, res.msg).toBe(200)
  return res.data as { ticketId: number; state: string; dueTime: string | null }
}

async function finished(jobId: number) {
  for (let i = 0; i < 500; i++) {
    const job = (await t.call<JobInfo>({ url: `/api/monitor/job/${jobId}`, token: admin })).data
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) return job
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`job ${jobId} did not finish`)
}

describe('a module that is a definition plus its generated migration', () => {
  it('derives its buttons from its operations, steps and actions', () => {
    expect(definedButtons(ticket).map(([perms]) => perms)).toEqual([
      'test:ticket:list',
      'test:ticket:query',
      'test:ticket:add',
      'test:ticket:edit',
      'test:ticket:remove',
      'test:ticket:export',
      'test:ticket:import',
      'test:ticket:approve',
      'test:ticket:close',
      'test:ticket:stamp',
      'test:ticket:ping',
    ])
  })

  it('moves through its steps, with history and a due time, and refuses the rest', async () => {
    const a = await newTicket('Brake squeaks')
    expect(a.state).toBe('open')
    expect(new Date(a.dueTime!).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000)
    expect((await t.call({ method: 'POST', url: `/api/test/ticket/${a.ticketId}/close`, token: admin, body: {} })).status).toBe(409)
    expect((await t.call({ method: 'POST', url: `/api/test/ticket/${a.ticketId}/approve`, token: admin, body: {} })).status).toBe(400)
    const approved = await t.call({ method: 'POST', url: `/api/test/ticket/${a.ticketId}/approve`, token: admin, body: { note: 'ok' } })
    expect(approved.data).toMatchObject({ state: 'approved', dueTime: null })
    const history = await t.call({ url: `/api/test/ticket/${a.ticketId}/history`, token: admin })
    expect(history.data).toMatchObject([{ step: 'approve', fromState: 'open', toState: 'approved', input: { note: 'ok' }, userName: 'admin' }])
    const counts = await t.call({ method: 'POST', url: '/api/test/ticket/counts', token: admin, body: { title: 'brake' } })
    expect(counts.data).toEqual({ open: 0, approved: 1, closed: 0 })
  })

  it('answers a row action only in the states it names', async () => {
    const a = await newTicket('Loose bell')
    const ping = () => t.call({ method: 'POST', url: `/api/test/ticket/${a.ticketId}/action/ping`, token: admin, body: {} })
    expect((await ping()).status).toBe(409)
    await t.call({ method: 'POST', url: `/api/test/ticket/${a.ticketId}/approve`, token: admin, body: { note: 'fine' } })
    expect((await ping()).data).toEqual({ pong: 'Loose bell' })
  })

  it('runs its bulk action as a job with progress, for the selected rows in the caller’s scope', async () => {
    const rows = [await newTicket('One'), await newTicket('Two'), await newTicket('Three')]
    const started = await t.call<{ jobId: number }>({ method: 'POST', url: '/api/test/ticket/action/stamp', token: admin, body: { ids: rows.map((r) => r.ticketId) } })
    expect(started.status, started.msg).toBe(200)
    const job = await finished(started.data.jobId)
    expect(job).toMatchObject({ state: 'succeeded', done: 3, total: 3, result: { stamped: 3 } })
    for (const r of rows) expect((await t.call<{ stamped: number }>({ url: `/api/test/ticket/${r.ticketId}`, token: admin })).data.stamped).toBe(1)
    // A missing row is refused before anything is queued.
    expect((await t.call({ method: 'POST', url: '/api/test/ticket/action/stamp', token: admin, body: { ids: [999_999] } })).status).toBe(404)
  })

  it('keeps each step and action to its permission', async () => {
    const a = await newTicket('Flat tyre')
    const clerk = await limitedUser(t, { userName: 'ticketclerk', dataScope: '1', perms: ['test:ticket:list', 'test:ticket:query', 'test:ticket:close'] })
    expect((await t.call({ method: 'POST', url: `/api/test/ticket/${a.ticketId}/approve`, token: clerk.token, body: { note: 'x' } })).status).toBe(403)
    expect((await t.call({ method: 'POST', url: '/api/test/ticket/action/stamp', token: clerk.token, body: { ids: [a.ticketId] } })).status).toBe(403)
    expect((await t.call({ url: `/api/test/ticket/${a.ticketId}/history`, token: clerk.token })).status).toBe(200)
  })

  it('documents its routes in OpenAPI', async () => {
    const doc = (await t.app.inject({ url: '/api/docs/json', headers: { authorization: admin } })).json() as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/test/ticket/{id}/approve', '/api/test/ticket/{id}/close', '/api/test/ticket/{id}/history', '/api/test/ticket/counts', '/api/test/ticket/action/stamp', '/api/test/ticket/{id}/action/ping']),
    )
  })
})
