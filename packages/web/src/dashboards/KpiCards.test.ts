import { describe, expect, it } from 'vitest'
import { linkSearch } from './KpiCards'

describe("a card's link", () => {
  it('keeps the commas of an in-filter readable', () => {
    expect(linkSearch({ severity: 'critical', state: 'activeUnack,activeAck' })).toBe('severity=critical&state=activeUnack,activeAck')
  })

  it('carries the range the card counted over', () => {
    expect(linkSearch({ replied: 'false', createTime: '{from},{to}' }, { from: '2026-08-01', to: '2026-11-24' })).toBe('replied=false&createTime=2026-08-01,2026-11-24')
  })

  it('drops a range parameter when no range is known, rather than sending the placeholder', () => {
    expect(linkSearch({ replied: 'false', createTime: '{from},{to}' })).toBe('replied=false')
  })

  it('counts back from today for a card of the last days', () => {
    expect(linkSearch({ lastActiveDay: '{today-6},{today}' }, { from: '2026-08-01', to: '2026-08-31' }, '2026-11-24')).toBe('lastActiveDay=2026-11-18,2026-11-24')
  })
})
