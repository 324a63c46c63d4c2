import { Suspense } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { useLocation } from 'react-router'
import { prefetchPageData } from '../../crud/api/prefetch'
import { RouteProgress } from './RouteProgress'
import { resolvePage } from '../../routes/pageRegistry'
import type { PageRoute } from '../../routes/routeModel'
import { PageErrorBoundary } from './PageErrorBoundary'
import { PageNotFound } from './PageNotFound'

/** Loads the page module a route names, with the progress bar while its chunk downloads. */
export function PageHost({ page }: { page: PageRoute }) {
  const queryClient = useQueryClient()
  const { search } = useLocation()
  // The page's first rows are asked for with its chunk, in this render: a navigation is a transition,
  // which commits (and would run an effect) only once the chunk has arrived. prefetchPageData asks
  // once per page within a moment, however often React renders this.
  prefetchPageData(queryClient, page.component, search)
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
