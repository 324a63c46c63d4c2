// Rules the server enforces and the web checks before sending (SPEC §5).

/** System user name: letters and digits, 4 to 20. */
export const USERNAME_PATTERN = /^[A-Za-z0-9]{4,20}$/
/** Password: letters, digits and special characters (printable ASCII, no spaces), 6 to 20. */
export const PASSWORD_PATTERN = /^[\x21-\x7e]{6,20}$/
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
/** International or local phone numbers: digits with an optional leading +, 5 to 20. */
export const PHONE_PATTERN = /^\+?[0-9][0-9 -]{3,18}[0-9]$/

export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png'] as const
export const IMPORT_EXTENSIONS = ['xls', 'xlsx'] as const

/** SPEC §5: a version 0.0.0 to 999.999.999 (no leading zeros). */
export const VERSION_PATTERN = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/
/** SPEC §5: codes of 1 to 2 letters. */
export const letterCodePattern = (max = 2) => new RegExp(`^[A-Za-z]{1,${max}}$`)

const ZONE_NAME = /^[A-Z][A-Za-z_]*(\/[A-Z][A-Za-z0-9_+-]*)+$/
let knownZones: Set<string> | undefined

/** IANA time zone names the runtime lists, with UTC; some runtimes list a zone under an older name. */
export function timeZoneNames(): string[] {
  knownZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])
  return [...knownZones].sort()
}

/**
 * A time zone name the runtime can use. The runtime's list keeps some zones under older names
 * (Node 20 lists Asia/Calcutta, not Asia/Kolkata), so a properly spelled name that works is accepted too.
 */
export function isTimeZone(name: string): boolean {
  knownZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])
  if (knownZones.has(name)) return true
  if (!ZONE_NAME.test(name)) return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return true
  } catch {
    return false
  }
}
