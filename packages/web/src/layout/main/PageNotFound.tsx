import { useTranslation } from 'react-i18next'
import { isCataloguePage } from '@velo/shared'
import { StatusPanel } from './StatusPanel'

/**
 * Shown when a route names a page module that does not exist: a panel, not a crash. A page of the
 * product's own menu that this version does not have yet says so plainly, so nobody takes it for a
 * broken link; a menu an admin pointed at a missing module says which module is missing.
 */
export function PageNotFound({ component }: { component: string }) {
  const { t } = useTranslation()
  const planned = isCataloguePage(component)
  return (
    <StatusPanel
      status={planned ? 'info' : 'warning'}
      title={t(planned ? 'page.notBuilt' : 'page.notFound')}
      subTitle={t(planned ? 'page.notBuiltDetail' : 'page.notFoundDetail', { component })}
      data-testid={planned ? 'page-not-built' : 'page-not-found'}
    />
  )
}
