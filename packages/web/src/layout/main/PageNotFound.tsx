import { Result } from 'antd'
import { useTranslation } from 'react-i18next'

/** Shown when a server route names a page module that does not exist (yet): a panel, not a crash. */
export function PageNotFound({ component }: { component: string }) {
  const { t } = useTranslation()
  return (
    <Result
      status="warning"
      title={t('page.notFound')}
      subTitle={t('page.notFoundDetail', { component })}
      data-testid="page-not-found"
    />
  )
}
