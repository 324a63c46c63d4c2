
// Riders' personal data (GDPR Art. 5 and 25: staff see only what their work needs). A field that
// identifies or describes a rider declares its category in its definition (`personal: 'contact'`);
// a staff user sees its value only with the category's right, else a mask, in every answer of the
// server: lists, details, exports, pickers, related lists. One record's values are revealed with
// their own right and a reason, which the operation log keeps (docs/privacy.md).

/** What a personal value tells about a rider. */
export type PersonalCategory = 'contact' | 'body' | 'location' | 'content'

export const PERSONAL_CATEGORIES: readonly PersonalCategory[] = ['contact', 'body', 'location', 'content']

/** The right to see a category's values unmasked: member:pii:contact. */
export const personalDataRight = (category: PersonalCategory) => `member:pii:${category}`

/** The right to reveal one record's masked values, giving a reason. */
export const REVEAL_PERSONAL_DATA = 'member:pii:reveal'

/** The rights of personal data, as buttons under the Members page (the role tree grants them). */
export const PERSONAL_DATA_BUTTONS: readonly [perms: string, name: string][] = [
  ...PERSONAL_CATEGORIES.map((c): [string, string] => [personalDataRight(c), `button.pii.${c}`]),
  [REVEAL_PERSONAL_DATA, 'button.pii.reveal'],
]

/** The shortest reason a reveal accepts: a word or two of why, not a keystroke. */
export const REVEAL_REASON_MIN = 5
export const REVEAL_REASON_MAX = 200

/** The character a mask hides with. */
export const MASK = '•'

/** The categories of personal data a holder of these rights sees masked. */
export function hiddenCategories(hasRight: (permission: string) => boolean): Set<PersonalCategory> {
  return new Set(PERSONAL_CATEGORIES.filter((c) => !hasRight(personalDataRight(c))))
}
