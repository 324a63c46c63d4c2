import { describe, expect, it } from 'vitest'
import { checkTypedValue, CONFIG_VALUE_TYPES, configValueType, defineEntity, systemEntities } from '../src'

describe('values typed by another field', () => {
  it('checks and normalizes each type', () => {
    expect(checkTypedValue({ type: 'boolean' }, ' TRUE ')).toEqual({ ok: true, value: 'true' })
    expect(checkTypedValue({ type: 'boolean' }, 'maybe')).toEqual({ ok: false, problem: { type: 'boolean' } })
    expect(checkTypedValue({ type: 'boolean' }, '1').ok).toBe(false)
    const minutes = { type: 'integer', min: 1, max: 1440 } as const
    expect(checkTypedValue(minutes, '015')).toEqual({ ok: true, value: '15' })
    for (const bad of ['0', '1441', '2.5', '1e3', 'ten', '', '99999999999999999999']) {
      expect(checkTypedValue(minutes, bad), bad).toEqual({ ok: false, problem: { type: 'integer', min: 1, max: 1440 } })
    }
    const captcha = CONFIG_VALUE_TYPES['sys.account.captchaType']!
    expect(checkTypedValue(captcha, 'char')).toEqual({ ok: true, value: 'char' })
    expect(checkTypedValue(captcha, 'Char')).toEqual({ ok: false, problem: { type: 'enum', values: ['math', 'char'] } })
    const init = CONFIG_VALUE_TYPES['sys.user.initPassword']!
    expect(checkTypedValue(init, 'Velo123!').ok).toBe(true)
    expect(checkTypedValue(init, 'a b')).toMatchObject({ ok: false, problem: { type: 'text', rule: { en_US: expect.stringContaining('6 to 20') } } })
    expect(checkTypedValue({ type: 'text' }, 'anything').ok).toBe(true)
  })

  it('types the built-in configuration keys, and no others', () => {
    expect(configValueType('sys.account.captchaEnabled')).toEqual({ type: 'boolean' })
    expect(configValueType(' sys.account.lockTime ')).toMatchObject({ type: 'integer', min: 1, max: 1440 })
    expect(configValueType('service.hotline')).toBeUndefined()
    expect(configValueType('toString')).toBeUndefined()
    expect(configValueType(undefined)).toBeUndefined()
    const value = systemEntities.config.fieldMap.get('configValue')!
    expect(value.typedBy?.field).toBe('configKey')
  })

  it('refuses a definition whose typed field is not text or names no field', () => {
    const base = {
      key: 'typed',
      table: 'typed',
      path: '/x/typed',
      permission: 'x:typed',
      label: { en_US: 'Typed', zh_CN: '类型' },
      idField: 'typedId',
      defaultSort: { field: 'typedId', order: 'asc' as const },
    }
    const id = { name: 'typedId', kind: 'number' as const, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true }
    const key = { name: 'key', kind: 'text' as const, label: { en_US: 'Key', zh_CN: '键' } }
    const typedBy = { field: 'key', table: 'config' as const }
    expect(() => defineEntity({ ...base, fields: [id, key, { name: 'value', kind: 'number', label: { en_US: 'V', zh_CN: '值' }, typedBy }] })).toThrow(/must be text/)
    expect(() => defineEntity({ ...base, fields: [id, { name: 'value', kind: 'text', label: { en_US: 'V', zh_CN: '值' }, typedBy }] })).toThrow(/typedBy key is not a field/)
  })
})
