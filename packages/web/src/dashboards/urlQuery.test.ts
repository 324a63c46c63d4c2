import { describe, expect, it } from 'vitest'
import { engagementDashboard, homeDashboard, satisfactionDashboard } from '@velo/shared'
import { addDays, lastDays, readViewQuery, shownRange, utcToday, writeViewQuery } from './urlQuery'

const url = (query: string) => new URLSearchParams(query)

describe('dashboard URL query', () => {
  it('reads the range and the filters this dashboard takes, and drops malformed values', () => {
    expect(readViewQuery(url('from=2026-10-01&to=2026-10-31&countryId=3&platform=ios&modelId=4'), engagementDashboard)).toEqual({
      from: '2026-10-01',
      to: '2026-10-31',
      countryId: 3,
      platform: 'ios',
    })
    expect(readViewQuery(url('from=yesterday&to=2026-13-45&countryId=-1&platform=web'), engagementDashboard)).toEqual({})
    // The satisfaction dashboard takes no platform; home takes no filter at all.
    expect(readViewQuery(url('countryId=2&platform=android'), satisfactionDashboard)).toEqual({ countryId: 2 })
    expect(readViewQuery(url('countryId=2'), homeDashboard)).toEqual({})
  })

  it('passes a reversed range on: the server says what is wrong with it', () => {
    expect(readViewQuery(url('from=2026-10-31&to=2026-10-01'), engagementDashboard)).toEqual({ from: '2026-10-31', to: '2026-10-01' })
  })

  it('writes only what is chosen, in a fixed order, and reads it back', () => {
    const view = { platform: 'android' as const, countryId: 5, from: '2026-01-01', to: '2026-01-31' }
    const written = writeViewQuery(view)
    expect(written.toString()).toBe('from=2026-01-01&to=2026-01-31&countryId=5&platform=android')
    expect(readViewQuery(written, engagementDashboard)).toEqual(view)
    expect(writeViewQuery({}).toString()).toBe('')
  })

  it('counts days in UTC, both ends included', () => {
    expect(utcToday(new Date('2026-11-24T23:30:00-05:00'))).toBe('2026-11-25')
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28')
    expect(lastDays(7, '2026-11-24')).toEqual({ from: '2026-11-18', to: '2026-11-24' })
    expect(shownRange({}, engagementDashboard, '2026-11-24')).toEqual({ from: addDays('2026-11-24', -89), to: '2026-11-24' })
    expect(shownRange({ to: '2026-06-30' }, satisfactionDashboard, '2026-11-24')).toEqual({ from: addDays('2026-06-30', -179), to: '2026-06-30' })
  })
})
