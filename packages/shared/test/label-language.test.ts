import { describe, expect, it } from 'vitest'
import { defineEntity, labelFieldIn, systemEntities } from '../src'

describe('labelFieldIn', () => {
  it('names a country by its Chinese name for a Chinese reader, by its English one otherwise', () => {
    expect(labelFieldIn(systemEntities.country, 'zh_CN')).toBe('name')
    expect(labelFieldIn(systemEntities.country, 'en_US')).toBe('nameEn')
    expect(labelFieldIn(systemEntities.user, 'zh_CN')).toBe('userName')
  })

  it('refuses a language label field that is not a field', () => {
    const def = {
      key: 'thing',
      table: 'thing',
      path: '/x/thing',
      permission: 'x:thing',
      label: { en_US: 'Thing', zh_CN: '东西' },
      idField: 'thingId',
      defaultSort: { field: 'thingId', order: 'asc' as const },
      scope: { none: { en_US: 'test', zh_CN: '测试' } },
      fields: [{ name: 'thingId', kind: 'number' as const, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true }],
    }
    expect(() => defineEntity({ ...def, labelFieldByLanguage: { zh_CN: 'nameZh' } })).toThrow(/labelFieldByLanguage nameZh is not a field/)
  })
})
