import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { RETAINED_PRESENCE_MAX_BYTES, SN_PATTERN, TOPIC_ROOT, upTopic } from '@velo/shared'
import type { Db } from '../db/database'

/** A device secret as shown once, and the hash the database keeps of it. */
export interface IssuedSecret {
  secret: string
  secretHash: string
}

/** The MQTT user name and password the server's own clients connect with. */
export interface Credential {
  username: string
  password: string
}

export type BrokerAction = 'publish' | 'subscribe'

/** Who a connection proved to be: a device (by SN) or the server itself. */
export type BrokerIdentity = { kind: 'device'; sn: string } | { kind: 'internal' }

// SHA-256, not a password hash: the secret carries 256 random bits, so nothing is gained by slowing
// the check down, and 10,000 devices reconnecting at once must not cost tens of ms each.
export const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex')

/** A model's registration key: devices sign their self-registration with it (192 random bits). */
export const newRegistrationKey = () => randomBytes(24).toString('base64url')

export function issueSecret(): IssuedSecret {
  const secret = randomBytes(32).toString('base64url')
  return { secret, secretHash: hashSecret(secret) }
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest()
  const b = createHash('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}

const text = (v: string | Buffer | null | undefined) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : v.toString('utf8'))

/**
 * The one place that decides who may connect to the device broker and what each may do: the embedded
 * broker asks it directly, EMQX through the HTTP hooks. A device connects as its SN (client id and
 * user name) with its secret, publishes only below its own up/ topics, subscribes only below its own
 * down/ topics, and its last will can only be its own presence.
 */
export class DeviceAuthority {
  private readonly internal: Credential[]

  constructor(
    private readonly db: Db,
    internal: (Credential | undefined)[],
  ) {
    this.internal = internal.filter((c): c is Credential => !!c?.username)
  }

  /** A fresh credential for a server client of the embedded broker (nothing outside the process knows it). */
  static newInternalCredential(): Credential {
    return { username: `$velo-server-${randomBytes(6).toString('hex')}`, password: randomBytes(32).toString('base64url') }
  }

  isInternal(username: string, password?: string | Buffer | null): boolean {
    return this.internal.some((c) => c.username === username && (password === undefined || sameSecret(text(password), c.password)))
  }

  /** Null when refused (unknown SN, client id not the SN, wrong secret, model disabled). */
  async authenticate(clientId: string, username: string | undefined, password: string | Buffer | null | undefined): Promise<BrokerIdentity | null> {
    const user = username ?? ''
    if (this.isInternal(user, password ?? '')) return { kind: 'internal' }
    if (!SN_PATTERN.test(user) || clientId !== user || !password) return null
    const device = await this.db
      .selectFrom('iotDevice')
      .innerJoin('iotModel', 'iotModel.modelId', 'iotDevice.modelId')
      .select(['iotDevice.secretHash', 'iotModel.status'])
      .where('iotDevice.sn', '=', user)
      .executeTakeFirst()
    if (!device?.secretHash || device.status !== '0') return null
    const given = Buffer.from(hashSecret(text(password)), 'hex')
    const stored = Buffer.from(device.secretHash, 'hex')
    return given.length === stored.length && timingSafeEqual(given, stored) ? { kind: 'device', sn: user } : null
  }

  /** Whether a client may publish to a topic (or subscribe to a filter). */
  authorize(identity: BrokerIdentity, action: BrokerAction, topic: string): boolean {
    if (identity.kind === 'internal') return true
    const own = `${TOPIC_ROOT}/${identity.sn}/${action === 'publish' ? 'up' : 'down'}/`
    if (!topic.startsWith(own) || topic.length === own.length) return false
    const rest = topic.slice(own.length)
    // Publishing needs a concrete topic; a subscription may use wildcards below the device's own prefix.
    return action === 'publish' ? !/[+#]/.test(rest) : rest === '#' || /^([^/#+]+|\+)(\/([^/#+]+|\+))*(\/#)?$/.test(rest)
  }

  /**
   * Whether a client may leave a retained message: a device only its own presence, of at most
   * RETAINED_PRESENCE_MAX_BYTES (an empty one clears it). `bytes` is unknown to EMQX's ACL hook, whose
   * broker caps retained payloads itself (docs/iot-protocol.md, Brokers).
   */
  retainAllowed(identity: BrokerIdentity, topic: string, bytes = 0): boolean {
    if (identity.kind === 'internal') return true
    return topic === upTopic(identity.sn, 'presence') && bytes <= RETAINED_PRESENCE_MAX_BYTES
  }

  /** A device's last will may only say it went offline, on its own presence topic, as a presence is sized. */
  willAllowed(identity: BrokerIdentity, will: { topic: string; bytes: number } | undefined): boolean {
    if (will === undefined || identity.kind === 'internal') return true
    return will.topic === upTopic(identity.sn, 'presence') && will.bytes <= RETAINED_PRESENCE_MAX_BYTES
  }

  /** The identity EMQX's ACL hook describes (it authenticated the client already). */
  identityOf(clientId: string, username: string): BrokerIdentity | null {
    if (this.isInternal(username)) return { kind: 'internal' }
    return SN_PATTERN.test(username) && clientId === username ? { kind: 'device', sn: username } : null
  }
}
