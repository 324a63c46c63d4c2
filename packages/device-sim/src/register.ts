import { createHmac } from 'node:crypto'

/** The signed body of POST {api}/iot/register (docs/iot-protocol.md, "Registration"). */
export function registrationRequest(productId: string, key: string, sn: string, timestamp = Date.now()) {
  const sign = createHmac('sha256', key).update(`${productId}:${sn}:${timestamp}`).digest('hex')
  return { productId, sn, timestamp, sign }
}

export interface Registration {
  sn: string
  secret: string
  /** Where devices connect: the broker's URL when the server knows it publicly, else just the embedded broker's port. */
  mqtt: { url?: string; port?: number }
}

/**
 * Registers one device with the server (a factory line or first boot does this) and returns the
 * secret it connects with. Throws with the server's message when refused.
 */
export async function registerDevice(apiUrl: string, productId: string, key: string, sn: string): Promise<Registration> {
  const res = await fetch(`${apiUrl.replace(/\/$/, '')}/iot/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(registrationRequest(productId, key, sn)),
  })
  const body = (await res.json().catch(() => ({}))) as { code?: number; msg?: string; data?: Registration }
  if (body.code !== 200 || !body.data) throw new Error(`Registration of ${sn} refused: ${body.msg ?? res.status}`)
  return body.data
}
