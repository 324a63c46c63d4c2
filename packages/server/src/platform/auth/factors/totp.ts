import { lazyRequire } from '../../../lib/lazy-require'

const otplib = lazyRequire<typeof import('otplib')>('otplib')

/** One 30-second step either side: a phone whose clock is a little off still signs in (RFC 6238 §5.2). */
const TOLERANCE_SECONDS = 30
const STEP_SECONDS = 30

export const newTotpSecret = (): string => otplib().generateSecret()

/** What an authenticator app scans: otpauth://totp/Issuer:user?secret=…&issuer=Issuer. */
export const totpUri = (secret: string, issuer: string, account: string): string => otplib().generateURI({ issuer, label: account, secret })

/**
 * The time step of a right code, or null. `usedStep` is the last step this secret signed in with:
 * a code is accepted once, so one seen over a shoulder or in a log cannot be replayed.
 */
export function checkTotp(secret: string, code: string, usedStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null
  const result = otplib().verifySync({ secret, token: code, epochTolerance: TOLERANCE_SECONDS, ...(usedStep !== null ? { afterTimeStep: usedStep } : {}) })
  return result.valid && 'timeStep' in result ? result.timeStep : null
}

/** The code an authenticator shows at `at` (tests sign in with it, from the same library). */
export const totpCode = (secret: string, at = Date.now()): string => otplib().generateSync({ secret, epoch: Math.floor(at / 1000) })

export const TOTP_STEP_SECONDS = STEP_SECONDS

/** The otpauth:// address as a QR code (SVG), for an authenticator app to scan. */
export async function qrSvgOf(uri: string): Promise<string> {
  const { default: QRCode } = await import('qrcode')
  return QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })
}
