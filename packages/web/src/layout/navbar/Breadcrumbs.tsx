import { Breadcrumb } from 'antd'
import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { translateTitle } from '../../i18n'
import { buildBreadcrumb } from '../../routes/breadcrumb'
import { useCurrentPage } from '../useCurrentPage'

export function Breadcrumbs() {
  const { current } = useCurrentPage()
  useTranslation()
  if (!current) return null
  const crumbs = buildBreadcrumb(current.page.trail, current.params)
  return (
    <Breadcrumb
      className="app-breadcrumb"
      data-testid="breadcrumb"
      items={crumbs.map((crumb, index) => ({
        key: `${index}-${crumb.title}`,
        title: crumb.to ? (
          <Link to={crumb.to}>{translateTitle(crumb.title)}</Link>
        ) : (
          <span className="no-redirect">{translateTitle(crumb.title)}</span>
        ),
      }))}
    />
  )
}
