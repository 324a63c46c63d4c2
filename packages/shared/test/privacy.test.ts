import { describe, expect, it } from 'vitest'
import { hiddenCategories, maskText, personalDataButtonTitle } from '../src'

// How a personal value reads to staff without its right (src/privacy*.ts): a hint to tell two apart,
// not enough to contact or identify anyone.

describe('maskText', () => {
  it('keeps an e-mail’s first letter and domain', () => {
    expect(maskText('email', 'jan.jansen@example.com')).toBe('j•••@example.com')
    expect(maskText('email', 'no-at-sign')).toBe('n•••')
  })

  it('keeps a phone number’s prefix and last four digits, and its shape', () => {
    expect(maskText('phone', '+31 6 1234 5678')).toBe('+31 6 •••• 5678')
    expect(maskText('phone', '+352 691 969 891')).toBe('+352 ••• ••9 891')
    // Four digits or fewer: nothing between the prefix and the last four to hide.
    expect(maskText('phone', '5678')).toBe('5678')
  })

  it('keeps a name’s first letter only when it has four or more: a Chinese name keeps none', () => {
    expect(maskText('text', 'Antoine')).toBe('A•••')
    expect(maskText('text', '胡')).toBe('•••')
    expect(maskText('text', '杰明')).toBe('•••')
    expect(maskText('text', 'Ada')).toBe('•••')
  })

  it('leaves a missing value missing', () => {
    expect(maskText('email', null)).toBeNull()
    expect(maskText('text', '')).toBe('')
    expect(maskText('text', '  ')).toBe('  ')
  })
})

describe('rights', () => {
  it('hides each category whose right is not held', () => {
    expect([...hiddenCategories((p) => p === 'member:pii:contact')]).toEqual(['body', 'location', 'content'])
    expect(hiddenCategories(() => true).size).toBe(0)
  })

  it('titles the rights in both languages', () => {
    expect(personalDataButtonTitle('button.pii.contact')).toEqual({ en_US: 'See contact details', zh_CN: '查看联系方式' })
    expect(personalDataButtonTitle('button.pii.reveal')?.en_US).toBe('Reveal one record (with a reason)')
    expect(personalDataButtonTitle('button.pii.nothing')).toBeUndefined()
    expect(personalDataButtonTitle('button.add')).toBeUndefined()
  })
})
