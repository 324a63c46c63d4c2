import { afterEach, describe, expect, it } from 'vitest'
import i18n from '../i18n'
import { formatTick, formatValue, NO_VALUE } from './format'

describe('dashboard values', () => {
  afterEach(() => void i18n.changeLanguage('en_US'))

  it('formats each unit', () => {
    expect(formatValue(12345, 'count')).toBe('12,345')
    expect(formatValue(97.456, 'percent')).toBe('97.5%')
    expect(formatValue(0, 'percent')).toBe('0.0%')
    expect(formatValue(1234.4, 'ms')).toBe('1,234 ms')
    // A time to reply reads as a duration.
    expect(formatValue(3.25, 'hours')).toBe('3 h 15 min')
    expect(formatValue(27, 'hours')).toBe('1 d 3 h')
    expect(formatValue(2.5, 'ratio')).toBe('2.50')
    expect(formatValue(4.236, 'stars')).toBe('4.24 ★')
    expect(formatValue('2026-11-02', 'day')).toBe('2026-11-02')
    expect(formatValue('Metro', 'text')).toBe('Metro')
    // Numbers that arrive as text (PostgreSQL numerics) still get their unit.
    expect(formatValue('12.34', 'percent')).toBe('12.3%')
  })

  it('shows a dash for a value the caller may not see or that has no data', () => {
    expect(formatValue(null, 'count')).toBe(NO_VALUE)
    expect(formatValue(undefined, 'percent')).toBe(NO_VALUE)
  })

  it('uses the page language for unit words', async () => {
    await i18n.changeLanguage('zh_CN')
    expect(formatValue(830, 'ms')).toBe('830 毫秒')
    expect(formatValue(1.5, 'hours')).toBe('1小时30分')
  })

  it('keeps axis ticks short', () => {
    expect(formatTick(50, 'percent')).toBe('50%')
    expect(formatTick(1500, 'count')).toBe('1,500')
    expect(formatTick(1.5, 'ratio')).toBe('1.5')
  })
})
