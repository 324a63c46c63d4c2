import type { ReactNode } from 'react'
import { ConfigProvider, theme } from 'antd'
import type { SizeType } from 'antd/es/config-provider/SizeContext'
import { FeedbackHost } from '../lib/feedback'
import { usePrefersReducedMotion } from '../lib/reducedMotion'
import { layoutStore, type UiSize } from '../preferences/layoutStore'
import { settingsStore } from '../preferences/settingsStore'
import { MENU_COLORS } from '../lib/config'
import { antdLocale } from './antdLocale'

/** SPEC size names → antd sizes; Mini is Small with the compact algorithm. */
const componentSize: Record<UiSize, SizeType> = { default: 'large', medium: 'middle', small: 'small', mini: 'small' }

/** antd theme from the layout settings: the colour and dark mode apply live to every component. */
export function ThemeProvider({ children }: { children: ReactNode }) {
  const themeColor = settingsStore.use((s) => s.themeColor)
  const darkMode = settingsStore.use((s) => s.darkMode)
  const size = layoutStore.use((s) => s.size)
  const reducedMotion = usePrefersReducedMotion()
  const algorithm = [darkMode ? theme.darkAlgorithm : theme.defaultAlgorithm]
  if (size === 'mini') algorithm.push(theme.compactAlgorithm)
  return (
    <ConfigProvider
      locale={antdLocale()}
      componentSize={componentSize[size]}
      // antd puts a space between two Chinese characters of a button ("登 录"); no button of ours has one.
      button={{ autoInsertSpace: false }}
      theme={{
        algorithm,
        // Popups (dialogs, drawers, menus) above the fixed sidebar (z-index 1001, as the classic admin's),
        // as Element's start at 2000: a wide dialog otherwise slid under it.
        // Without motion when the system asks for less: popups appear at once (antd's own switch).
        token: { colorPrimary: themeColor, colorInfo: themeColor, borderRadius: 4, zIndexPopupBase: 2000, motion: !reducedMotion },
        components: {
          // Admin lists are dense (the classic admin's cells have 10 px each side): 12 px, not antd's 16,
          // so a laptop shows a whole operation log beside the fixed Actions column.
          Table: { cellPaddingInline: 12 },
          Menu: {
            darkItemBg: MENU_COLORS.background,
            darkSubMenuItemBg: MENU_COLORS.subMenuBackground,
            darkPopupBg: MENU_COLORS.background,
            darkItemColor: MENU_COLORS.text,
            darkItemHoverBg: MENU_COLORS.hoverBackground,
            darkItemHoverColor: '#ffffff',
            darkItemSelectedBg: MENU_COLORS.hoverBackground,
            darkItemSelectedColor: MENU_COLORS.activeText,
            darkGroupTitleColor: MENU_COLORS.text,
          },
        },
      }}
    >
      <AppBase>{children}</AppBase>
      <FeedbackHost />
    </ConfigProvider>
  )
}

/**
 * The text style antd's App gives the page (colour, size, line height and font of the theme). antd's
 * App itself is not used: its messages and dialogs load on first use (lib/feedback.tsx).
 */
function AppBase({ children }: { children: ReactNode }) {
  const { token } = theme.useToken()
  return (
    <div className="velo-app" style={{ color: token.colorText, fontSize: token.fontSize, lineHeight: token.lineHeight, fontFamily: token.fontFamily }}>
      {children}
    </div>
  )
}
