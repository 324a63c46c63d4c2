import { useEffect } from 'react'
import { useLocation, useNavigate } from 'react-router'

/** /redirect/<path>: go straight back to <path>, so that page mounts afresh (used to refresh a tab). */
export function RedirectHelper() {
  const { pathname, search } = useLocation()
  const navigate = useNavigate()
  useEffect(() => {
    const target = pathname.replace(/^\/redirect/, '') || '/'
    navigate(`${target}${search}`, { replace: true })
  }, [pathname, search, navigate])
  return null
}
