import { QueryClient } from '@tanstack/react-query'
import { systemEntities } from '@velo/shared'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { sessionStore } from '../../session/sessionStore'
import { initialListState, listBody } from '../list/useEntityList'
import { crudKeys } from './crudApi'
import { prefetchPageData } from './prefetch'

const { user } = systemEntities
const json = (body: object) => new Response(JSON.stringify({ code: 200, msg: 'ok', ...body }), { headers: { 'Content-Type': 'application/json' } })

describe("a list page's first rows asked for beside its chunk", () => {
  const fetchMock = vi.fn<typeof fetch>()
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => (String(url).includes('getDicts') ? json({ data: [] }) : json({ data: { rows: [{ userId: 1 }], total: 1 } })))
    sessionStore.setState({ roles: ['clerk'], permissions: ['system:user:list'] })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ roles: [], permissions: [] })
  })

  it('under the key the list asks with, with the dictionaries its columns show', async () => {
    const client = new QueryClient()
    prefetchPageData(client, 'system/user/index', '')
    await vi.waitFor(() => expect(client.getQueryData(crudKeys.list(user, listBody(user, initialListState)))).toEqual({ rows: [{ userId: 1 }], total: 1 }))
    const asked = fetchMock.mock.calls.map(([url]) => String(url))
    expect(asked).toContain('/api/system/user/list')
    // The user list shows sex and status from dictionaries: both are in the cache before the page runs.
    const dicts = user.listed.flatMap((f) => (f.kind === 'dict' ? [f.dict] : []))
    expect(dicts.length).toBeGreaterThan(0)
    for (const d of dicts) expect(asked).toContain(`/api/system/dict/getDicts/${d}`)
  })

  it('not for a user without the list right, an address with filters, or a page that opens on other rows', () => {
    const client = new QueryClient()
    prefetchPageData(client, 'system/user/index', '?status=0')
    prefetchPageData(client, 'iot/collection/index', '')
    sessionStore.setState({ roles: ['clerk'], permissions: ['system:role:list'] })
    prefetchPageData(client, 'system/user/index', '')
    expect(fetchMock).not.toHaveBeenCalled()
  })

  it('for an admin, who holds every right', () => {
    sessionStore.setState({ roles: ['admin'], permissions: ['*:*:*'] })
    prefetchPageData(new QueryClient(), 'system/role/index', '')
    expect(fetchMock.mock.calls.map(([url]) => String(url))).toContain('/api/system/role/list')
  })
})
