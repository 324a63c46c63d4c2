import { describe, expect, it } from 'vitest'
import type { ComponentType } from 'react'
import { resolvePage } from './pageRegistry'

const nameOf = (page: ComponentType | null) => (page as { displayName?: string } | null)?.displayName

describe('page lookup', () => {
  it('falls back to the generic list page of the entity at the component path', () => {
    expect(nameOf(resolvePage('system/country/index'))).toBe('EntityPage(country)')
    expect(nameOf(resolvePage('system/config/index'))).toBe('EntityPage(config)')
    expect(nameOf(resolvePage('system/dept/index'))).toBe('EntityPage(dept)')
  })

  it('prefers a page module: a custom page wins over the generic one', () => {
    for (const component of ['system/user/index', 'system/dict/index', 'monitor/logininfor/index', 'monitor/operlog/index', 'monitor/online/index']) {
      const page = resolvePage(component)
      expect(page).not.toBeNull()
      expect(nameOf(page)).toBeUndefined()
    }
    expect(resolvePage('user/profile/index')).not.toBeNull()
  })

  it('finds nothing for a component with neither a page nor an entity', () => {
    expect(resolvePage('iot/nothingHere/index')).toBeNull()
  })

  it('keeps one component per page so kept-alive pages keep their state', () => {
    expect(resolvePage('system/country/index')).toBe(resolvePage('system/country/index'))
    expect(resolvePage('system/user/index')).toBe(resolvePage('system/user/index'))
  })
})
