import Cookies from 'js-cookie'
import { createStore } from '../lib/createStore'
import { SIDEBAR_COOKIE, SIZE_COOKIE } from '../lib/config'

// Application state (SPEC §3/§4): sidebar, device, size. Sidebar and size persist in cookies.

export type Device = 'desktop' | 'mobile'
export const SIZES = ['default', 'medium', 'small', 'mini'] as const
export type UiSize = (typeof SIZES)[number]

export interface LayoutState {
  sidebarOpened: boolean
  /** Skip the slide animation (when the device switch closes the sidebar). */
  withoutAnimation: boolean
  device: Device
  size: UiSize
  /** The settings drawer (系统布局配置) is open. */
  settingsOpen: boolean
}

const cookieSize = Cookies.get(SIZE_COOKIE)

export const layoutStore = createStore<LayoutState>({
  // Opened unless the cookie says 0.
  sidebarOpened: Cookies.get(SIDEBAR_COOKIE) !== '0',
  withoutAnimation: false,
  device: 'desktop',
  size: (SIZES as readonly string[]).includes(cookieSize ?? '') ? (cookieSize as UiSize) : 'medium',
  settingsOpen: false,
})

export const layoutActions = {
  toggleSidebar() {
    const opened = !layoutStore.getState().sidebarOpened
    Cookies.set(SIDEBAR_COOKIE, opened ? '1' : '0')
    layoutStore.setState({ sidebarOpened: opened, withoutAnimation: false })
  },
  closeSidebar(withoutAnimation: boolean) {
    Cookies.set(SIDEBAR_COOKIE, '0')
    layoutStore.setState({ sidebarOpened: false, withoutAnimation })
  },
  setDevice(device: Device) {
    layoutStore.setState({ device })
  },
  openSettings(open: boolean) {
    layoutStore.setState({ settingsOpen: open })
  },
  setSize(size: UiSize) {
    Cookies.set(SIZE_COOKIE, size)
    layoutStore.setState({ size })
  },
}
