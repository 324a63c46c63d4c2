import { menuTitle, type Language } from '@velo/shared'
import type { CellProps } from '../../../crud/kinds/types'
import i18n, { translateTitle } from '../../../i18n'
import { MenuIcon } from '../../../lib/menuIcons'

// Cells of the menu list: names that are i18n keys read in the user's language, icons drawn.

/** A menu name as people read it: 'menu.system.user' and 'button.add' translated, other keys prettified, plain text as is. */
export function menuName(name: string): string {
  const known = menuTitle(name, i18n.language as Language)
  return known !== name ? known : translateTitle(name)
}

export function MenuNameCell({ value }: CellProps) {
  return typeof value === 'string' ? <span title={value}>{menuName(value)}</span> : null
}

/** '#' (or nothing) means no icon. */
export function MenuIconCell({ value }: CellProps) {
  if (typeof value !== 'string' || !value || value === '#') return null
  return (
    <span title={value} data-testid={`menu-icon-${value}`}>
      <MenuIcon name={value} />
    </span>
  )
}
