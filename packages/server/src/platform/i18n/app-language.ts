import type { AppLanguage } from '@velo/shared'

/**
 * Where each app language other than English is the country's: members choose no language, so what
 * the app tells them unasked (a device warning, an erasure notice) is read off their country. The
 * server's alone: the console never needs it.
 */
const LANGUAGE_BY_COUNTRY: Readonly<Record<string, AppLanguage>> = { DE: 'de_DE', AT: 'de_DE', CH: 'de_DE', LI: 'de_DE', NL: 'nl_NL', BE: 'nl_NL', FR: 'fr_FR', LU: 'fr_FR', MC: 'fr_FR' }

/** The app language of a member in the country with this ISO code; English elsewhere or when unknown. */
export const appLanguageOfCountry = (countryCode: unknown): AppLanguage => LANGUAGE_BY_COUNTRY[String(countryCode ?? '').toUpperCase()] ?? 'en_US'
