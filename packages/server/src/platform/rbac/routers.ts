import type { RouteNode } from '@velo/shared'
import type { Db } from '../../db/database'
import type { Menu } from '../../db/schema'
import type { AuthContext } from './auth-context'

const isExternal = (path: string) => /^https?:\/\//.test(path)

/** The enabled directory and page menus this user may see (buttons are permissions, not routes). */
export async function visibleMenus(db: Db, auth: AuthContext): Promise<Menu[]> {
  let query = db
    .selectFrom('sysMenu as m')
    .selectAll('m')
    .where('m.menuType', 'in', ['M', 'C'])
    .where('m.status', '=', '0')
    .orderBy('m.parentId')
    .orderBy('m.orderNum')
    .orderBy('m.menuId')
  if (!auth.isAdmin) {
    const roleIds = auth.roles.map((r) => r.roleId)
    if (roleIds.length === 0) return []
    query = query.where('m.menuId', 'in', db.selectFrom('sysRoleMenu').select('menuId').where('roleId', 'in', roleIds))
  }
  return query.execute()
}

/** RuoYi's route tree: top directories wrap their pages in 'Layout', nested ones in 'ParentView'. */
export function buildRouteTree(menus: Menu[]): RouteNode[] {
  const byParent = new Map<number, Menu[]>()
  for (const m of menus) byParent.set(m.parentId, [...(byParent.get(m.parentId) ?? []), m])

  const build = (menu: Menu, topLevel: boolean): RouteNode => {
    const children = (byParent.get(menu.menuId) ?? []).map((c) => build(c, false))
    const external = menu.isFrame === '0' || isExternal(menu.path)
    const path = topLevel && !external && !menu.path.startsWith('/') ? `/${menu.path}` : menu.path
    const node: RouteNode = {
      name: routeName(menu),
      path,
      hidden: menu.visible === '1',
      component: menu.menuType === 'M' ? (topLevel ? 'Layout' : 'ParentView') : external ? 'InnerLink' : (menu.component ?? 'ParentView'),
      meta: {
        title: menu.menuName,
        icon: menu.icon === '#' ? null : menu.icon,
        noClose: menu.noClose === '1',
        noCache: menu.isCache === '1',
        activeMenu: null,
        breadcrumb: true,
        link: external ? menu.path : null,
      },
    }
    if (menu.menuType === 'M') {
      node.redirect = 'noRedirect'
      node.alwaysShow = true
      node.children = children
    } else if (topLevel) {
      // A page placed at the top still needs the shell around it.
      return {
        name: `${node.name}Root`,
        path: '/',
        hidden: node.hidden,
        component: 'Layout',
        meta: { ...node.meta, title: '', breadcrumb: false },
        children: [{ ...node, path: menu.path.replace(/^\//, '') }],
      }
    }
    return node
  }
  // Orphans (a parent hidden from this user) are dropped rather than promoted.
  return menus.filter((m) => m.parentId === 0).map((m) => build(m, true))
}

function routeName(menu: Menu): string {
  const base = menu.path.replace(/^https?:\/\//, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))
  return `${base.charAt(0).toUpperCase()}${base.slice(1)}${menu.menuId}`
}
