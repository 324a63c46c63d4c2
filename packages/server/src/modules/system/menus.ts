import { menuTitle, systemEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { Transaction } from 'kysely'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { badRequest, conflict } from '../../platform/errors'
import { languageOf } from '../../platform/http'
import { splitPermissions } from '../../platform/rbac/auth-context'
import { assertPermissionsGrantable, grantCheckIn, holdersOfMenus } from '../../platform/rbac/grants'
import { caller, SIGNED_IN } from '../../platform/rbac/guard'
import type { Services } from '../../platform/services'
import { envelope } from '../../platform/responses'
import { toTree, treeOptionSchema } from './access'
import type { Database } from '../../db/schema'

type Row = Record<string, unknown>
type Tx = Transaction<Database>

const BUTTON = 'F'
const fieldError = (field: string) => ({ errors: [{ field }] })

/** A menu as it will be stored: under a directory or a page, external links as http(s) addresses, routes with a path. */
async function checkMenu(tx: Tx, menu: Row, menuId?: number) {
  const parentId = Number(menu.parentId ?? 0)
  if (parentId !== 0) {
    const parent = await tx.selectFrom('sysMenu').select('menuType').where('menuId', '=', parentId).executeTakeFirst()
    if (parent?.menuType === BUTTON) throw badRequest('menu.parentIsButton', {}, fieldError('parentId'))
  }
  if (menu.menuType === BUTTON && menuId !== undefined) {
    const child = await tx.selectFrom('sysMenu').select('menuId').where('parentId', '=', menuId).executeTakeFirst()
    if (child) throw badRequest('menu.parentIsButton', {}, fieldError('menuType'))
  }
  const path = String(menu.path ?? '').trim()
  if (menu.isFrame === '0' && !/^https?:\/\/[^\s/]+/i.test(path)) throw badRequest('menu.externalPath', {}, fieldError('path'))
  if (menu.menuType !== BUTTON && !path) throw badRequest('menu.pathRequired', {}, fieldError('path'))
}

/**
 * Menus (SPEC §3): the entity's routes with the tree's shape rules and menus in use kept, plus the
 * menu tree a role editor grants from. GET /getRouters reads the table on every call, so a change
 * shows on each user's next call.
 */
export function registerMenus(app: FastifyInstance, services: Services) {
  const { db } = services
  const { stepUp } = services.identity
  // What a menu carries is granted to every role that holds it: defining it asks for a second proof,
  // and a role that may do so requires a second factor.
  stepUp.sensitiveRights.add('system:menu:add')
  stepUp.sensitiveRights.add('system:menu:edit')

  registerEntityRoutes(app, services, systemEntities.menu, {
    beforeCreate: async ({ tx, auth, values }) => {
      await checkMenu(tx, values)
      if (splitPermissions(values.perms as string | undefined).length) await stepUp.assert(auth)
      assertPermissionsGrantable(auth, splitPermissions(values.perms as string | undefined))
    },
    beforeUpdate: async ({ tx, auth, context, before, values }) => {
      await checkMenu(tx, { ...before, ...values }, Number(before.menuId))
      const grants = (values.perms !== undefined && values.perms !== before.perms) || (values.status !== undefined && values.status !== before.status)
      if (grants) await stepUp.assert(auth)
      // A permission string is defined by someone who holds it; the roles holding the menu then hold it too.
      if (values.perms !== undefined && values.perms !== before.perms) assertPermissionsGrantable(auth, splitPermissions(values.perms as string))
      await grantCheckIn.begin(context, tx, auth, { users: await holdersOfMenus(tx, [Number(before.menuId)]) })
    },
    // Switching a menu back on, or changing what it carries, changes what its roles' users hold.
    afterUpdate: async ({ tx, context }) => grantCheckIn.finish(context, tx),
    // A menu's permission or status is what its roles' holders may do, on every instance.
    afterCommit: () => services.authCache.changed({ all: true }),
    beforeDelete: async ({ tx, rows }) => {
      const ids = rows.map((r) => Number(r.menuId))
      const used = await tx.selectFrom('sysRoleMenu').select('menuId').where('menuId', 'in', ids).executeTakeFirst()
      if (used) {
        const name = String(rows.find((r) => Number(r.menuId) === Number(used.menuId))!.menuName)
        throw conflict('menu.inRoles', { nameEn: menuTitle(name, 'en_US'), nameZh: menuTitle(name, 'zh_CN') })
      }
    },
  })

  // Any signed-in user: it only offers menus the caller holds (everything for admins), to grant onwards.
  app.withTypeProvider<ZodTypeProvider>().get(
    '/system/menu/treeselect',
    {
      config: { permission: SIGNED_IN },
      schema: {
        tags: [systemEntities.menu.label.en_US],
        summary: 'The menus the caller may grant, as a tree with titles in their language',
        response: { 200: envelope(z.array(treeOptionSchema)) },
      },
    },
    async (req) => {
      const auth = caller(req)
      const lang = languageOf(req)
      let query = db.selectFrom('sysMenu').select(['menuId', 'parentId', 'menuName']).orderBy('parentId').orderBy('orderNum').orderBy('menuId')
      if (!auth.isAdmin) {
        const roleIds = auth.roles.map((r) => r.roleId)
        if (roleIds.length === 0) return []
        query = query.where('menuId', 'in', db.selectFrom('sysRoleMenu').select('menuId').where('roleId', 'in', roleIds))
      }
      return toTree(
        await query.execute(),
        (m) => Number(m.menuId),
        (m) => Number(m.parentId),
        (m) => ({ label: menuTitle(m.menuName, lang) }),
      )
    },
  )
}
