import { MASK } from './privacy'

// How a masked value reads (privacy.ts): the server masks with it; apart from privacy.ts so the web,
// which only shows what the server masked, does not carry it.

/**
 * A text value as a user without its right sees it: enough to tell two apart on a phone call, not
 * enough to contact or identify the rider. An e-mail keeps its first letter and its domain
 * (j•••@example.com); a phone number its prefix and last four digits (+31 6 •• •• 56 78); other text
 * its first letter when it has four or more (J•••), else nothing (•••). Null and blank stay as they are: a missing value is no secret.
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
  // A short name (most Chinese names: a one-character surname, a one- or two-character given name)
  // would give itself away by its first character: it keeps none.
  const letters = [...value]
  return letters.length >= 4 ? `${letters[0]}${MASK.repeat(3)}` : MASK.repeat(3)
}

/** The text kinds a mask keeps a hint of; any other personal value is answered as null, named in `masked`. */
export const PARTLY_MASKED_KINDS: readonly string[] = ['email', 'phone', 'text']
