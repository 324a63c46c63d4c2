import type { Label } from './entity/types'

// Riders' personal data (GDPR Art. 5 and 25: staff see only what their work needs). A field that
// identifies or describes a rider declares its category in its definition (`personal: 'contact'`);
// a staff user sees its value only with the category's right, else a mask, in every answer of the
// server: lists, details, exports, pickers, related lists. One record's values are revealed with
// their own right and a reason, which the operation log keeps (docs/privacy.md).

/** What a personal value tells about a rider. */
export type PersonalCategory = 'contact' | 'body' | 'location' | 'content'

export const PERSONAL_CATEGORIES: readonly PersonalCategory[] = ['contact', 'body', 'location', 'content']

export const PERSONAL_CATEGORY_LABELS: Record<PersonalCategory, Label> = {
  contact: { en_US: 'contact details', zh_CN: '联系方式' },
  body: { en_US: 'body data', zh_CN: '身体数据' },
  location: { en_US: 'positions', zh_CN: '位置' },
  content: { en_US: 'photos, texts and files', zh_CN: '照片、文字和文件' },
}

/** The right to see a category's values unmasked: member:pii:contact. */
export const personalDataRight = (category: PersonalCategory) => `member:pii:${category}`

/** The right to reveal one record's masked values, giving a reason. */
export const REVEAL_PERSONAL_DATA = 'member:pii:reveal'

/** The rights of personal data, as buttons under the Members page (the role tree grants them). */
export const PERSONAL_DATA_BUTTONS: readonly [perms: string, name: string][] = [
  ...PERSONAL_CATEGORIES.map((c): [string, string] => [personalDataRight(c), `button.pii.${c}`]),
  [REVEAL_PERSONAL_DATA, 'button.pii.reveal'],
]

/** The buttons' titles in the role tree. */
export const PERSONAL_DATA_BUTTON_TITLES: Record<string, Label> = {
  'button.pii.contact': { en_US: 'See contact details', zh_CN: '查看联系方式' },
  'button.pii.body': { en_US: 'See body data', zh_CN: '查看身体数据' },
  'button.pii.location': { en_US: 'See positions', zh_CN: '查看位置' },
  'button.pii.content': { en_US: 'See photos, texts and files', zh_CN: '查看照片、文字和文件' },
  'button.pii.reveal': { en_US: 'Reveal one record (with a reason)', zh_CN: '查看单条记录（需说明原因）' },
}

/** The shortest reason a reveal accepts: a word or two of why, not a keystroke. */
export const REVEAL_REASON_MIN = 5
export const REVEAL_REASON_MAX = 200

/** The character a mask hides with. */
export const MASK = '•'

/**
 * A text value as a user without its right sees it: enough to tell two apart on a phone call, not
 * enough to contact or identify the rider. An e-mail keeps its first letter and its domain
 * (j•••@example.com); a phone number its prefix and last four digits (+31 6 •• •• 56 78); other text
 * its first letter (J•••). Null and blank stay as they are: a missing value is no secret.
 */
export function maskText(kind: string, value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null
  if (value.trim() === '') return value
  if (kind === 'email') {
    const at = value.lastIndexOf('@')
    return at > 0 ? `${value[0]}${MASK.repeat(3)}${value.slice(at)}` : `${value[0]}${MASK.repeat(3)}`
  }
  if (kind === 'phone') {
    // Digits past the country and area prefix (the first three) and before the last four become dots;
    // spaces and signs stay, so the number keeps its shape.
    const digits = [...value].filter((c) => c >= '0' && c <= '9').length
    let seen = 0
    return [...value].map((c) => (c >= '0' && c <= '9' ? (++seen > 3 && seen <= digits - 4 ? MASK : c) : c)).join('')
  }
  return `${[...value][0]}${MASK.repeat(3)}`
}

/** The text kinds a mask keeps a hint of; any other personal value is answered as null, named in `masked`. */
export const PARTLY_MASKED_KINDS: readonly string[] = ['email', 'phone', 'text']

/** The categories of personal data a holder of these rights sees masked. */
export function hiddenCategories(hasRight: (permission: string) => boolean): Set<PersonalCategory> {
  return new Set(PERSONAL_CATEGORIES.filter((c) => !hasRight(personalDataRight(c))))
}
