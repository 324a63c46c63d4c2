import { OTA_PROTOCOL, type OtaKeysPayload, type OtaPublicKey, otaSignedKeySetSchema, PROTOCOL_VERSION } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { ok } from '../../../platform/envelope'
import { PUBLIC } from '../../../platform/rbac/guard'
import { envelope } from '../../../platform/responses'
import type { Services } from '../../../platform/services'
import { OtaKeyring } from './keys'
import { ManifestSigner } from './manifest'

const signers = new WeakMap<Services, ManifestSigner>()

/**
 * The manifest signer of a server: its keyring is read (or made, at the first start) from DATA_DIR or
 * OTA_SIGNING_KEY once, when the OTA module registers.
 */
export function otaSignerOf(services: Pick<Services, 'config'>): ManifestSigner {
  let signer = signers.get(services as Services)
  if (!signer) {
    const { dataDir, otaSigningKey, otaSigningPublicKeys } = services.config
    signer = new ManifestSigner(OtaKeyring.load({ dataDir, privateKey: otaSigningKey, publicKeys: otaSigningPublicKeys }))
    signers.set(services as Services, signer)
  }
  return signer
}

/** The public keys devices are given at registration (POST /iot/register's otaKeys). */
export const otaPublicKeysOf = (services: Pick<Services, 'config'>): OtaPublicKey[] => [...otaSignerOf(services).keyring.keys]

/** The key update on down/ota: the signed key set. */
export function keysPayload(services: Pick<Services, 'config'>): OtaKeysPayload {
  return { v: PROTOCOL_VERSION, ota: OTA_PROTOCOL, op: 'keys', ...otaSignedKeySetSchema.parse(otaSignerOf(services).keyring.signedKeySet()) }
}

/**
 * Signed images (issue 35 §2): the keyring made at start, the key set devices fetch
 * (GET {API}/iot/ota-keys), and, while several keys are trusted (a rotation), the key update sent to
 * each device as it connects, so none misses the new key before offers are signed with it.
 */
export function registerOtaSigning(api: FastifyInstance, services: Services) {
  const signer = otaSignerOf(services)

  api.withTypeProvider<ZodTypeProvider>().get(
    '/iot/ota-keys',
    {
      // Public keys, signed: a device takes the set only when a key it trusts signed it (or, knowing none
      // yet, over the TLS connection it registered through).
      config: { permission: PUBLIC, rateLimit: { max: 600, timeWindow: '1 minute' } },
      schema: {
        tags: ['OTA transfer'],
        security: [],
        summary: 'The public keys OTA manifests are signed with, as a key set signed by every private key the server holds (docs/iot-protocol.md › Signed images)',
        response: { 200: envelope(otaSignedKeySetSchema) },
      },
    },
    async () => ok(signer.keyring.signedKeySet()),
  )

  if (!signer.keyring.rotating) return
  api.iot.gateway.on('presence', (m) => {
    if (m.payload.state !== 'online') return
    return api.iot.gateway.publishToDevice(m.device, 'ota', keysPayload(services) as unknown as Record<string, unknown>).catch((err: unknown) => api.log.warn({ err, sn: m.device.sn }, 'could not send the OTA key set'))
  })
}
