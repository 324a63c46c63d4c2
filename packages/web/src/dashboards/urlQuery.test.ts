import { describe, expect, it } from 'vitest'
import { DASHBOARD_MAX_DAYS, DASHBOARDS, engagementDashboard, homeDashboard, satisfactionDashboard } from '@velo/shared'
import { addDays, dayOutOfReach, daysBetween, lastDays, readViewQuery, shownRange, utcToday, writeViewQuery } from './urlQuery'

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
  })

  it('opens every dashboard on the same default range, the last 90 days', () => {
    expect(shownRange({}, '2026-11-24')).toEqual({ from: addDays('2026-11-24', -89), to: '2026-11-24' })
    expect(shownRange({ to: '2026-06-30' }, '2026-11-24')).toEqual({ from: addDays('2026-06-30', -89), to: '2026-06-30' })
    // One default, not one per dashboard: the definitions carry none of their own.
    for (const def of Object.values(DASHBOARDS)) expect(def).not.toHaveProperty('defaultDays')
  })

  it('offers in the date picker only days that make a range the server answers', () => {
    const today = '2026-11-24'
    expect(dayOutOfReach('2026-11-25', undefined, today)).toBe(true)
    expect(dayOutOfReach('2024-01-01', undefined, today)).toBe(false)
    // 400 days with both ends, and not one more, either side of the picked end.
    expect(daysBetween('2025-01-01', addDays('2025-01-01', DASHBOARD_MAX_DAYS - 1))).toBe(DASHBOARD_MAX_DAYS)
    expect(dayOutOfReach(addDays('2025-01-01', DASHBOARD_MAX_DAYS - 1), '2025-01-01', today)).toBe(false)
    expect(dayOutOfReach(addDays('2025-01-01', DASHBOARD_MAX_DAYS), '2025-01-01', today)).toBe(true)
    expect(dayOutOfReach(addDays('2026-06-30', -DASHBOARD_MAX_DAYS), '2026-06-30', today)).toBe(true)
    expect(dayOutOfReach(addDays('2026-06-30', -(DASHBOARD_MAX_DAYS - 1)), '2026-06-30', today)).toBe(false)
  })
})
