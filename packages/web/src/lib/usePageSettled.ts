import { useEffect, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'

/**
 * False until no query is fetching and the browser was then idle (or `timeout` ms passed); true from
 * then on, and after `maxWait` ms whatever the page does (a page that keeps asking never holds the
 * shell back for good). For the shell's own requests, which would otherwise go out with a page's
 * first data and share its connections and its server's time. It listens to the query cache only
 * until then: afterwards the page's requests re-render nothing here.
 */
export function usePageSettled(timeout = 1500, maxWait = 5000): boolean {
  const queryClient = useQueryClient()
  const [settled, setSettled] = useState(false)
  useEffect(() => {
    if (settled) return
    const done = () => setSettled(true)
    const cap = window.setTimeout(done, maxWait)
    const idleCallbacks = typeof window.requestIdleCallback === 'function'
    let idle: number | undefined
    const cancelIdle = () => {
      if (idle === undefined) return
      if (idleCallbacks) window.cancelIdleCallback(idle)
      else window.clearTimeout(idle)
      idle = undefined
    }
    // Waits for idle only while nothing is fetching; a request going out meanwhile starts the wait again.
    const watch = () => {
      if (queryClient.isFetching() > 0) cancelIdle()
      else if (idle === undefined) idle = idleCallbacks ? window.requestIdleCallback(done, { timeout }) : window.setTimeout(done, 200)
    }
    const unsubscribe = queryClient.getQueryCache().subscribe(watch)
    watch()
    return () => {
      unsubscribe()
      cancelIdle()
      window.clearTimeout(cap)
    }
  }, [settled, queryClient, timeout, maxWait])
  return settled
}
