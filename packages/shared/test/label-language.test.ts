import { describe, expect, it } from 'vitest'
import { defineEntity, labelFieldIn, systemEntities } from '../src'
import { thing } from './thing'

describe('labelFieldIn', () => {
  it('names a country by its Chinese name for a Chinese reader, by its English one otherwise', () => {
    expect(labelFieldIn(systemEntities.country, 'zh_CN')).toBe('name')
    expect(labelFieldIn(systemEntities.country, 'en_US')).toBe('nameEn')
    expect(labelFieldIn(systemEntities.user, 'zh_CN')).toBe('userName')
  })

  it('refuses a language label field that is not a field', () => {
    const def = { ...thing(), scope: { none: { en_US: 'test', zh_CN: '测试' } } }
    expect(() => defineEntity({ ...def, labelFieldByLanguage: { zh_CN: 'nameZh' } })).toThrow(/labelFieldByLanguage nameZh is not a field/)
  })
})
