import { describe, expect, it } from 'vitest'
import { render } from '@testing-library/react'
import spriteUrl from 'virtual:velo-menu-icons'
import { menuIconSvg } from '../../build/menuIconSprite'
import { MENU_ICON_NAMES, MenuIcon } from './menuIcons'

describe('menu icons', () => {
  it('draws a name from the sprite in the markup of an antd icon', () => {
    const { container } = render(<MenuIcon name="shopping-cart" />)
    const icon = container.firstElementChild!
    expect(icon.getAttribute('role')).toBe('img')
    expect(icon.getAttribute('aria-label')).toBe('shopping-cart')
    expect(icon.className).toBe('anticon anticon-shopping-cart')
    expect(icon.querySelector('svg > use')!.getAttribute('href')).toBe(`${spriteUrl}#shopping-cart`)
    // Tests and styles find an icon by its name, as on antd's own icons.
    expect(icon.querySelector('svg')!.getAttribute('data-icon')).toBe('shopping-cart')
  })

  it('draws the neutral icon for no name, an unknown one, or a name an object has of itself', () => {
    for (const name of [null, 'no-such-icon', 'constructor']) {
      const { container } = render(<MenuIcon name={name} />)
      expect(container.querySelector('use')!.getAttribute('href')).toBe(`${spriteUrl}#appstore`)
    }
  })

  // The picker offers MENU_ICON_NAMES: a name without its symbol would be an empty square in the menu.
  it('has a symbol in the sprite for every name the picker offers, and no other', () => {
    const svg = new DOMParser().parseFromString(menuIconSvg(), 'image/svg+xml')
    const symbols = [...svg.querySelectorAll('symbol')]
    expect(symbols.map((s) => s.id).sort()).toEqual([...MENU_ICON_NAMES].sort())
    for (const symbol of symbols) {
      // Each its own: most are '64 64 896 896', safety and shopping-cart '0 0 1024 1024'.
      expect(symbol.getAttribute('viewBox')).toMatch(/^\d+ \d+ \d+ \d+$/)
      expect(symbol.children.length).toBeGreaterThan(0)
    }
  })
})
