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
