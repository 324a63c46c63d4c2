import type { GeneratedModule, Paged } from '@velo/shared'
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Dialect } from '../src/db/database'
import type { TestApp } from './harness'

// A generated module as the code generator writes it (Tool system › Code generation), put in place
// of the empty lists: its definition is served, its page and buttons are seeded under its area, and
// its migration runs after the listed ones.

vi.mock('../../shared/src/entities/generated/index', async () => {
  const { defineEntity } = await import('../../shared/src/entity/define')
  const label = (en: string) => ({ en_US: en, zh_CN: en })
  const warrantyClaim: GeneratedModule = {
    menu: { area: 'service', icon: 'table' },
    entity: defineEntity({
      key: 'warrantyClaim',
      table: 'crmWarrantyClaim',
      path: '/service/warrantyClaim',
      permission: 'service:warrantyClaim',
      label: { en_US: 'Warranty claims', zh_CN: '保修申请' },
      idField: 'claimId',
      defaultSort: { field: 'claimId', order: 'desc' },
      scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
      fields: [
        { name: 'claimId', kind: 'number', int: true, label: label('ID'), readOnly: true },
        { name: 'title', kind: 'text', max: 100, label: label('Title'), required: true, search: 'like' },
        { name: 'amount', kind: 'money', label: label('Amount') },
      ],
    }),
  }
  return { GENERATED_MODULES: [warrantyClaim] }
})

vi.mock('../src/db/migrations/generated/index', async () => {
  const { audited, id } = await import('../src/db/migrations/2026-11-20T00-foundation')
  return {
    generatedMigrations: (dialect: Dialect) => ({
      '2099-01-01T00-warranty-claim': {
        async up(db: Kysely<unknown>) {
          await audited(
            id(db.schema.createTable('crm_warranty_claim').ifNotExists(), dialect, 'claim_id')
              .addColumn('title', 'varchar(100)', (c) => c.notNull().defaultTo(''))
              .addColumn('amount', 'decimal(12, 2)'),
            dialect,
          ).execute()
        },
      },
    }),
  }
})

const { createTestApp } = await import('./harness')

let t: TestApp
let admin: string
beforeAll(async () => {
  t = await createTestApp()
  admin = await t.login()
})
afterAll(() => t?.close())

describe('a generated module', () => {
  it('keeps its migration in the generated modules’ own migration table, not the product’s', async () => {
    const db = t.app.services.db.withoutPlugins()
    const generated = await sql<{ name: string }>`select name from kysely_migration_generated`.execute(db)
    expect(generated.rows.map((r) => r.name)).toEqual(['2099-01-01T00-warranty-claim'])
    const product = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)
    expect(product.rows.map((r) => r.name)).not.toContain('2099-01-01T00-warranty-claim')
  })

  it('is seeded as a page of its area with its buttons', async () => {
    const db = t.app.services.db
    const area = await db.selectFrom('sysMenu').select('menuId').where('menuName', '=', 'menu.service').where('parentId', '=', 0).executeTakeFirstOrThrow()
    const page = await db.selectFrom('sysMenu').selectAll().where('component', '=', 'service/warrantyClaim/index').executeTakeFirstOrThrow()
    expect(page).toMatchObject({ parentId: area.menuId, menuName: 'menu.service.warrantyClaim', path: 'warrantyClaim', menuType: 'C', perms: 'service:warrantyClaim:list', icon: 'table' })
    const buttons = await db.selectFrom('sysMenu').select('perms').where('parentId', '=', page.menuId).orderBy('orderNum').execute()
    expect(buttons.map((b) => b.perms)).toEqual(['list', 'query', 'add', 'edit', 'remove', 'export', 'import'].map((a) => `service:warrantyClaim:${a}`))
  })

  it('is served by the engine', async () => {
    const added = await t.call({ method: 'POST', url: '/api/service/warrantyClaim', token: admin, body: { title: 'Cracked frame', amount: 12.5 } })
    expect(added.code).toBe(200)
    const list = await t.call<Paged<{ title: string }>>({ method: 'POST', url: '/api/service/warrantyClaim/list', token: admin, body: {} })
    expect(list.code).toBe(200)
    expect(list.data.rows.map((r: { title: string }) => r.title)).toEqual(['Cracked frame'])
  })
})
