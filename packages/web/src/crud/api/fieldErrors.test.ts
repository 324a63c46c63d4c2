import { describe, expect, it } from 'vitest'
import { ApiError } from '../../api/errors'
import { fieldErrorsOf } from './fieldErrors'

describe('field errors of a refused call', () => {
  it('reads data.errors, lending the envelope msg to a field named without a message', () => {
    const conflict = new ApiError('Key "a" already exists', 'business', 409, { errors: [{ field: 'configKey' }] })
    expect(fieldErrorsOf(conflict)).toEqual([{ field: 'configKey', message: 'Key "a" already exists' }])
    const invalid = new ApiError('Invalid request', 'business', 400, { errors: [{ row: 3, field: 'code', message: 'Code must be 1 to 2 letters' }] })
    expect(fieldErrorsOf(invalid)).toEqual([{ row: 3, field: 'code', message: 'Code must be 1 to 2 letters' }])
  })

  it('is null for failures without field errors', () => {
    expect(fieldErrorsOf(new ApiError('Nope', 'business', 409, null))).toBeNull()
    expect(fieldErrorsOf(new ApiError('Nope', 'business', 400, { errors: [] }))).toBeNull()
    expect(fieldErrorsOf(new ApiError('Network Error', 'network', 0))).toBeNull()
    expect(fieldErrorsOf(new Error('x'))).toBeNull()
  })
})
