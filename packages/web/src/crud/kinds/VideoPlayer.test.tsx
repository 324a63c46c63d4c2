import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { contentEntities, defineEntity, type SessionUser } from '@velo/shared'
import { sessionStore } from '../../session/sessionStore'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { EntityDetails } from '../EntityDetails'
import { EntityListPage } from '../EntityListPage'
import { FileCell } from './cells'

const entity = defineEntity({
  key: 'helpClip',
  table: 'helpClip',
  path: '/test/clip',
  permission: 'test:clip',
  label: { en_US: 'Clips', zh_CN: '视频' },
  idField: 'id',
  defaultSort: { field: 'id', order: 'asc' },
  fields: [
    { name: 'id', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'video', kind: 'file', accept: ['mp4', 'webm', 'mov', 'pdf'], label: { en_US: 'Video', zh_CN: '视频' } },
  ],
})
const field = entity.fieldMap.get('video')!
const VIDEO = 'file/helpClip/2026/11/24/0b7c.mp4'
const LINK = `/api/test/clip/file/video/signed/${VIDEO}?exp=1795000000&sig=${'s'.repeat(43)}`

const fetchMock = vi.fn<typeof fetch>()
const linkCalls = () => fetchMock.mock.calls.filter(([url]) => String(url).startsWith('/api/test/clip/file/video/link/'))

describe('a stored video', () => {
  beforeEach(() => vi.stubGlobal('fetch', fetchMock))
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    localStorage.clear()
  })

  it('offers Play beside its download; Play asks for a signed link and plays it in a <video> with controls', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ url: LINK, expiresAt: new Date(Date.now() + 600_000).toISOString() }))
    renderWithProviders(<FileCell entity={entity} field={field} value={VIDEO} row={{ id: 1, video: VIDEO }} />)
    expect(screen.getByText('0b7c.mp4')).toBeTruthy()
    expect(linkCalls()).toHaveLength(0)
    fireEvent.click(screen.getByTestId('play-video'))
    const player = (await screen.findByTestId('video-player')) as HTMLVideoElement
    expect(player.tagName).toBe('VIDEO')
    expect(player.controls).toBe(true)
    expect(player.getAttribute('src')).toBe(LINK)
    expect(String(linkCalls()[0]![0])).toBe(`/api/test/clip/file/video/link/${VIDEO}`)
    // The link call itself carries the session token, as every call does.
    expect(screen.getByRole('dialog').textContent).toContain('Video')
  })

  it('leaves Play out for a file that is no video: a PDF downloads as before', () => {
    renderWithProviders(<FileCell entity={entity} field={field} value="file/helpClip/2026/11/24/manual.pdf" row={{ id: 1 }} />)
    expect(screen.getByText('manual.pdf')).toBeTruthy()
    expect(screen.queryByTestId('play-video')).toBeNull()
  })

  it('asks for a new link when the old one has run out, and goes on where it stopped', async () => {
    let n = 0
    fetchMock.mockImplementation(async () => {
      n += 1
      // The first link is at its end (a player paused for ten minutes); the second is fresh.
      return jsonResponse({ url: `${LINK}&n=${n}`, expiresAt: new Date(Date.now() + (n === 1 ? 5_000 : 600_000)).toISOString() })
    })
    renderWithProviders(<FileCell entity={entity} field={field} value={VIDEO} row={{ id: 1 }} />)
    fireEvent.click(screen.getByTestId('play-video'))
    const first = (await screen.findByTestId('video-player')) as HTMLVideoElement
    expect(first.getAttribute('src')).toBe(`${LINK}&n=1`)
    first.currentTime = 42
    fireEvent.error(first)
    await waitFor(() => expect((screen.getByTestId('video-player') as HTMLVideoElement).getAttribute('src')).toBe(`${LINK}&n=2`))
    const second = screen.getByTestId('video-player') as HTMLVideoElement
    fireEvent.loadedMetadata(second)
    expect(second.currentTime).toBe(42)
  })

  it('says the browser cannot play it, with a download, when a good link fails (a codec it lacks)', async () => {
    fetchMock.mockImplementation(async () => jsonResponse({ url: LINK, expiresAt: new Date(Date.now() + 600_000).toISOString() }))
    renderWithProviders(<FileCell entity={entity} field={field} value={VIDEO} row={{ id: 1 }} />)
    fireEvent.click(screen.getByTestId('play-video'))
    fireEvent.error(await screen.findByTestId('video-player'))
    expect(await screen.findByText('This browser cannot play the video: download it to watch it')).toBeTruthy()
    expect(screen.queryByTestId('video-player')).toBeNull()
    expect(linkCalls()).toHaveLength(1)
  })

  it('plays in the details of a user help item, whose list leaves the video out', async () => {
    const help = contentEntities.userHelp
    expect(help.listed.some((f) => f.name === 'video')).toBe(false)
    fetchMock.mockImplementation(async (url) => {
      const path = String(url)
      if (path === '/api/content/userHelp/3') return jsonResponse({ helpId: 3, title: 'Charging', type: 'video', language: 'en_US', video: VIDEO, document: '', orderNum: 0, status: '0' })
      if (path.startsWith('/api/content/userHelp/file/video/link/')) return jsonResponse({ url: LINK, expiresAt: new Date(Date.now() + 600_000).toISOString() })
      if (path.includes('getDicts')) return jsonResponse([])
      return jsonResponse([])
    })
    renderWithProviders(<EntityDetails entity={help} id={3} onClose={() => {}} as="drawer" />)
    fireEvent.click(await screen.findByTestId('play-video'))
    expect(((await screen.findByTestId('video-player')) as HTMLVideoElement).getAttribute('src')).toBe(LINK)
  })

  it('gives the rows of a user help item, whose list leaves the video out, the Details action (with the query right)', async () => {
    const help = contentEntities.userHelp
    const row = { helpId: 3, title: 'Charging', type: 'video', modelId: null, language: 'en_US', coverImage: '', linkUrl: '', videoDuration: 60, orderNum: 0, status: '0', createTime: '2026-11-24T08:00:00.000Z' }
    fetchMock.mockImplementation(async (url) => (String(url) === '/api/content/userHelp/list' ? jsonResponse({ rows: [row], total: 1 }) : jsonResponse([])))
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['staff'], permissions: ['content:userHelp:list', 'content:userHelp:query'] })
    const { unmount } = renderWithProviders(<EntityListPage entity={help} />)
    expect(within((await screen.findByText('Charging')).closest('tr')!).getByTestId('row-details')).toBeTruthy()
    unmount()
    sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['staff'], permissions: ['content:userHelp:list'] })
    renderWithProviders(<EntityListPage entity={help} />)
    expect(within((await screen.findByText('Charging')).closest('tr')!).queryByTestId('row-details')).toBeNull()
  })
})
