import { useLayoutEffect, useRef, type RefObject, type UIEvent } from 'react'
import { useLocation } from 'react-router'

/**
 * Each page keeps its own scroll offset: hidden kept-alive pages lose theirs (display:none), and
 * all pages share one scroll container, so offsets are remembered per path and restored on return.
 */
export function useScrollMemory(container: RefObject<HTMLElement | null>) {
  const { pathname } = useLocation()
  const offsets = useRef(new Map<string, number>())

  useLayoutEffect(() => {
    if (container.current) container.current.scrollTop = offsets.current.get(pathname) ?? 0
  }, [pathname, container])

  return (event: UIEvent<HTMLElement>) => {
    offsets.current.set(pathname, event.currentTarget.scrollTop)
  }
}
