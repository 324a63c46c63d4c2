import { describe, expect, it } from 'vitest'
import dayjs from 'dayjs'
import { hasUnsavedChanges } from './discardChanges'

describe('hasUnsavedChanges (a form asks before it drops them)', () => {
  it('sees a typed value, a changed choice, a date and a list', () => {
    expect(hasUnsavedChanges({ name: '' }, { name: 'Night shift' })).toBe(true)
    expect(hasUnsavedChanges({ status: '0' }, { status: '1' })).toBe(true)
    expect(hasUnsavedChanges({ day: dayjs('2026-01-01') }, { day: dayjs('2026-01-02') })).toBe(true)
    expect(hasUnsavedChanges({ menuIds: [1, 2] }, { menuIds: [1, 2, 3] })).toBe(true)
    expect(hasUnsavedChanges({}, { remark: 'x' })).toBe(true)
  })

  it('takes a value typed and erased, or blank in another way, as no change', () => {
    expect(hasUnsavedChanges({ name: undefined }, { name: '' })).toBe(false)
    expect(hasUnsavedChanges({ ids: [] }, { ids: undefined })).toBe(false)
    expect(hasUnsavedChanges({ remark: null }, {})).toBe(false)
    expect(hasUnsavedChanges({ day: dayjs('2026-01-01') }, { day: dayjs('2026-01-01') })).toBe(false)
    expect(hasUnsavedChanges({ menuIds: [1, 2] }, { menuIds: [1, 2] })).toBe(false)
  })
})
