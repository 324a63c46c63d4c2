// The frame-number scheme (docs/frame-numbers.md): what a bike order's fields make of a serial.
// Shared so the server's generation, the demo data and the tests build numbers one way.

/** Letters and digits a frame number may use: no I, O or Q, which read as 1 and 0 when stamped. */
export const FRAME_CHARACTERS = /^[A-HJ-NPR-Z0-9]+$/

/** VIN model-year codes (ISO 3779): a 30-year cycle from 1980, letters without I, O, Q, U, Z, then 1–9. */
const YEAR_CODES = 'ABCDEFGHJKLMNPRSTVWXY123456789'

/** The one-character code of a model year: 2026 → 'T', 2031 → '1' (repeats every 30 years). */
export function yearCode(year: number): string {
  if (!Number.isInteger(year) || year < 1980) throw new RangeError(`no year code for ${year}`)
  return YEAR_CODES[(year - 1980) % 30]!
}

/** ISO 3779 transliteration: A–H 1–8, J–N 1–5, P 7, R 9, S–Z 2–9; digits are themselves. */
export function transliterate(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48
  const i = 'ABCDEFGHJKLMNPRSTUVWXYZ'.indexOf(c)
  if (i < 0) throw new RangeError(`${c} may not appear in a frame number`)
  return [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 7, 9, 2, 3, 4, 5, 6, 7, 8, 9][i]!
}

/** Σ value × weight mod 11, written '0'–'9' or 'X' for 10 (the VIN's ninth character). */
function mod11(chars: string, weightAt: (i: number) => number): string {
  let sum = 0
  for (let i = 0; i < chars.length; i++) sum += transliterate(chars[i]!) * weightAt(i)
  const r = sum % 11
  return r === 10 ? 'X' : String(r)
}

const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]

/** A 17-character VIN's check digit (49 CFR 565.15), for the tests that hold our transliteration to the standard's. */
export function vinCheckDigit(vin: string): string {
  if (vin.length !== 17) throw new RangeError('a VIN has 17 characters')
  return mod11(vin, (i) => VIN_WEIGHTS[i]!)
}

/**
 * The check character of a frame number's body. Frame numbers vary in length, so weights count from
 * the right: 2, 3, … 10 for the last nine characters, then again from 2. Every weight is below 11 and
 * 11 is prime, so one mistyped character (of a different value) or two neighbours swapped always
 * changes the sum.
 */
export function frameCheckCharacter(body: string): string {
  return mod11(body, (i) => ((body.length - 1 - i) % 9) + 2)
}

/** The fields of an order that make its numbers. */
export interface FrameTemplate {
  brandCode: string
  manufacturerCode: string
  modelYear: number
  /** Model/colour/size code. */
  specCode: string
  /** The supplementary code of a repair order's frames; '' for a regular order. */
  repairCode: string
  serialDigits: number
  checkCharacter: boolean
}

/** The part before the serial: orders with the same prefix draw serials from one series. */
export function framePrefix(t: FrameTemplate): string {
  return `${t.brandCode}${t.manufacturerCode}${yearCode(t.modelYear)}${t.specCode}${t.repairCode}`
}

/** The largest serial the template can write. */
export const maxSerial = (t: Pick<FrameTemplate, 'serialDigits'>) => 10 ** t.serialDigits - 1

/** The frame number of a serial: prefix, the serial zero-padded, then the check character if the order wants one. */
export function frameNumberOf(t: FrameTemplate, serial: number, prefix = framePrefix(t)): string {
  if (!Number.isInteger(serial) || serial < 1 || serial > maxSerial(t)) throw new RangeError(`serial ${serial} does not fit ${t.serialDigits} digits`)
  const body = prefix + String(serial).padStart(t.serialDigits, '0')
  return t.checkCharacter ? body + frameCheckCharacter(body) : body
}

/** The template as people read it: "VL · A · T · MET · ###### · check". */
export function frameFormat(t: FrameTemplate, check: string): string {
  return [t.brandCode, t.manufacturerCode, yearCode(t.modelYear), t.specCode, t.repairCode, '#'.repeat(t.serialDigits), t.checkCharacter ? check : '']
    .filter(Boolean)
    .join(' · ')
}

/** The 5 % rule (SPEC §5): more numbers than this for an order are an overrun, flagged and confirmed twice. */
export const overrunLimit = (quantity: number) => Math.floor((quantity * 105) / 100)
