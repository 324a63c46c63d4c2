import { describe, expect, it } from 'vitest'
import { allEntities, formatDuration, iotConfigEntities, labelWithUnit, memberEntities, valueSchema, fieldIssueOf } from '../src'

// Issue 36: a ride of 1 h 12 min, not 4,320 seconds.
describe('a duration as people read it', () => {
  it('says the largest unit and the next, in English', () => {
    expect(formatDuration(4320, 's', 'en_US')).toBe('1 h 12 min')
    expect(formatDuration(45, 's', 'en_US')).toBe('45 s')
    expect(formatDuration(51, 'h', 'en_US')).toBe('2 d 3 h')
    expect(formatDuration(750, 's', 'en_US')).toBe('12 min 30 s')
    expect(formatDuration(3600, 's', 'en_US')).toBe('1 h')
    expect(formatDuration(90, 'min', 'en_US')).toBe('1 h 30 min')
    expect(formatDuration(30, 'd', 'en_US')).toBe('30 d')
  })

  it('in Chinese, without spaces, 分 beside another unit and 分钟 alone', () => {
    expect(formatDuration(4320, 's', 'zh_CN')).toBe('1小时12分')
    expect(formatDuration(45, 's', 'zh_CN')).toBe('45秒')
    expect(formatDuration(51, 'h', 'zh_CN')).toBe('2天3小时')
    expect(formatDuration(750, 's', 'zh_CN')).toBe('12分30秒')
    expect(formatDuration(720, 's', 'zh_CN')).toBe('12分钟')
  })

  it('rounds to the second unit, carrying into a larger one', () => {
    expect(formatDuration(4350, 's', 'en_US')).toBe('1 h 13 min')
    expect(formatDuration(3599, 's', 'en_US')).toBe('59 min 59 s')
    expect(formatDuration(3599.6, 's', 'en_US')).toBe('1 h')
    expect(formatDuration(86_399, 's', 'en_US')).toBe('1 d')
    expect(formatDuration(59_960, 'ms', 'en_US')).toBe('1 min')
  })

  it('says short ones in tenths of a second or milliseconds', () => {
    expect(formatDuration(830, 'ms', 'en_US')).toBe('830 ms')
    expect(formatDuration(1234, 'ms', 'en_US')).toBe('1.2 s')
    expect(formatDuration(1234, 'ms', 'zh_CN')).toBe('1.2秒')
    expect(formatDuration(830, 'ms', 'zh_CN')).toBe('830毫秒')
    expect(formatDuration(1.5, 'h', 'en_US')).toBe('1 h 30 min')
  })

  it('says zero in the stored unit, and what is no number as it came', () => {
    expect(formatDuration(0, 's', 'en_US')).toBe('0 s')
    expect(formatDuration(0, 'h', 'zh_CN')).toBe('0小时')
    expect(formatDuration(0, 'min', 'zh_CN')).toBe('0分钟')
    expect(formatDuration(-90, 's', 'en_US')).toBe('-1 min 30 s')
    expect(formatDuration(Number.NaN, 's', 'en_US')).toBe('NaN')
  })
})

describe('duration fields', () => {
  it('declare their unit and leave it out of the label, which the places showing the bare number add', () => {
    const duration = memberEntities.ride.fieldMap.get('duration')!
    expect(duration).toMatchObject({ kind: 'number', duration: 's', label: { en_US: 'Duration', zh_CN: '时长' } })
    expect(labelWithUnit(duration)).toEqual({ en_US: 'Duration (s)', zh_CN: '时长（秒）' })
    const distance = memberEntities.ride.fieldMap.get('distance')!
    expect(labelWithUnit(distance)).toBe(distance.label)
  })

  it('say their limits with the unit: a bare 36000 would not say what it counts', () => {
    const video = allEntities().find((e) => e.key === 'userHelp')?.fieldMap.get('videoDuration')
    expect(video).toBeDefined()
    const result = valueSchema(video!).safeParse(40_000)
    expect(result.success).toBe(false)
    expect(fieldIssueOf(result.error!.issues[0]!.message)).toMatchObject({ rule: 'max', max: 36000, label: { en_US: 'Video duration (s)', zh_CN: '视频时长（秒）' } })
  })

  it('keep the unit where a bare number is named by the label: a drift row names its setting with it', () => {
    const setting = iotConfigEntities.iotConfigDrift.fieldMap.get('field')!
    const options = setting.kind === 'enum' ? setting.options : []
    expect(options.find((o) => o.value === 'wakeUpMinutes')?.label).toEqual({ en_US: 'Wake-up frequency (min)', zh_CN: '唤醒频率（分钟）' })
  })

  it('are every number field whose label still names a time unit: none is left reading as a bare number', () => {
    const timeUnit = /\((s|ms|min|h|hours|days)\)|（(秒|毫秒|分钟|小时|天)）|\((秒|毫秒|分钟|小时|天)\)/
    const left = allEntities().flatMap((e) => e.fields.filter((f) => f.kind === 'number' && (timeUnit.test(f.label.en_US) || timeUnit.test(f.label.zh_CN))).map((f) => `${e.key}.${f.name}`))
    expect(left).toEqual([])
  })
})
