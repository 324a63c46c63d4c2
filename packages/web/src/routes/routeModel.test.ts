import { describe, expect, it } from 'vitest'
import type { RouteNode } from '@velo/shared'
import { buildRouteTree, collectRedirects, emptyMeta, flattenPages, joinPath, pinnedPages } from './routeModel'
import { buildMenu, ancestorFolderKeys, folderKey } from './menuModel'
import { buildRouteTable, matchPage } from './routeTable'
import { pageKeyCandidates } from './pageRegistry'
import { searchEntries } from './menuSearch'
import { createMenuSearcher } from './menuSearcher'

const node = (path: string, component: string, title: string, extra: Partial<RouteNode> = {}): RouteNode => ({
  name: title,
  path,
  component,
  hidden: false,
  meta: emptyMeta(title),
  ...extra,
})

const serverRoutes: RouteNode[] = [
  node('/system', 'Layout', 'menu.system', {
    redirect: 'noRedirect',
    alwaysShow: true,
    children: [
      node('user', 'system/user/index', 'menu.system.user'),
      node('dict', 'system/dict/index', 'menu.system.dict'),
      node('dict-data/:dictId', 'system/dict/data', 'menu.system.dictData', { hidden: true, meta: { ...emptyMeta('menu.system.dictData'), activeMenu: '/system/dict' } }),
      node('log', 'ParentView', 'menu.monitor', {
        redirect: 'noRedirect',
        alwaysShow: true,
        children: [node('login', 'monitor/logininfor/index', 'menu.monitor.loginLog')],
      }),
    ],
  }),
  node('/docs', 'Layout', 'Docs', { children: [node('https://example.com/docs', '', 'External docs')] }),
  node('/hidden', 'Layout', 'Hidden', { hidden: true, children: [node('x', 'x/index', 'X')] }),
]

describe('joinPath', () => {
  it('joins relative children and keeps absolute and external paths', () => {
    expect(joinPath('/system', 'dict')).toBe('/system/dict')
    expect(joinPath('/', 'dashboard')).toBe('/dashboard')
    expect(joinPath('/system', '/abs')).toBe('/abs')
    expect(joinPath('/system', 'https://x.org')).toBe('https://x.org')
    expect(joinPath('/system', '')).toBe('/system')
  })
})

describe('buildRouteTree', () => {
  const tree = buildRouteTree(serverRoutes)

  it('classifies Layout, ParentView, pages and links and resolves full paths', () => {
    const system = tree[0]!
    expect(system.kind).toBe('layout')
    expect(system.children.map((c) => [c.path, c.kind])).toEqual([
      ['/system/user', 'page'],
      ['/system/dict', 'page'],
      ['/system/dict-data/:dictId', 'page'],
      ['/system/log', 'parent'],
    ])
    expect(system.children[3]!.children[0]!.path).toBe('/system/log/login')
    expect(tree[1]!.children[0]!.kind).toBe('link')
  })

  it('flattens pages with their ancestor trail', () => {
    const pages = flattenPages(tree)
    const login = pages.find((p) => p.path === '/system/log/login')!
    expect(login.component).toBe('monitor/logininfor/index')
    expect(login.trail.map((r) => r.meta.title)).toEqual(['menu.system', 'menu.monitor', 'menu.monitor.loginLog'])
  })

  it('collects real folder redirects only', () => {
    const redirects = collectRedirects(buildRouteTree([node('/', 'Layout', '', { redirect: '/dashboard', children: [] }), ...serverRoutes]))
    expect([...redirects]).toEqual([['/', '/dashboard']])
  })

  it('fills missing meta fields', () => {
    const [only] = buildRouteTree([{ name: 'a', path: '/a', component: 'a/index', hidden: false, meta: { title: 'A' } as never }])
    expect(only!.meta).toMatchObject({ noCache: false, noClose: false, breadcrumb: true, icon: null })
  })
})

describe('buildMenu', () => {
  const menu = buildMenu(buildRouteTree(serverRoutes))

  it('skips hidden routes and keeps alwaysShow folders as submenus', () => {
    expect(menu.map((m) => m.key)).toEqual([folderKey('/system'), 'https://example.com/docs'])
    expect(menu[0]!.children!.map((c) => c.key)).toEqual(['/system/user', '/system/dict', folderKey('/system/log')])
  })

  it('shows the only visible child in place of its folder', () => {
    expect(menu[1]).toMatchObject({ title: 'External docs', external: true })
    const single = buildMenu(buildRouteTree([node('/log', 'Layout', 'Log', { children: [node('a', 'a/index', 'A')] })]))
    expect(single).toEqual([{ key: '/log/a', path: '/log/a', title: 'A', icon: null, external: false }])
  })

  it('finds the folders to open around an item', () => {
    expect(ancestorFolderKeys(menu, '/system/log/login')).toEqual([folderKey('/system'), folderKey('/system/log')])
    expect(ancestorFolderKeys(menu, '/nowhere')).toEqual([])
  })
})

describe('route table', () => {
  const table = buildRouteTable(serverRoutes)

  it('puts the fixed routes first: dashboard pinned, profile hidden', () => {
    expect(table.menu[0]).toMatchObject({ key: '/dashboard', title: 'route.dashboard' })
    expect(pinnedPages(table.pages).map((p) => p.path)).toEqual(['/dashboard'])
    expect(table.redirects.get('/')).toBe('/dashboard')
    expect(matchPage(table.pages, '/user/profile')?.page.component).toBe('user/profile')
    expect(matchPage(table.pages, '/ota/bmspart/firmware')?.page.component).toBe('ota/bmspart/firmware/index')
  })

  it('matches params and prefers static paths', () => {
    const match = matchPage(table.pages, '/system/dict-data/7')
    expect(match?.page.path).toBe('/system/dict-data/:dictId')
    expect(match?.params.dictId).toBe('7')
    expect(matchPage(table.pages, '/system/nothing')).toBeNull()
  })
})

describe('pageKeyCandidates', () => {
  it('accepts both index and file forms', () => {
    expect(pageKeyCandidates('system/dict/index')).toEqual(['../pages/system/dict/index.tsx', '../pages/system/dict.tsx'])
    expect(pageKeyCandidates('/user/profile')).toEqual(['../pages/user/profile/index.tsx', '../pages/user/profile.tsx'])
  })

  it("serves IoT › IoT upgrade with the OTA area's page for the IoT part", () => {
    expect(pageKeyCandidates('iot/upgrade/index')).toEqual(['../pages/ota/iotpart/upgrade/index.tsx', '../pages/ota/iotpart/upgrade.tsx'])
  })
})

describe('menu search', () => {
  const tree = buildRouteTable(serverRoutes).tree
  const entries = searchEntries(tree, (t) => t.replace(/^menu\./, ''))

  it('lists visible pages with their ancestors, not grouping folders or hidden pages', () => {
    const paths = entries.map((e) => e.path)
    expect(paths).toContain('/system/dict')
    expect(paths).toContain('/dashboard')
    expect(paths).not.toContain('/system')
    expect(paths).not.toContain('/system/dict-data/:dictId')
    expect(paths).not.toContain('/user/profile')
    expect(entries.find((e) => e.path === '/system/log/login')?.title).toEqual(['system', 'monitor', 'monitor.loginLog'])
  })

  it('matches fuzzily on titles and paths and cuts long patterns', () => {
    const search = createMenuSearcher(entries)
    expect(search('system.dcit')[0]?.path).toBe('/system/dict')
    expect(search('/system/user')[0]?.path).toBe('/system/user')
    expect(search('   ')).toEqual([])
    expect(() => search('x'.repeat(100))).not.toThrow()
  })
})
