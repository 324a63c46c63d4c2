import { keepPreviousData, useQuery } from '@tanstack/react-query'
import type { DashboardAnswer, DashboardKey } from '@velo/shared'
import { http, requestFile, saveBlob, type Query } from '../api/http'
import type { ViewQuery } from './urlQuery'

export const dashboardKeys = {
  all: ['dashboard'] as const,
  view: (key: DashboardKey, view: ViewQuery) => ['dashboard', key, view] as const,
}

export interface DashboardDataOptions {
  /** Fetch again this often while the page is shown (the home page's live devices count). */
  refetchEveryMs?: number
}

/**
 * GET /analytics/{key} for the view in the URL. The figures of the last view stay on screen while the
 * next load, so changing a filter does not blank the page. Silent: the page shows the failure itself,
 * with the server's message (a reversed range) and a retry.
 */
export function useDashboardData(key: DashboardKey, view: ViewQuery, { refetchEveryMs }: DashboardDataOptions = {}) {
  return useQuery({
    queryKey: dashboardKeys.view(key, view),
    queryFn: () => http.get<DashboardAnswer>(`/analytics/${key}`, view as Query, { silent: true }),
    placeholderData: keepPreviousData,
    // Interval fetches pause while the browser tab is hidden.
    refetchInterval: refetchEveryMs ?? false,
    refetchIntervalInBackground: false,
  })
}

/** GET /analytics/{key}/export: the same figures as .xlsx, saved under the server's file name. */
export async function downloadDashboard(key: DashboardKey, view: ViewQuery): Promise<void> {
  const file = await requestFile({ url: `/analytics/${key}/export`, params: view as Query })
  saveBlob(file.blob, file.filename ?? `${key}.xlsx`)
}
