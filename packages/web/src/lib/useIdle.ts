import { useEffect, useState } from 'react'

/**
 * False until `ready` has held and the browser was then idle (or `timeout` ms passed); true from then
 * on. For the shell's own requests, which would otherwise go out with a page's first data and share
 * its connections and its server's time. After `maxWait` ms it is true whatever `ready` says (a page
 * that keeps asking never holds the shell back for good).
 */
export function useIdle(ready = true, timeout = 1500, maxWait = 5000): boolean {
  const [idle, setIdle] = useState(false)
  useEffect(() => {
    const id = window.setTimeout(() => setIdle(true), maxWait)
    return () => window.clearTimeout(id)
  }, [maxWait])
  useEffect(() => {
    if (idle || !ready) return
    if (typeof window.requestIdleCallback !== 'function') {
      const id = window.setTimeout(() => setIdle(true), 200)
      return () => window.clearTimeout(id)
    }
    const id = window.requestIdleCallback(() => setIdle(true), { timeout })
    return () => window.cancelIdleCallback(id)
  }, [idle, ready, timeout])
  return idle
}
