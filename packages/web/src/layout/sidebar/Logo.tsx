import { Link } from 'react-router'
import { PRODUCT_NAME } from '../../lib/config'

/** The sidebar's product mark; only the icon stays when the sidebar is collapsed. */
export function Logo({ collapsed }: { collapsed: boolean }) {
  return (
    <Link to="/" className="sidebar-logo" aria-label={PRODUCT_NAME}>
      <img src="/logo.svg" alt="" className="sidebar-logo-img" />
      {!collapsed && <h1 className="sidebar-logo-title">{PRODUCT_NAME}</h1>}
    </Link>
  )
}
