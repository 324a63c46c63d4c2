import { describe, expect, it } from 'vitest'
import { MENU_CATALOGUE, type MenuSeed, STANDARD_ACTIONS } from '../src/menus'
import { BUTTON_TITLES, menuTitle } from '../src/menu-titles'
import { personalDataButtonTitle } from '../src/privacy-labels'

/** The button names the server seeds under a page: 'button.<last segment of the permission>', or an extra's own name. */
const buttonsOf = (page: MenuSeed) =>
  page.permission
    ? [
        ...[...STANDARD_ACTIONS, ...(page.imports ? ['import'] : [])].map((a) => `button.${a}`),
        ...(page.extra ?? []).map((p) => (typeof p === 'string' ? `button.${p.split(':').at(-1)!}` : p[1])),
      ]
    : []

describe('menu titles', () => {
  it('every seeded button has a title in both languages', () => {
    const names = new Set(MENU_CATALOGUE.flatMap((area) => (area.children ?? []).flatMap(buttonsOf)))
    for (const name of names) {
      const title = BUTTON_TITLES[name] ?? personalDataButtonTitle(name)
      expect(title, name).toBeDefined()
      expect(title!.en_US).not.toBe('')
      expect(title!.zh_CN).not.toBe('')
      expect(menuTitle(name, 'zh_CN')).toBe(title!.zh_CN)
    }
  })

  it('translates i18n keys and leaves plain names alone', () => {
    expect(menuTitle('menu.system.user', 'en_US')).toBe('System users')
    expect(menuTitle('menu.system.user', 'zh_CN')).toBe('用户管理')
    expect(menuTitle('button.add', 'zh_CN')).toBe('新增')
    expect(menuTitle('Reports', 'zh_CN')).toBe('Reports')
    expect(menuTitle('menu.unknown', 'en_US')).toBe('menu.unknown')
  })
})
