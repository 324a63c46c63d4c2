import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { iotEntities, REGISTRATION_NONCE_PATTERN, type RegistrationRefusal, registrationSigningText, serialAnnounced, SN_PATTERN } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Insertable, Kysely, Transaction } from 'kysely'
import { z } from 'zod'
import type { Database, IotDeviceTable } from '../../db/schema'
import { issueSecret, newRegistrationKey } from '../../gateway/device-auth'
import { BusinessType } from '../../platform/audit/operation-log'
import { registerEntityRoutes } from '../../platform/crud/routes'
import { idParam } from '../../platform/crud/schemas'
import { ok } from '../../platform/envelope'
import { AppError, badRequest, notFound } from '../../platform/errors'
import type { MessageParams } from '../../platform/i18n'
import type { MessageKey } from '../../platform/i18n/messages'
import { bilingual } from '../../platform/i18n/zod-messages'
import { assertIdsInScope, callerScope } from '../../platform/rbac/entity-scope'
import { caller, PUBLIC } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { DEFAULT_HEARTBEAT_SECONDS, HEARTBEAT_SECONDS_KEY } from '../../gateway/presence'
import { otaPublicKeysOf } from '../ota/signing'
import { conformanceAction } from './conformance'
import { stolenActions } from './stolen'
import { brokerAnswerSchema, deviceSecretSchema, registrationSchema } from './schemas'

/** How far a registration's timestamp may be from the server's clock. */
export const REGISTRATION_WINDOW_MS = 5 * 60_000
/**
 * How long a registration's nonce is remembered: its request is accepted from a window before its
 * timestamp to a window after, so a copy may come up to twice the window after the original.
 */
const NONCE_TTL_SECONDS = (2 * REGISTRATION_WINDOW_MS) / 1000

/** A device row as it starts: registered, never connected (state inactive). */
export function newDeviceRow(d: { sn: string; modelId: number; secretHash: string; createBy: string }): Insertable<IotDeviceTable> {
  return {
    sn: d.sn,
    uuid: randomUUID(),
    modelId: d.modelId,
    secretHash: d.secretHash,
    state: 'inactive',
    online: 0,
    activated: 0,
    lastSeenAt: null,
    activatedAt: null,
    firmwareVersion: '',
    hardwareVersion: '',
    configVersion: '',
    thingModel: '',
    flowState: 'normal',
    bindState: 'unbound',
    simNumber: '',
    simUsedMb: null,
    simLimitMb: null,
    remainingFlow: null,
    transportMode: 'off',
    battery: null,
    signal: null,
    latitude: null,
    longitude: null,
    createBy: d.createBy,
    createTime: new Date().toISOString(),
    updateBy: '',
    updateTime: null,
    remark: '',
  }
}

/** An SN starts with its model's prefix (VL000123 for prefix VL). */
async function assertSnPrefix(db: Kysely<Database> | Transaction<Database>, sn: string, modelId: number) {
  const q = db as Kysely<Database>
  const model = await q.selectFrom('iotModel').select('snPrefix').where('modelId', '=', modelId).executeTakeFirst()
  if (model && !sn.startsWith(model.snPrefix)) throw badRequest('iot.device.snPrefix', { prefix: model.snPrefix }, { errors: [{ field: 'sn' }] })
}

const registrationBody = z.object({
  productId: z.string().min(1).max(64),
  sn: z.string().min(1).max(32),
  timestamp: z.number().int().positive(),
  nonce: z.string().regex(REGISTRATION_NONCE_PATTERN, {
    message: bilingual({ en_US: 'nonce must be 16 to 64 letters, digits, - or _', zh_CN: 'nonce 必须是 16 到 64 位字母、数字、- 或 _' }),
  }),
  sign: z.string().regex(/^[0-9a-fA-F]{64}$/, { message: bilingual({ en_US: 'sign must be 64 hex digits', zh_CN: 'sign 必须是 64 位十六进制' }) }),
})

/**
 * A registration refused: its message for people, and `data.reason`, one of REGISTRATION_REFUSALS,
 * for the device's code to act on (docs/iot-protocol.md › Registration's answers).
 */
const refusal = (status: 400 | 403 | 409, key: MessageKey, params: MessageParams, reason: RegistrationRefusal, field?: string) =>
  new AppError(status, key, params, status, { reason, ...(field ? { errors: [{ field }] } : {}) })

