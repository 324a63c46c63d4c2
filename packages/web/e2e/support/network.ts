import type { Page } from '@playwright/test'

/**
 * Aborts every request that leaves the console's origin, and answers the ones it aborted: the maps
 * (fleet, traces, geofences) must work with no network and ask nothing of anyone else.
 */
export async function blockOutside(page: Page, baseURL: string): Promise<string[]> {
  const own = new URL(baseURL).origin
  const outside: string[] = []
  await page.route('**', (route) => {
    const url = new URL(route.request().url())
    if (url.origin === own) return route.continue()
    outside.push(url.href)
    return route.abort()
  })
  return outside
}
