import type { RouteMeta, RouteNode } from '@velo/shared'
import { emptyMeta } from './routeModel'

// SPEC §2 fixed routes, written in the server's RouteNode shape so they go through the same
// conversion as the routes from GET /getRouters. /redirect/* and the catch-all are handled by the
// page host because they are behaviour, not pages.

const meta = (title: string, extra: Partial<RouteMeta> = {}): RouteMeta => ({ ...emptyMeta(title), ...extra })

const page = (path: string, component: string, title: string, extra: Partial<RouteMeta> = {}): RouteNode => ({
  name: component.replace(/\W+(\w)/g, (_, c: string) => c.toUpperCase()),
  path,
  component,
  hidden: true,
  meta: meta(title, extra),
})

const hiddenFolder = (path: string, component: 'Layout' | 'ParentView', title: string, children: RouteNode[]): RouteNode => ({
  name: '',
  path,
  component,
  hidden: true,
  redirect: 'noRedirect',
  meta: meta(title),
  children,
})

const otaPart = (part: string, screens: string[]): RouteNode =>
  hiddenFolder(
    part,
    'ParentView',
    `route.ota.${part}`,
    screens.map((screen) => page(screen, `ota/${part}/${screen}/index`, `route.ota.${screen}`)),
  )

export const DASHBOARD_PATH = '/dashboard'

export const fixedRoutes: RouteNode[] = [
  {
    name: '',
    path: '/',
    component: 'Layout',
    hidden: false,
    redirect: DASHBOARD_PATH,
    meta: meta(''),
    children: [
      {
        ...page('dashboard', 'dashboard/index', 'route.dashboard', { icon: 'dashboard', noClose: true, noCache: true }),
        name: 'Dashboard',
        hidden: false,
      },
    ],
  },
  hiddenFolder('/user', 'Layout', '', [
    { ...page('profile', 'user/profile', 'route.profile', { icon: 'user' }), name: 'Profile' },
  ]),
  hiddenFolder('/ota', 'Layout', 'route.ota', [
    otaPart('iotpart', ['supplier', 'product', 'firmware', 'upgrade']),
    otaPart('displaypart', ['supplier', 'product', 'firmware']),
    otaPart('bmspart', ['supplier', 'product', 'firmware']),
    otaPart('ecupart', ['supplier', 'product', 'firmware']),
  ]),
  hiddenFolder('/tool/gen', 'Layout', 'menu.tool.gen', [page('edit', 'tool/gen/edit', 'route.genEdit')]),
  page('/401', 'error/401', 'route.401'),
  page('/404', 'error/404', 'route.404'),
]
