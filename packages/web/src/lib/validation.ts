// SPEC §5 rules used by the web forms. The server checks the same rules and has the last word.

/** Letters, digits and special characters (printable ASCII without spaces), 6 to 20. */
export const PASSWORD_PATTERN = /^[\x21-\x7e]{6,20}$/
/** Letters and digits, 4 to 20. */
export const USERNAME_PATTERN = /^[A-Za-z0-9]{4,20}$/
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
