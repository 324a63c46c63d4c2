import { Suspense } from 'react'
import { RouteProgress } from '../../app/RouteProgress'
import { resolvePage } from '../../app/routes/pageRegistry'
import type { PageRoute } from '../../app/routes/routeModel'
import { PageErrorBoundary } from './PageErrorBoundary'
import { PageNotFound } from './PageNotFound'

/** Loads the page module a route names, with the progress bar while its chunk downloads. */
export function PageHost({ page }: { page: PageRoute }) {
  const Page = resolvePage(page.component)
  if (!Page) return <PageNotFound component={page.component} />
  return (
    <PageErrorBoundary>
      <Suspense fallback={<RouteProgress />}>
        <Page />
      </Suspense>
    </PageErrorBoundary>
  )
}
