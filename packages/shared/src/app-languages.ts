/** The languages of the riders' app (SPEC §3 App protocol): content is written once per language. */
export const APP_LANGUAGES = ['en_US', 'de_DE', 'nl_NL', 'fr_FR'] as const
export type AppLanguage = (typeof APP_LANGUAGES)[number]
