import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { type SessionUser } from '@velo/shared'
import i18n from '../../i18n'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { crudKeys } from '../api/crudApi'
import { EntityDetails } from '../EntityDetails'
import { EntityListPage } from '../EntityListPage'
import { piiRider } from '../../test/piiRider'

// Riders' personal data as the server answers it to a user without the categories' rights: text
// partly masked, anything else null, the fields named in `masked` (shared/src/privacy.ts).

const rider = piiRider

const jan = { riderId: 1, nickname: 'Jan', email: 'j•••@example.com', birthday: null, height: null, masked: ['email', 'birthday', 'height'] }
// No birthday or height: nothing hidden there, so nothing masked.
const kim = { riderId: 2, nickname: 'Kim', email: 'k•••@example.com', birthday: null, height: null, masked: ['email'] }
const clear = { email: 'jan@example.com', birthday: '1990-04-01', height: 182 }

const fetchMock = vi.fn<typeof fetch>()
const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body))
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['ops'], permissions })

/** A value says why it is masked in its title (shown on hover), once that has loaded (Masked.tsx). */
async function expectTooltip(element: () => Element, text: string) {
  await waitFor(() => expect(element().getAttribute('title')).toBe(text))
}

describe('personal data the user may not see', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url).replace(/^\/api/, '')
      if (path === '/pii/rider/list') return jsonResponse({ rows: [jan, kim], total: 2 })
      if (path === '/pii/rider/1') return jsonResponse(jan)
      if (path === '/pii/rider/1/reveal') return jsonResponse({ values: clear })
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it('shows a masked value in a list as the mask, never as blank, with why in its tooltip', async () => {
    signIn(['pii:rider:list'])
    renderWithProviders(<EntityListPage entity={rider} />)
    const janRow = (await screen.findByText('Jan')).closest('tr')!
    const masks = within(janRow).getAllByTestId('masked-value')
    expect(masks.map((m) => m.textContent)).toEqual(['j•••@example.com', '•••', '•••'])
    // Kim has no birthday: an empty cell, as for any missing value.
    const kimRow = screen.getByText('Kim').closest('tr')!
    expect(within(kimRow).getAllByTestId('masked-value').map((m) => m.textContent)).toEqual(['k•••@example.com'])

    await expectTooltip(() => within(janRow).getAllByTestId('masked-value')[1]!, 'Personal data (body data), hidden: you have no right to see it')
    await expectTooltip(() => within(janRow).getAllByTestId('masked-value')[0]!, 'Personal data (contact details), hidden: you have no right to see it')
  })

  it('says why in Chinese too', async () => {
    await i18n.changeLanguage('zh_CN')
    try {
      signIn(['pii:rider:query'])
      renderWithProviders(<EntityDetails entity={rider} id={1} onClose={() => undefined} />)
      const details = await screen.findByTestId('entity-details')
      await within(details).findAllByTestId('masked-value')
      await expectTooltip(() => within(details).getAllByTestId('masked-value')[1]!, '个人数据（身体数据），您无权查看，已隐藏')
    } finally {
      await i18n.changeLanguage('en_US')
    }
  })

  it('offers no reveal without member:pii:reveal, and shows the masks in the details', async () => {
    signIn(['pii:rider:query'])
    renderWithProviders(<EntityDetails entity={rider} id={1} as="drawer" onClose={() => undefined} />)
    const details = await screen.findByTestId('entity-details')
    expect(within(details).getAllByTestId('masked-value').map((m) => m.textContent)).toEqual(['j•••@example.com', '•••', '•••'])
    expect(screen.queryByTestId('reveal-personal')).toBeNull()
  })

  it('reveals one row for a reason, checked as the server checks it, and shows the clear values in that view only', async () => {
    signIn(['pii:rider:query', 'member:pii:reveal'])
    const { client } = renderWithProviders(<EntityDetails entity={rider} id={1} as="drawer" onClose={() => undefined} />)
    const details = await screen.findByTestId('entity-details')
    fireEvent.click(await screen.findByTestId('reveal-personal'))
    const form = await screen.findByTestId('reveal-form')
    // The dialog names what it reveals.
    expect(screen.getByText(/The clear values of Email, Birthday, and Height show in this view/)).toBeTruthy()
    const reason = within(form).getByLabelText('Reason')

    fireEvent.click(screen.getByTestId('reveal-ok'))
    expect(await within(form).findByText('Please give a reason')).toBeTruthy()
    // Blanks do not count: four letters are too short.
    fireEvent.change(reason, { target: { value: '  abcd  ' } })
    fireEvent.click(screen.getByTestId('reveal-ok'))
    expect(await within(form).findByText('The reason must be 5 to 200 characters')).toBeTruthy()
    expect(calls('/pii/rider/1/reveal')).toHaveLength(0)

    fireEvent.change(reason, { target: { value: ' Rider called about a refund ' } })
    fireEvent.click(screen.getByTestId('reveal-ok'))
    await waitFor(() => expect(calls('/pii/rider/1/reveal')).toHaveLength(1))
    const post = calls('/pii/rider/1/reveal')[0]!
    expect(post[1]?.method).toBe('POST')
    expect(bodyOf(post)).toEqual({ reason: 'Rider called about a refund' })

    expect(await within(details).findByText('jan@example.com')).toBeTruthy()
    expect(within(details).getByText('1990-04-01')).toBeTruthy()
    expect(within(details).getByText('182')).toBeTruthy()
    expect(within(details).queryAllByTestId('masked-value')).toHaveLength(0)
    expect(screen.getByTestId('personal-revealed')).toBeTruthy()
    expect(screen.queryByTestId('reveal-personal')).toBeNull()
    // Nothing kept beyond the view: the cached row is the masked one.
    expect(client.getQueryData(crudKeys.row(rider, 1))).toEqual(jan)
  })

  it('opens the details, where they are revealed, from a list row with masked values to a user who may reveal them', async () => {
    signIn(['pii:rider:list', 'pii:rider:query'])
    const { unmount } = renderWithProviders(<EntityListPage entity={rider} />)
    await screen.findByText('Jan')
    expect(screen.queryByTestId('row-details')).toBeNull()
    unmount()

    signIn(['pii:rider:list', 'pii:rider:query', 'member:pii:reveal'])
    renderWithProviders(<EntityListPage entity={rider} />)
    fireEvent.click(within((await screen.findByText('Jan')).closest('tr')!).getByTestId('row-details'))
    expect(await screen.findByTestId('reveal-personal')).toBeTruthy()
  })
})
