import spriteUrl from 'virtual:velo-menu-icons'
import { FALLBACK_MENU_ICON, MENU_ICONS, type MenuIconName } from './menuIconNames'

/** The icon names a menu may use, for the menu form's icon picker. */
export const MENU_ICON_NAMES: readonly string[] = Object.keys(MENU_ICONS)

const isMenuIcon = (name: string | null): name is MenuIconName => !!name && Object.hasOwn(MENU_ICONS, name)

/**
 * Fetches the sprite ahead of the sidebar (the console calls it as it loads, while the user signs in),
 * so the menu's first paint finds it in the cache rather than drawing its icons a moment after it.
 */
export function preloadMenuIcons(): void {
  void fetch(spriteUrl).catch(() => undefined)
}

/**
 * A menu icon as a reference into the sprite (one cached file, build/menuIconSprite.ts) rather than
 * ~60 icon components in the console's code. The markup is antd's icon's (span.anticon.anticon-<name>,
 * a 1em svg in currentColor), so the menu's styles for icons, collapsed or not, apply unchanged.
 */
export function MenuIcon({ name }: { name: string | null }) {
  const id = isMenuIcon(name) ? name : FALLBACK_MENU_ICON
  return (
    <span role="img" aria-label={id} className={`anticon anticon-${id}`}>
      <svg width="1em" height="1em" fill="currentColor" aria-hidden="true" focusable="false" data-icon={id}>
        <use href={`${spriteUrl}#${id}`} />
      </svg>
    </span>
  )
}
