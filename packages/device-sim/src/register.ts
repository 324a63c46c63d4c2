import { createHmac, randomBytes } from 'node:crypto'
import { type OtaPublicKey, registrationSigningText } from '@velo/shared'

/** The signed body of POST {api}/iot/register (docs/iot-protocol.md, "Registration"), with a fresh nonce unless given. */
export function registrationRequest(productId: string, key: string, sn: string, timestamp = Date.now(), nonce = randomBytes(16).toString('base64url')) {
  const sign = createHmac('sha256', key).update(registrationSigningText({ productId, sn, timestamp, nonce })).digest('hex')
  return { productId, sn, timestamp, nonce, sign }
}

export interface Registration {
  sn: string
  secret: string
  /** Where devices connect: the broker's URL when the server knows it publicly, else just the embedded broker's port. */
  mqtt: { url?: string; port?: number }
  /** The public keys OTA manifests are signed with (absent from a server before signed images). */
  otaKeys?: OtaPublicKey[]
  /** How often to send a heartbeat (absent from a server before it said so). */
  heartbeatSeconds?: number
}

/**
 * A refused or failed registration. `status` is the HTTP status (0 when the server could not be
 * reached), `retryAfterMs` is set when the server asked to slow down (429).
 */
export class RegistrationError extends Error {
  constructor(
    message: string,
    readonly sn: string,
    readonly status: number,
    readonly serverMessage?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message)
    this.name = 'RegistrationError'
  }

  /** Nothing answered at that address (or not HTTP). */
  get unreachable(): boolean {
    return this.status === 0
  }
}

/**
 * Registers one device with the server (a factory line or first boot does this) and returns the
 * secret it connects with. Throws a RegistrationError with the server's message when refused.
 */
export async function registerDevice(apiUrl: string, productId: string, key: string, sn: string): Promise<Registration> {
  const url = `${apiUrl.replace(/\/$/, '')}/iot/register`
  let res: Response
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registrationRequest(productId, key, sn)),
      signal: AbortSignal.timeout(30_000),
    })
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    const why = cause?.code ?? cause?.message ?? (err as Error).message
    throw new RegistrationError(`Cannot reach the server at ${apiUrl} (${why})`, sn, 0)
  }
  const body = (await res.json().catch(() => ({}))) as { code?: number; msg?: string; data?: Registration }
  if (body.code === 200 && body.data?.secret) return body.data
  const retryAfter = Number(res.headers.get('retry-after'))
  throw new RegistrationError(
    `Registration of ${sn} refused: ${body.msg ?? `HTTP ${res.status}`}`,
    sn,
    res.status,
    body.msg,
    res.status === 429 ? (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 5000) : undefined,
  )
}
