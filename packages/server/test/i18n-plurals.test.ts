import { describe, expect, it } from 'vitest'
import { formatCount, formatMessage, t } from '../src/platform/i18n'
import { catalogs } from '../src/platform/i18n/messages'

describe('server messages with counts', () => {
  it('read right for one and for many in English', () => {
    expect(t('en_US', 'auth.badCredentials', { max: 1, minutes: 1 })).toBe(
      'User name or password is incorrect (after 1 wrong attempt an account is locked for 1 minute)',
    )
    expect(t('en_US', 'auth.badCredentials', { max: 5, minutes: 10 })).toBe(
      'User name or password is incorrect (after 5 wrong attempts an account is locked for 10 minutes)',
    )
    expect(t('en_US', 'import.failed', { count: 1 })).toBe('Import failed: 1 row has errors, nothing was imported')
    expect(t('en_US', 'import.failed', { count: 3 })).toBe('Import failed: 3 rows have errors, nothing was imported')
    expect(t('en_US', 'log.cleaned', { count: 1 })).toBe('Log cleared: 1 entry deleted')
    expect(t('en_US', 'log.cleaned', { count: 0 })).toBe('Log cleared: 0 entries deleted')
    expect(t('en_US', 'role.inUse', { roleName: 'Ops', count: 1 })).toBe('Role "Ops" is assigned to 1 user and cannot be deleted')
    expect(t('en_US', 'iot.command.deviceMissing', { count: 1, ids: '9' })).toBe('1 device does not exist: 9')
    expect(t('en_US', 'iot.command.deviceMissing', { count: 2, ids: '8, 9' })).toBe('2 devices do not exist: 8, 9')
    expect(t('en_US', 'iot.command.sentSomeQueued', { total: 6, queued: 1 })).toBe('Command sent to 6 devices (1 offline: queued until it comes back online)')
  })

  it('leave Chinese, which has one form, as it is', () => {
    expect(t('zh_CN', 'auth.badCredentials', { max: 1, minutes: 1 })).toBe('用户名或密码错误（连续输错 1 次后账号将锁定 1 分钟）')
    expect(t('zh_CN', 'import.failed', { count: 1 })).toBe('导入失败：1 行有错误，未导入任何数据')
  })

  it('format plural branches: exact matches first, # for the number, nested placeholders, missing values kept', () => {
    const msg = '{n, plural, =0 {none} one {# item of {owner}} other {# items of {owner}}}'
    expect(formatMessage('en_US', msg, { n: 0, owner: 'Ann' })).toBe('none')
    expect(formatMessage('en_US', msg, { n: 1, owner: 'Ann' })).toBe('1 item of Ann')
    expect(formatMessage('en_US', msg, { n: 21, owner: 'Ann' })).toBe('21 items of Ann')
    expect(formatMessage('en_US', 'left {n} and {n, plural, one {#} other {#s}}', {})).toBe('left {n} and {n, plural, one {#} other {#s}}')
    expect(formatMessage('en_US', 'unbalanced {x', { x: 1 })).toBe('unbalanced {x')
  })

  it('every message parses: no plural is left unformatted for 1 and 2 in either language', () => {
    for (const [lang, catalog] of Object.entries(catalogs) as [keyof typeof catalogs, Record<string, string>][]) {
      for (const [key, template] of Object.entries(catalog)) {
        const names = [...template.matchAll(/\{(\w+)/g)].map((m) => m[1]!)
        for (const n of [1, 2]) {
          const text = formatMessage(lang, template, Object.fromEntries(names.map((name) => [name, n])))
          expect(text, `${lang} ${key}`).not.toMatch(/[{}]|plural/)
        }
      }
    }
  })

  // Issue 36: the agreement's publish dialog showed "3,357" in its facts and "3357" in its warning.
  it('write a plural\'s number as the facts beside it do: one format, the language\'s', () => {
    expect(formatCount('en_US', 3357)).toBe('3,357')
    expect(t('en_US', 'content.protocol.resign', { count: 3357 })).toContain(`${formatCount('en_US', 3357)} members`)
    expect(t('zh_CN', 'content.protocol.resign', { count: 3357 })).toContain(`${formatCount('zh_CN', 3357)} 名`)
    expect(t('en_US', 'import.failed', { count: 12000 })).toBe('Import failed: 12,000 rows have errors, nothing was imported')
  })
})