/** hex(HMAC-SHA256(key, productId:sn:timestamp:nonce)), as devices sign (docs/iot-protocol.md, Registration). */
export const registrationSignature = (key: string, request: Parameters<typeof registrationSigningText>[0]) =>
  createHmac('sha256', key).update(registrationSigningText(request)).digest('hex')

/**
 * IoT devices (SPEC §3): the entity's routes, where an added device gets its UUID and a secret shown
 * once; a secret reset and a deletion end the device's live connection. Devices may also register
 * themselves with a signature made with their model's registration key.
 */
export function registerDevices(app: FastifyInstance, services: Services) {
  const { db, config, kv } = services
  const api = app.withTypeProvider<ZodTypeProvider>()
  const tags = [iotEntities.iotDevice.label.en_US]
  const module = iotEntities.iotDevice.label.en_US
  registerEntityRoutes(app, services, iotEntities.iotDevice, {
    actions: { conformance: conformanceAction(app), ...stolenActions(app, services) },
    beforeCreate: async ({ tx, values, columns, context }) => {
      await assertSnPrefix(tx, String(values.sn), Number(values.modelId))
      values.uuid = randomUUID()
      // Imported devices get one too: an admin resets it to learn it.
      const { secret, secretHash } = issueSecret()
      columns.secretHash = secretHash
      // Only the hash is stored; the plain secret reaches the answer through the write's context.
      context.secret = secret
    },
    afterCreate: async ({ row, context }) => {
      row.secret = context.secret
    },
    addedFields: deviceSecretSchema.shape,
    beforeUpdate: async ({ tx, before, values }) => {
      if (values.modelId !== undefined && Number(values.modelId) !== Number(before.modelId)) await assertSnPrefix(tx, String(before.sn), Number(values.modelId))
    },
    afterCommit: async (change) => {
      if (change.op === 'update' && Number(change.after.modelId) !== Number(change.before.modelId)) app.iot.gateway.forget(String(change.after.sn))
      if (change.op === 'remove') {
        for (const row of change.rows) {
          app.iot.gateway.forget(String(row.sn))
          app.iot.kick(String(row.sn))
        }
      }
    },
  })

  api.put(
    '/iot/device/:id/secret',
    {
      config: { permission: 'iot:device:edit', stepUp: true, audit: { module, businessType: BusinessType.update } },
      schema: {
        tags,
        summary: 'Issue a new device secret (shown once); the device is disconnected and must connect with it',
        params: idParam,
        response: { 200: envelope(deviceSecretSchema) },
      },
    },
    async (req) => {
      await assertIdsInScope(db, iotEntities.iotDevice, await callerScope(services, caller(req)), [req.params.id])
      const { secret, secretHash } = issueSecret()
      const device = await db
        .updateTable('iotDevice')
        .set({ secretHash, updateBy: req.auth?.userName ?? '', updateTime: new Date().toISOString() })
        .where('deviceId', '=', req.params.id)
        .returning('sn')
        .executeTakeFirst()
      if (!device) throw notFound()
      app.iot.kick(device.sn)
      return ok({ secret }, 'iot.device.secretReset')
    },
  )

  /** The broker's public URL when configured, and the embedded broker's port when there is one. */
  const brokerAddress = () => ({ ...(config.mqttPublicUrl ? { url: config.mqttPublicUrl } : {}), ...(app.iot.broker ? { port: app.iot.broker.port } : {}) })
  /** The interval presence counts silence in: the device needs it to beat often enough. */
  const heartbeatSeconds = () => services.configValues.int(HEARTBEAT_SECONDS_KEY, DEFAULT_HEARTBEAT_SECONDS)

  api.post(
    '/iot/register',
    {
      // Limited per address like sign-in, but a factory line registers a batch from one address, and
      // guessing a signature of a 192-bit key gains nothing from speed: the limit only caps the load.
      config: { permission: PUBLIC, audit: { module: 'IoT device registration', businessType: BusinessType.insert }, rateLimit: { max: 1200, timeWindow: '1 minute' } },
      schema: {
        tags,
        security: [],
        summary:
          'A device registers itself: sign = hex(HMAC-SHA256(registrationKey, productId:sn:timestamp:nonce)), each nonce once; answers its secret and where to connect',
        body: registrationBody,
        response: { 200: envelope(registrationSchema) },
      },
    },
    async (req) => {
      const { productId, sn, timestamp, nonce, sign } = req.body
      if (Math.abs(Date.now() - timestamp) > REGISTRATION_WINDOW_MS) throw refusal(400, 'iot.register.stale', {}, 'E_STALE', 'timestamp')
      if (!SN_PATTERN.test(sn)) throw refusal(400, 'iot.register.badSn', {}, 'E_BAD_SN', 'sn')
      const model = await db.selectFrom('iotModel').select(['modelId', 'snPrefix', 'registrationKey', 'registrationSerials', 'status']).where('productId', '=', productId).executeTakeFirst()
      // An unknown or disabled product is checked against a throwaway key: its answer and its time say nothing more than a bad signature's.
      const key = model?.status === '0' ? model.registrationKey : newRegistrationKey()
      const signed = timingSafeEqual(Buffer.from(registrationSignature(key, { productId, sn, timestamp, nonce }), 'hex'), Buffer.from(sign, 'hex'))
      if (!model || model.status !== '0' || !signed) throw refusal(403, 'iot.register.badSignature', {}, 'E_REFUSED')
      if (!sn.startsWith(model.snPrefix)) throw refusal(400, 'iot.device.snPrefix', { prefix: model.snPrefix }, 'E_SN_PREFIX', 'sn')
      // Only the serials the factory made: a leaked key cannot claim SNs still to be made, which the
      // factory would then find taken.
      if (!serialAnnounced(model.registrationSerials, sn)) throw refusal(403, 'iot.register.notAnnounced', { sn }, 'E_NOT_ANNOUNCED', 'sn')
      // A copy of a signed request (from a log, a proxy, the wire) would otherwise issue a new secret
      // and lock the real device out. Remembered in the shared store, so no other instance takes it either.
      if (!(await kv.setIfAbsent(`iot:register:${sn}:${nonce}`, String(timestamp), NONCE_TTL_SECONDS))) throw refusal(409, 'iot.register.replayed', { sn }, 'E_REPLAYED', 'nonce')

      const { secret, secretHash } = issueSecret()
      await db.transaction().execute(async (tx) => {
        const existing = await tx.selectFrom('iotDevice').select(['deviceId', 'modelId', 'state', 'createBy']).where('sn', '=', sn).executeTakeFirst()
        if (existing) {
          // Only a device that registered itself and never connected may register again: a leaked key
          // must not take over a bike in use, nor replace the secret the factory flashed into a device
          // staff added (in the console or by import) before it first connects.
          if (Number(existing.modelId) !== Number(model.modelId) || existing.state !== 'inactive' || existing.createBy !== 'register') throw refusal(409, 'iot.register.taken', { sn }, 'E_TAKEN', 'sn')
          await tx.updateTable('iotDevice').set({ secretHash, updateBy: 'register', updateTime: new Date().toISOString() }).where('deviceId', '=', existing.deviceId).execute()
          return
        }
        const inserted = await tx
          .insertInto('iotDevice')
          .values(newDeviceRow({ sn, modelId: Number(model.modelId), secretHash, createBy: 'register' }))
          .onConflict((oc) => oc.column('sn').doNothing())
          .returning('deviceId')
          .executeTakeFirst()
        // Registered by another request a moment ago.
        if (!inserted) throw refusal(409, 'iot.register.taken', { sn }, 'E_TAKEN', 'sn')
      })
      // A device that registers again drops the connection it may still hold with its old secret.
      app.iot.kick(sn)
      app.iot.gateway.forget(sn)
      return ok({ sn, secret, mqtt: brokerAddress(), otaKeys: otaPublicKeysOf(services), heartbeatSeconds: await heartbeatSeconds() }, 'iot.register.done', { sn })
    },
  )

  // A registered device (the simulator) asks each time it starts: the embedded broker may have had
  // to take another port since its registration (MQTT_PORT taken), and a stored answer would be stale.
  api.get(
    '/iot/broker',
    {
      config: { permission: PUBLIC, rateLimit: { max: 600, timeWindow: '1 minute' } },
      schema: { tags, security: [], summary: 'Where devices connect now and how often they send a heartbeat: as the registration answer says, without registering', response: { 200: envelope(brokerAnswerSchema) } },
    },
    async () => ok({ ...brokerAddress(), heartbeatSeconds: await heartbeatSeconds() }),
  )
}
