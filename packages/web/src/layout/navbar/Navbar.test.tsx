import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import type { AccountFeatures } from '@velo/shared'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { forgetFeatures, loadFeatures } from '../auth/useFeatures'
import { Navbar } from './Navbar'

// Issue 36: the source-code and API documentation links (SPEC §2) are the operator's configuration
// (SOURCE_URL, API_DOCS_URL): the navbar shows each only when GET /common/features names it.

const fetchMock = vi.fn<typeof fetch>()
let features: AccountFeatures = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true }

function openNavbar() {
  renderWithProviders(
    <MemoryRouter>
      <Navbar />
    </MemoryRouter>,
  )
}
const featuresAsked = () => fetchMock.mock.calls.some(([url]) => String(url) === '/api/common/features')

describe('the navbar links', () => {
  beforeEach(() => {
    forgetFeatures()
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => (String(url) === '/api/common/features' ? jsonResponse(features) : jsonResponse(null, 404)))
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    forgetFeatures()
    features = { captchaEnabled: false, registerEnabled: false, forgetPasswordEnabled: true }
  })

  it('are hidden while the server names no address (the default)', async () => {
    openNavbar()
    await waitFor(() => expect(featuresAsked()).toBe(true))
    // The navbar's own request (cached): once it has answered and the navbar rendered with it.
    await act(async () => void (await loadFeatures()))
    expect(screen.getByTestId('navbar')).toBeTruthy()
    expect(screen.queryByTestId('api-docs-link')).toBeNull()
    expect(screen.queryByTestId('source-link')).toBeNull()
  })

  it('link to the configured addresses, each on its own', async () => {
    features = { ...features, sourceUrl: 'https://git.example.com/velo/admin', apiDocsUrl: '/api/docs' }
    openNavbar()
    expect((await screen.findByTestId('source-link')).getAttribute('href')).toBe('https://git.example.com/velo/admin')
    const docs = screen.getByTestId('api-docs-link')
    expect(docs.getAttribute('href')).toBe('/api/docs')
    expect(docs.getAttribute('target')).toBe('_blank')
  })

  it('show only the one that is set', async () => {
    features = { ...features, apiDocsUrl: 'https://developer.example.com/velo' }
    openNavbar()
    expect((await screen.findByTestId('api-docs-link')).getAttribute('href')).toBe('https://developer.example.com/velo')
    expect(screen.queryByTestId('source-link')).toBeNull()
  })
})
