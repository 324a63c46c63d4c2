import { PERSONAL_CATEGORIES, personalDataRight } from './privacy'

// A rider's requests (GDPR Art. 15, 17, 20; docs/privacy.md): what the members' definition and the
// server share. Apart from privacy.ts, which the console's first screen carries: nothing here is
// read before a member's page.

/** Every right of a category of personal data: who holds them all sees riders' data unmasked. */
export const SEE_ALL_PERSONAL_DATA: readonly string[] = PERSONAL_CATEGORIES.map(personalDataRight)

/**
 * Days a rider's data package (GDPR Art. 15, 20) can be downloaded before its file is deleted: long
 * enough to fetch it after the notice, short enough that a complete copy of someone's data does not
 * lie about on the server (Art. 5(1)(e), storage limitation). A new one can be made any time.
 */
export const DATA_PACKAGE_DAYS = 7
