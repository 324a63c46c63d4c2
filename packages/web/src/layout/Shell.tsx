import { lazy, Suspense, useDeferredValue, useRef, type CSSProperties } from 'react'
import { theme } from 'antd'
import { layoutActions, layoutStore } from '../preferences/layoutStore'
import { settingsStore } from '../preferences/settingsStore'
import { AppMain } from './main/AppMain'
import { Navbar } from './navbar/Navbar'
import { Sidebar } from './sidebar/Sidebar'
import { TagsView } from './tags/TagsView'
import { useTagsTracking } from './tags/useTagsTracking'
import { useCurrentPage } from './useCurrentPage'
import { useDeviceWatch } from './useDeviceWatch'
import { useScrollMemory } from './useScrollMemory'
import './layout.css'

// The colour picker is only needed once someone opens the drawer.
const SettingsDrawer = lazy(() => import('./settings/SettingsDrawer').then((m) => ({ default: m.SettingsDrawer })))

/**
 * The signed-in layout: sidebar, navbar, tags view, the page area and the settings drawer. The drawer
 * opens from the navbar's gear (and the avatar menu), not from a handle floating over the page.
 */
export default function Shell() {
  const { token } = theme.useToken()
  const { table, current } = useCurrentPage()
  const opened = layoutStore.use((s) => s.sidebarOpened)
  const withoutAnimation = layoutStore.use((s) => s.withoutAnimation)
  const device = layoutStore.use((s) => s.device)
  const settingsOpen = layoutStore.use((s) => s.settingsOpen)
  const tagsView = settingsStore.use((s) => s.tagsView)
  const fixedHeader = settingsStore.use((s) => s.fixedHeader)
  const scroller = useRef<HTMLDivElement>(null)
  // The page first, the shell's controls a moment later: the sidebar's menu, the navbar and the tags
  // are drawn in a second pass right after the first one (their places are kept, so nothing moves).
  // Drawn in the same pass they were ~150 ms of the time from Enter to the first row of a list.
  const chrome = useDeferredValue(true, false)
  // Load the drawer on first open, then keep it so it can animate closed.
  const drawerLoaded = useRef(false)
  if (settingsOpen) drawerLoaded.current = true
  const onScroll = useScrollMemory(scroller)
  useDeviceWatch()
  useTagsTracking(table, current?.page ?? null)

  const classes = [
    'app-wrapper',
    opened ? 'openSidebar' : 'hideSidebar',
    withoutAnimation ? 'withoutAnimation' : '',
    device === 'mobile' ? 'mobile' : '',
  ].join(' ')

  // antd's tokens as CSS variables, so our own layout CSS follows the theme colour and dark mode.
  const vars = {
    '--velo-primary': token.colorPrimary,
    '--velo-bg': token.colorBgContainer,
    '--velo-bg-layout': token.colorBgLayout,
    '--velo-text': token.colorText,
    '--velo-text-secondary': token.colorTextSecondary,
    '--velo-border': token.colorBorderSecondary,
  } as CSSProperties

  return (
    <div className={classes} style={vars} data-testid="app-wrapper">
      <style>{`:root { --velo-primary: ${token.colorPrimary}; }`}</style>
      {device === 'mobile' && opened && <div className="drawer-bg" data-testid="sidebar-overlay" onClick={() => layoutActions.closeSidebar(false)} />}
      {chrome ? <Sidebar /> : <aside className="sidebar-container" />}
      <div className="main-container" ref={scroller} onScroll={onScroll}>
        <div className={fixedHeader ? 'fixed-header' : ''} data-testid="header">
          {chrome ? <Navbar /> : <div className="navbar" />}
          {tagsView && (chrome ? <TagsView /> : <div className="tags-view-container" />)}
        </div>
        <main className="app-main">
          <AppMain />
        </main>
      </div>
      {drawerLoaded.current && (
        <Suspense fallback={null}>
          <SettingsDrawer />
        </Suspense>
      )}
    </div>
  )
}
