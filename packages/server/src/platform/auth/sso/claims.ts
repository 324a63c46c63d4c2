import { EMAIL_PATTERN } from '@velo/shared'
import { SsoError } from './identity-provider'

/** Who the identity provider says signed in, as far as this console uses it. */
export interface SsoIdentity {
  email: string
  /** Full name, for the nickname of a new account. */
  name: string
  /** The provider's user name, the first choice for a new account's user name. */
  preferredUsername: string
  /** The groups claim; undefined when the provider sent none (then group mappings are left as they are). */
  groups: string[] | undefined
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '')

/**
 * The user's e-mail (required, and not one the provider says it has not verified: an address anyone
 * could type into their profile must not open someone else's account), names and groups.
 */
export function identityOf(claims: Record<string, unknown>, groupsClaim: string): SsoIdentity {
  const email = text(claims.email)
  if (!email || email.length > 128 || !EMAIL_PATTERN.test(email)) throw new SsoError('noEmail', email ? `e-mail "${email.slice(0, 64)}" is not usable` : 'no email claim')
  // Some providers send the flag as a string. Absent (Entra ID) is taken as verified: the provider vouches for its directory.
  const verified = claims.email_verified
  if (verified === false || (typeof verified === 'string' && verified.toLowerCase() === 'false')) throw new SsoError('emailUnverified', `e-mail ${email} is not verified`)
  const raw = claims[groupsClaim]
  const groups = raw === undefined || raw === null ? undefined : (Array.isArray(raw) ? raw : [raw]).filter((g): g is string => typeof g === 'string' && g.trim() !== '').map((g) => g.trim())
  return { email, name: text(claims.name), preferredUsername: text(claims.preferred_username), groups }
}
