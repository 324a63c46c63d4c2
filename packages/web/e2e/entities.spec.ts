import { allEntities } from '@velo/shared'
import { expect, test } from '@playwright/test'
import { apiLogin, openSignedIn } from './support/session'

// Tests from source see every definition; the bundle the server ships once lost the FAQ to tree
// shaking. This asks the built server for each definition the shared package has, and for each
// list its own API document names, so an entity missing from either side fails here.

interface OpenApi {
  paths: Record<string, Record<string, unknown>>
}

test('the built server lists every entity the shared package defines', async ({ request }) => {
  const token = await apiLogin(request)
  // The document is for signed-in staff (API_DOCS=staff, the default).
  const doc = await request.get('/api/docs/json', { headers: { Authorization: token } })
  expect(doc.ok()).toBe(true)
  const documented = Object.entries(((await doc.json()) as OpenApi).paths)
    // A list under a path parameter ({id}) belongs to one row, not to an entity.
    .filter(([path, methods]) => path.endsWith('/list') && !path.includes('{') && 'post' in methods)
    .map(([path]) => path)

  const defined = allEntities()
    .filter((e) => e.operations.includes('list'))
    .map((e) => `/api${e.path}/list`)
  expect(defined).toContain('/api/content/faq/list')

  const failures: string[] = []
  for (const path of new Set([...defined, ...documented])) {
    const response = await request.post(path, { headers: { Authorization: token }, data: { pageNum: 1, pageSize: 1 } })
    const body = (await response.json().catch(() => ({}))) as { code?: number; msg?: string }
    if (body.code !== 200) failures.push(`POST ${path}: HTTP ${response.status()}, code ${body.code}, ${body.msg}`)
  }
  expect(failures).toEqual([])
  expect(documented.sort()).toEqual(expect.arrayContaining(defined))
})

test('the built console finds the FAQ definition for its page', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/content/faq')
  await expect(page.getByTestId('entity-list-faq')).toBeVisible()
})
