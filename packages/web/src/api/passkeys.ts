// The browser's side of passkeys (WebAuthn) with @simplewebauthn/browser. The library is fetched on
// the first use: the sign-in page and the console's first screen carry only passkeysSupported().

/** Options as the server answers them (PublicKeyCredential*OptionsJSON). */
export type PasskeyOptions = Record<string, unknown>

/** Whether this browser can use passkeys at all (an old browser, or a page that is not a secure context). */
export const passkeysSupported = (): boolean => typeof window !== 'undefined' && window.isSecureContext && typeof window.PublicKeyCredential === 'function'

/** Asks the browser to create a passkey from the server's options: its answer, for the server to keep. */
export async function createPasskey(options: PasskeyOptions) {
  const { startRegistration } = await import('@simplewebauthn/browser')
  return startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'] })
}

/** Asks the browser to sign the server's challenge with a passkey: its answer, for the server to check. */
export async function answerWithPasskey(options: PasskeyOptions) {
  const { startAuthentication } = await import('@simplewebauthn/browser')
  return startAuthentication({ optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'] })
}

/** The user closed the browser's prompt, or it timed out: nothing to report beyond "not done". */
export const passkeyCancelled = (error: unknown): boolean => error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError')
