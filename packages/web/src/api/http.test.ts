import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import Cookies from 'js-cookie'

const feedback = vi.hoisted(() => ({ showError: vi.fn(), confirmSessionEnd: vi.fn() }))
vi.mock('./feedback', () => feedback)
const stepUp = vi.hoisted(() => ({ proveAgain: vi.fn<(methods: readonly string[]) => Promise<boolean>>() }))
vi.mock('./stepUp/StepUpDialog', () => stepUp)

import { download, http } from './http'

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })

describe('http client', () => {
  const fetchMock = vi.fn<typeof fetch>()

  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    Cookies.set('Admin-Token#', 'tok')
    localStorage.setItem('user_lang', 'zh_CN')
  })

  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    feedback.showError.mockReset()
    feedback.confirmSessionEnd.mockReset()
    stepUp.proveAgain.mockReset()
    Cookies.remove('Admin-Token#')
    localStorage.clear()
  })

  it('sends the token and language, prefixes /api and unwraps the envelope', async () => {
    fetchMock.mockResolvedValue(json(200, { code: 200, msg: 'ok', data: { a: 1 } }))
    await expect(http.post('/system/dict/list', { pageNum: 1 })).resolves.toEqual({ a: 1 })
    const [url, init] = fetchMock.mock.calls[0]!
    expect(url).toBe('/api/system/dict/list')
    const headers = init!.headers as Headers
    expect(headers.get('Authorization')).toBe('tok')
    expect(headers.get('currentLanguage')).toBe('zh_CN')
    expect(init!.body).toBe('{"pageNum":1}')
    expect(init!.credentials).toBe('omit')
  })

  it('shows the server msg and rejects on a failure envelope', async () => {
    fetchMock.mockResolvedValue(json(409, { code: 409, msg: 'Dictionary type exists', data: null }))
    await expect(http.put('/system/dict', {})).rejects.toMatchObject({ code: 409, kind: 'business' })
    expect(feedback.showError).toHaveBeenCalledWith('Dictionary type exists')
    expect(feedback.confirmSessionEnd).not.toHaveBeenCalled()
  })

  it('asks for a second proof when a dangerous action wants one (50020), then repeats the call', async () => {
    fetchMock.mockResolvedValueOnce(json(401, { code: 50020, msg: 'Confirm it is you', data: { methods: ['totp', 'recovery'] } }))
    fetchMock.mockResolvedValueOnce(json(200, { code: 200, msg: 'ok', data: { reset: true } }))
    stepUp.proveAgain.mockResolvedValueOnce(true)
    await expect(http.put('/system/user/resetPwd', { userId: 3 })).resolves.toEqual({ reset: true })
    expect(stepUp.proveAgain).toHaveBeenCalledWith(['totp', 'recovery'])
    expect(fetchMock).toHaveBeenCalledTimes(2)
    expect(fetchMock.mock.calls[1]![1]!.body).toBe('{"userId":3}')
    expect(feedback.showError).not.toHaveBeenCalled()
  })

  it('ends quietly as cancelled when the user declines the second proof', async () => {
    fetchMock.mockResolvedValueOnce(json(401, { code: 50020, msg: 'Confirm it is you', data: { methods: ['password'] } }))
    stepUp.proveAgain.mockResolvedValueOnce(false)
    await expect(http.put('/system/user/resetPwd', {})).rejects.toMatchObject({ kind: 'canceled' })
    expect(fetchMock).toHaveBeenCalledTimes(1)
    expect(feedback.showError).not.toHaveBeenCalled()
    expect(feedback.confirmSessionEnd).not.toHaveBeenCalled()
  })

  it('offers Confirm logout on session-end codes', async () => {
    fetchMock.mockResolvedValue(json(401, { code: 50014, msg: 'Session expired', data: null }))
    await expect(http.get('/getUserInfo')).rejects.toMatchObject({ kind: 'session' })
    expect(feedback.confirmSessionEnd).toHaveBeenCalledTimes(1)
  })

  it('reports network failures and stays quiet when asked', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'))
    await expect(http.get('/x')).rejects.toMatchObject({ kind: 'network' })
    expect(feedback.showError).toHaveBeenCalledTimes(1)
    await expect(http.get('/x', undefined, { silent: true })).rejects.toMatchObject({ kind: 'network' })
    expect(feedback.showError).toHaveBeenCalledTimes(1)
  })

  it('times out through the abort controller', async () => {
    fetchMock.mockImplementation((_url, init) => new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))))
    await expect(http.get('/slow', undefined, { timeout: 10 })).rejects.toMatchObject({ kind: 'timeout' })
  })

  it('downloads a blob under the server-given file name', async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {})
    URL.createObjectURL = vi.fn(() => 'blob:x')
    URL.revokeObjectURL = vi.fn()
    fetchMock.mockResolvedValue(
      new Response('xlsx', { status: 200, headers: { 'Content-Disposition': 'attachment; filename="dict.xlsx"' } }),
    )
    await download('/system/dict/export', { status: '0' })
    const anchor = click.mock.contexts[0] as HTMLAnchorElement
    expect(anchor.download).toBe('dict.xlsx')
    click.mockRestore()
  })
})
