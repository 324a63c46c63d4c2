import { describe, expect, it } from 'vitest'
import { ApiError, failureMessage, fromFetchFailure, interpretResponse } from './errors'
import { filenameFromDisposition } from './http'

describe('interpretResponse', () => {
  it('unwraps data on code 200', () => {
    expect(interpretResponse(200, { code: 200, msg: 'ok', data: { a: 1 } })).toEqual({ ok: true, data: { a: 1 } })
  })

  it('reads the envelope of error statuses', () => {
    const result = interpretResponse(400, { code: 400, msg: 'Wrong password', data: null })
    expect(result.ok).toBe(false)
    if (!result.ok) expect([result.error.kind, result.error.code, result.error.message]).toEqual(['business', 400, 'Wrong password'])
  })

  it('marks session-end codes', () => {
    for (const code of [50008, 50012, 50014]) {
      const result = interpretResponse(401, { code, msg: 'Invalid token', data: null })
      expect(!result.ok && result.error.kind).toBe('session')
    }
  })

  it("falls back to 'Error' when there is no msg", () => {
    const result = interpretResponse(200, { code: 500, msg: '', data: null })
    expect(!result.ok && failureMessage(result.error)).toBe('Error')
  })

  it('treats bodies without an envelope by HTTP status', () => {
    const result = interpretResponse(502, '<html>Bad gateway</html>')
    expect(!result.ok && result.error.kind).toBe('http')
    expect(interpretResponse(200, 'plain')).toEqual({ ok: true, data: 'plain' })
  })
})

describe('fromFetchFailure', () => {
  it('distinguishes timeouts, cancellation and network errors', () => {
    expect(fromFetchFailure(new Error('aborted'), true, 120000)).toMatchObject({ kind: 'timeout', message: 'timeout of 120000ms exceeded' })
    expect(fromFetchFailure(new Error('aborted'), false, 1, true).kind).toBe('canceled')
    expect(fromFetchFailure(new TypeError('Failed to fetch'), false, 1)).toMatchObject({ kind: 'network', message: 'Network Error' })
    const original = new ApiError('x', 'business', 400)
    expect(fromFetchFailure(original, false, 1)).toBe(original)
  })
})

describe('filenameFromDisposition', () => {
  it('prefers the RFC 5987 name', () => {
    expect(filenameFromDisposition(`attachment; filename="dict.xlsx"; filename*=UTF-8''%E5%AD%97%E5%85%B8.xlsx`)).toBe('字典.xlsx')
    expect(filenameFromDisposition('attachment; filename="dict.xlsx"')).toBe('dict.xlsx')
    expect(filenameFromDisposition(null)).toBeUndefined()
  })
})
