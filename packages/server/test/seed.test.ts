import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MENU_CATALOGUE } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import type { Db } from '../src/db/database'
import { SEED_VERSION } from '../src/seed'
import { verifyPassword } from '../src/platform/auth/passwords'
import { createTestApp, freshDatabase } from './harness'

describe('first start', () => {
  it('seeds menus for every area with their permissions, the roles, departments and dictionaries', async () => {
    const t = await createTestApp()
    try {
      const db = t.app.services.db
      const dirs = await db.selectFrom('sysMenu').select('menuName').where('menuType', '=', 'M').where('parentId', '=', 0).execute()
      expect(dirs.map((d) => d.menuName)).toEqual(MENU_CATALOGUE.map((a) => `menu.${a.key}`))
      const perms = (await db.selectFrom('sysMenu').select('perms').where('menuType', '=', 'F').execute()).map((r) => r.perms)
      for (const p of ['system:dict:list', 'system:dict:remove', 'system:config:export', 'iot:device:command', 'order:deviceOrder:generate']) {
        expect(perms).toContain(p)
      }
      expect((await db.selectFrom('sysRole').select('roleKey').orderBy('roleSort').execute()).map((r) => r.roleKey)).toEqual(['admin', 'common'])
      expect((await db.selectFrom('sysDept').select('deptId').execute()).length).toBeGreaterThanOrEqual(5)
      const sexes = await db.selectFrom('sysDictData').select(['dictLabel', 'dictLabelZh']).where('dictType', '=', 'sys_user_sex').orderBy('dictSort').execute()
      expect(sexes).toEqual([
        { dictLabel: 'Male', dictLabelZh: '男' },
        { dictLabel: 'Female', dictLabelZh: '女' },
        { dictLabel: 'Unknown', dictLabelZh: '未知' },
      ])
    } finally {
      await t.close()
    }
  })

  it('applies the seed once, and generates an admin password only when none is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-seed-'))
    const database = await freshDatabase(dir)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), LOG_LEVEL: 'silent' }
    try {
      const first = await buildApp(loadConfig(env), { logger: false })
      const generated = first.seedResult.generatedAdminPassword
      expect(first.seedResult.seeded).toBe(true)
      expect(generated).toMatch(/^[\x21-\x7e]{16}$/)
      const hash = (await first.services.db.selectFrom('sysUser').select('password').where('userName', '=', 'admin').executeTakeFirstOrThrow()).password
      expect(hash).toMatch(/^\$argon2id\$/)
      expect(await verifyPassword(hash, generated!)).toBe(true)
      const menus = (await first.services.db.selectFrom('sysMenu').select('menuId').execute()).length
      await first.close()

      const second = await buildApp(loadConfig({ ...env, ADMIN_PASSWORD: 'changed123' }), { logger: false })
      expect(second.seedResult).toEqual({ seeded: false })
      expect((await second.services.db.selectFrom('sysMenu').select('menuId').execute()).length).toBe(menus)
      const again = (await second.services.db.selectFrom('sysUser').select('password').where('userName', '=', 'admin').executeTakeFirstOrThrow()).password
      expect(again).toBe(hash)
      await second.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
  it('brings a database seeded by version 1 up to date on its next start, adding only what is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-seed-'))
    const database = await freshDatabase(dir)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), LOG_LEVEL: 'silent', ADMIN_PASSWORD: 'admin123!' }
    try {
      const first = await buildApp(loadConfig(env), { logger: false })
      const db = first.services.db
      const counts = async (d: typeof db) => ({
        menus: (await d.selectFrom('sysMenu').select('menuId').execute()).length,
        roles: (await d.selectFrom('sysRole').select('roleId').execute()).length,
        depts: (await d.selectFrom('sysDept').select('deptId').execute()).length,
        users: (await d.selectFrom('sysUser').select('userId').execute()).length,
      })
      const seeded = await counts(db)
      // Back to what version 1 left: no countries, i18n texts or their dictionaries, marker 1.
      await db.deleteFrom('sysCountry').where('code', '<>', 'NL').execute()
      await db.deleteFrom('sysI18n').execute()
      await db.deleteFrom('sysDictData').where('dictType', 'in', ['sys_i18n_type', 'sys_language']).execute()
      await db.deleteFrom('sysDictType').where('dictType', 'in', ['sys_i18n_type', 'sys_language']).execute()
      // …nor the IoT area of version 3.
      await db.deleteFrom('iotFunctionModel').execute()
      await db.deleteFrom('iotFunction').execute()
      await db.deleteFrom('iotModel').execute()
      await db.deleteFrom('sysConfig').where('configKey', 'like', 'iot.%').execute()
      await db.updateTable('sysConfig').set({ configValue: '1' }).where('configKey', '=', 'sys.seed.version').execute()
      // …nor the buttons of steps a definition gained later (version 4).
      await db.deleteFrom('sysMenu').where('perms', 'in', ['service:repairOrder:receive', 'service:repairOrder:evaluate']).execute()
      // …nor the members and bikes areas' dictionary and the Reply of feedback (version 6).
      await db.deleteFrom('sysDictData').where('dictType', '=', 'bike_category').execute()
      await db.deleteFrom('sysDictType').where('dictType', '=', 'bike_category').execute()
      await db.deleteFrom('sysMenu').where('perms', '=', 'member:feedback:reply').execute()
      // Something an admin added meanwhile, clashing with a seeded code.
      await db.updateTable('sysCountry').set({ nameEn: 'Holland (ours)' }).where('code', '=', 'NL').execute()
      await first.close()

      const second = await buildApp(loadConfig(env), { logger: false })
      const db2 = second.services.db
      expect(second.seedResult).toEqual({ seeded: true, generatedAdminPassword: undefined, demoRegistrationKey: expect.any(String) })
      expect((await db2.selectFrom('sysConfig').select('configValue').where('configKey', '=', 'sys.seed.version').executeTakeFirstOrThrow()).configValue).toBe(String(SEED_VERSION))
      const buttons = await db2.selectFrom('sysMenu').select(['menuName', 'perms']).where('perms', 'like', 'service:repairOrder:%').execute()
      expect(buttons.map((b) => b.perms)).toEqual(expect.arrayContaining(['service:repairOrder:receive', 'service:repairOrder:evaluate', 'service:repairOrder:review']))
      expect(buttons.find((b) => b.perms === 'service:repairOrder:receive')?.menuName).toBe('button.receive')
      expect((await db2.selectFrom('sysConfig').select('configKey').where('configKey', 'like', 'iot.%').execute()).length).toBe(12)
      expect((await db2.selectFrom('sysDictData').select('dictValue').where('dictType', '=', 'bike_category').orderBy('dictSort').execute()).map((r) => r.dictValue)).toEqual(
        ['city', 'trekking', 'cargo', 'folding', 'mountain'],
      )
      expect((await db2.selectFrom('sysMenu').select('menuName').where('perms', '=', 'member:feedback:reply').executeTakeFirstOrThrow()).menuName).toBe('button.reply')
      const demo = await db2.selectFrom('iotModel').select(['modelId', 'registrationKey']).where('productId', '=', 'VELO-4G').executeTakeFirstOrThrow()
      expect(demo.registrationKey).toBe(second.seedResult.demoRegistrationKey)
      expect((await db2.selectFrom('iotFunctionModel').select('functionId').where('modelId', '=', demo.modelId).execute()).length).toBe(6)
      expect((await db2.selectFrom('sysCountry').select('code').execute()).length).toBeGreaterThanOrEqual(30)
      expect((await db2.selectFrom('sysCountry').select('nameEn').where('code', '=', 'NL').executeTakeFirstOrThrow()).nameEn).toBe('Holland (ours)')
      expect((await db2.selectFrom('sysI18n').select('sourceKey').execute()).length).toBeGreaterThan(0)
      expect((await db2.selectFrom('sysDictData').select('dictValue').where('dictType', '=', 'sys_language').orderBy('dictSort').execute()).map((r) => r.dictValue)).toEqual(
        ['en_US', 'zh_CN', 'de_DE', 'nl_NL', 'fr_FR'],
      )
      // Version 1's data is not applied twice.
      expect(await counts(db2)).toEqual(seeded)
      await second.close()

      const third = await buildApp(loadConfig(env), { logger: false })
      expect(third.seedResult).toEqual({ seeded: false })
      await third.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
  it('seeds the starter tracking tree and the departments\' regions once; a second start adds no node', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'velo-seed-'))
    const database = await freshDatabase(dir)
    const env = { DATABASE_URL: database.url, STORAGE_DIR: join(dir, 'files'), LOG_LEVEL: 'silent', ADMIN_PASSWORD: 'admin123!' }
    const state = async (db: Db) => ({
      nodes: (await db.selectFrom('dashTrackingNode as n').leftJoin('dashTrackingNode as p', 'p.nodeId', 'n.parentId').select(['n.code', 'p.code as parent']).orderBy('n.code').execute()).map(
        (r) => `${r.parent ?? '-'} > ${r.code}`,
      ),
      regions: Object.fromEntries(
        await Promise.all(
          ['Sales Europe', 'Sales China', 'After-sales Service'].map(async (name) => [
            name,
            (
              await db
                .selectFrom('sysDeptCountry as dc')
                .innerJoin('sysDept as d', 'd.deptId', 'dc.deptId')
                .innerJoin('sysCountry as c', 'c.countryId', 'dc.countryId')
                .select('c.code')
                .where('d.deptName', '=', name)
                .orderBy('c.code')
                .execute()
            ).map((r) => r.code),
          ]),
        ),
      ),
    })
    try {
      const first = await buildApp(loadConfig(env), { logger: false })
      const db = first.services.db
      const seeded = await state(db)
      expect(seeded.nodes).toEqual(expect.arrayContaining(['- > app', 'app > app.launch', 'app > app.crash', 'ride > ride.start', 'ride > ride.finish', 'bike > bike.unlock', 'screen > screen.map']))
      expect(seeded.nodes.filter((n) => n.startsWith('- > '))).toEqual(['- > app', '- > bike', '- > ride', '- > screen'])
      const launch = await db.selectFrom('dashTrackingNode').select(['name', 'label', 'path', 'status']).where('code', '=', 'app.launch').executeTakeFirstOrThrow()
      expect(launch).toEqual({ name: 'Launch', label: expect.stringContaining('cold start'), path: '/launch', status: '0' })
      expect(seeded.regions['Sales China']).toEqual(['CN'])
      expect(seeded.regions['Sales Europe']).toEqual(['AT', 'BE', 'CH', 'DE', 'DK', 'ES', 'FR', 'GB', 'IE', 'IT', 'LU', 'NL', 'NO', 'SE'])
      expect(seeded.regions['After-sales Service']).toEqual([...seeded.regions['Sales Europe'], 'CN', 'US'].sort())
      // A node deleted meanwhile: a step run again adds back what is missing, and nothing twice.
      await db.deleteFrom('dashTrackingNode').where('code', '=', 'screen.settings').execute()
      await first.close()

      // Started again as a database seeded by version 9: only what is missing comes back.
      const again = await buildApp(loadConfig(env), { logger: false })
      const db2 = again.services.db
      expect(again.seedResult).toEqual({ seeded: false })
      await db2.updateTable('sysConfig').set({ configValue: '9' }).where('configKey', '=', 'sys.seed.version').execute()
      await again.close()
      const third = await buildApp(loadConfig(env), { logger: false })
      expect(third.seedResult.seeded).toBe(true)
      expect(await state(third.services.db)).toEqual(seeded)
      await third.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
