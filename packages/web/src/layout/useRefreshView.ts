import { useCallback } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { tagsActions } from './tags/tagsStore'

/**
 * Reload pages through /redirect: drop the kept-alive copy, visit the helper route, come back, and
 * the page mounts fresh (SPEC §2 /redirect/{path}).
 */
export function useRefreshView() {
  const navigate = useNavigate()
  const location = useLocation()
  const refresh = useCallback(
    (fullPath: string = `${location.pathname}${location.search}`) => {
      const path = fullPath.split('?')[0] ?? fullPath
      tagsActions.delCached(path)
      navigate(`/redirect${fullPath}`, { replace: true })
    },
    [navigate, location.pathname, location.search],
  )
  const refreshAll = useCallback(() => {
    tagsActions.delAllCached()
    navigate(`/redirect${location.pathname}${location.search}`, { replace: true })
  }, [navigate, location.pathname, location.search])
  return { refresh, refreshAll }
}
