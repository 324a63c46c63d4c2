import { beforeEach, describe, expect, it, vi } from 'vitest'

vi.mock('../routes/pageRegistry', async (original) => ({ ...(await original<typeof import('../routes/pageRegistry')>()), preloadPage: vi.fn() }))

const { preloadPage } = await import('../routes/pageRegistry')
const { preloadPageAt } = await import('./console')

// The sign-in page preloads the page it will open while the user types, before the routes are known.
describe('preloadPageAt', () => {
  beforeEach(() => vi.mocked(preloadPage).mockClear())

  it("names a menu page's component by its path, as the menus do", () => {
    preloadPageAt('/system/user')
    expect(preloadPage).toHaveBeenCalledWith('system/user/index')
  })

  it('leaves the query and a trailing slash out', () => {
    preloadPageAt('/monitor/operlog/?status=1')
    expect(preloadPage).toHaveBeenCalledWith('monitor/operlog/index')
  })

  it("takes a fixed route's own component, and the home page for /", () => {
    preloadPageAt('/')
    expect(preloadPage).toHaveBeenCalledWith('dashboard/index')
    preloadPageAt('/dashboard')
    expect(preloadPage).toHaveBeenLastCalledWith('dashboard/index')
  })
})
