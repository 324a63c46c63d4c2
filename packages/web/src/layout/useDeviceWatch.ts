import { useEffect } from 'react'
import { useLocation } from 'react-router'
import { MOBILE_BREAKPOINT } from '../lib/config'
import { layoutActions, layoutStore } from '../preferences/layoutStore'

const isMobileWidth = () => document.body.getBoundingClientRect().width - 1 < MOBILE_BREAKPOINT

/** Mobile mode under 992 px of body width: the sidebar closes, and closes again after each navigation. */
export function useDeviceWatch(): void {
  const { pathname } = useLocation()

  useEffect(() => {
    const check = () => {
      const mobile = isMobileWidth()
      const { device } = layoutStore.getState()
      if (mobile && device !== 'mobile') {
        layoutActions.setDevice('mobile')
        layoutActions.closeSidebar(true)
      } else if (!mobile && device !== 'desktop') {
        layoutActions.setDevice('desktop')
      }
    }
    check()
    window.addEventListener('resize', check)
    return () => window.removeEventListener('resize', check)
  }, [])

  useEffect(() => {
    const { device, sidebarOpened } = layoutStore.getState()
    if (device === 'mobile' && sidebarOpened) layoutActions.closeSidebar(false)
  }, [pathname])
}
