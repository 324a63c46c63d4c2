import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MENU_CATALOGUE } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
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
})
