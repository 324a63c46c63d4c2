import { describe, expect, it } from 'vitest'
import { actionFailureText, ApiError, failureMessage, fromFetchFailure, interpretResponse } from './errors'
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

describe('actionFailureText', () => {
  it('puts the action once before the reason, with the colon of the language', () => {
    expect(actionFailureText('Change password failed', 'The old password is wrong', 'en_US')).toBe('Change password failed: The old password is wrong')
    expect(actionFailureText('修改密码失败', '旧密码错误', 'zh_CN')).toBe('修改密码失败：旧密码错误')
  })

  it('does not repeat an action the reason already starts with', () => {
    expect(actionFailureText('Change password failed', 'Change password failed: the old password is wrong', 'en_US')).toBe('Change password failed: the old password is wrong')
    expect(actionFailureText('Change password failed', 'change password failed.', 'en_US')).toBe('change password failed.')
    expect(actionFailureText('修改密码失败', '修改密码失败，旧密码错误', 'zh_CN')).toBe('修改密码失败，旧密码错误')
  })

  it('says the action alone when there is no reason', () => {
    expect(actionFailureText('Upload failed', '', 'en_US')).toBe('Upload failed')
    expect(actionFailureText('Upload failed', 'Error', 'en_US')).toBe('Upload failed')
  })
})
