import { describe, expect, it } from 'vitest'
import { buildBreadcrumb, compilePath, type CrumbSource } from './breadcrumb'

const r = (path: string, title: string, extra: Partial<CrumbSource> & { breadcrumb?: boolean } = {}): CrumbSource => ({
  path,
  name: extra.name ?? title,
  redirect: extra.redirect,
  meta: { title, breadcrumb: extra.breadcrumb ?? true },
})

describe('buildBreadcrumb', () => {
  it('puts the dashboard first, links folders with a redirect, shows noRedirect and the last as text', () => {
    const crumbs = buildBreadcrumb([r('/system', 'menu.system', { redirect: 'noRedirect' }), r('/system/dict', 'menu.system.dict')])
    expect(crumbs).toEqual([
      { title: 'route.dashboard', to: '/dashboard' },
      { title: 'menu.system', to: null },
      { title: 'menu.system.dict', to: null },
    ])
  })

  it('does not repeat the dashboard on the dashboard', () => {
    expect(buildBreadcrumb([r('/', ''), r('/dashboard', 'route.dashboard', { name: 'Dashboard' })])).toEqual([
      { title: 'route.dashboard', to: null },
    ])
  })

  it('links items without a redirect to their path, and with one to the redirect', () => {
    const crumbs = buildBreadcrumb([
      r('/iot', 'menu.iot', { redirect: '/iot/device' }),
      r('/iot/ota', 'OTA'),
      r('/iot/ota/firmware', 'menu.iot.firmware'),
    ])
    expect(crumbs.map((c) => c.to)).toEqual(['/dashboard', '/iot/device', '/iot/ota', null])
  })

  it('skips routes without a title or with breadcrumb:false', () => {
    const crumbs = buildBreadcrumb([r('/x', ''), r('/x/y', 'Y', { breadcrumb: false }), r('/x/y/z', 'Z')])
    expect(crumbs.map((c) => c.title)).toEqual(['route.dashboard', 'Z'])
  })

  it('fills path params from the current URL', () => {
    expect(compilePath('/system/dict-data/:dictId/edit', { dictId: '4' })).toBe('/system/dict-data/4/edit')
    const crumbs = buildBreadcrumb([r('/d/:id', 'D'), r('/d/:id/e', 'E')], { id: '9' })
    expect(crumbs[1]).toEqual({ title: 'D', to: '/d/9' })
  })
})
