import type { DeviceOptions, SimulatedDevice } from '@velo/device-sim'
import { type CommandEvent, type CommandOutcome, type CommandPayload, type DeviceCommandOption, downFilter, downTopic, type SendCommandResult, upTopic } from '@velo/shared'
import mqtt, { type MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { limitedUser, type Refusal, useTestApp } from './harness'
import { SYNC_MIN_INTERVAL_MS } from '../src/gateway/sync'
import { brokerUrl, clearRetained, demoModelId, randomSn, simulated, waitFor } from './iot-helpers'

// Commands end to end: the console's API, the gateway, a real MQTT broker (embedded, or
// TEST_MQTT_URL through the harness) and the reference device. Nothing is mocked.

const t = useTestApp()
const devices: SimulatedDevice[] = []
const clients: { client: MqttClient; sn: string }[] = []
const events: CommandEvent[] = []
let modelId = 0
let otherModelId = 0

const until = <T>(what: string, check: () => T | Promise<T>, timeoutMs?: number) => waitFor(check, what, timeoutMs)

/** Added through the API, as the console does: the secret is in its answer, once. */
async function registerDevice(model = modelId): Promise<{ deviceId: number; sn: string; secret: string }> {
  const sn = randomSn()
  const res = await t.call<{ secret: string }>({ method: 'POST', url: '/api/iot/device', token: t.admin, body: { sn, modelId: model } })
  expect(res.code, res.msg).toBe(200)
  const deviceId = Number((await t.app.services.db.selectFrom('iotDevice').select('deviceId').where('sn', '=', sn).executeTakeFirstOrThrow()).deviceId)
  return { deviceId, sn, secret: res.data.secret as string }
}

const isOnline = async (deviceId: number) => {
  const row = await t.app.services.db.selectFrom('iotDevice').select('online').where('deviceId', '=', deviceId).executeTakeFirst()
  return Boolean(row?.online)
}

/** A registered device, connected and seen online by the server, unless `offline`. */
async function device(behaviour: Partial<DeviceOptions> = {}, o: { offline?: boolean; model?: number } = {}) {
  const reg = await registerDevice(o.model)
  const sim = simulated(t.app, reg, behaviour)
  devices.push(sim)
  if (!o.offline) await connect(sim, reg.deviceId)
  return { ...reg, sim }
}

async function connect(sim: SimulatedDevice, deviceId: number) {
  await sim.connect()
  await until(`${sim.sn} online`, () => isOnline(deviceId))
}

const commandRow = (commandId: number) => t.app.services.db.selectFrom('iotCommand').selectAll().where('commandId', '=', commandId).executeTakeFirstOrThrow()
const commandCount = async () => Number((await t.app.services.db.selectFrom('iotCommand').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

async function finalRow(commandId: number, status: string) {
  return until(`command ${commandId} ${status}`, async () => {
    const row = await commandRow(commandId)
    return row.status === status ? row : null
  })
}

function send<T = SendCommandResult>(body: Record<string, unknown>, token = t.admin, lang?: 'en_US' | 'zh_CN') {
  return t.call<T>({ method: 'POST', url: '/api/iot/device/command', token, body, lang })
}

beforeAll(async () => {
  const db = t.app.services.db
  modelId = await demoModelId(t)
  // A model with no functions: it supports the base commands only.
  const now = new Date().toISOString()
  otherModelId = Number(
    (
      await db
        .insertInto('iotModel')
        .values({ productId: 'BARE-1', name: 'Bare module', provider: '', tag: '', productCode: 'BR', snPrefix: 'VL', supportsAudio: 0, bikeModels: '', registrationKey: 'k'.repeat(32), status: '0', createBy: 'test', createTime: now, updateBy: '', updateTime: null, remark: '' })
        .returning('modelId')
        .executeTakeFirstOrThrow()
    ).modelId,
  )
  t.app.iot.events.subscribe((e) => {
    if (e.type === 'command') events.push(e.data)
  })
})

afterAll(async () => {
  await Promise.all(devices.map((d) => d.disconnect().catch(() => {})))
  await Promise.all(clients.map((c) => c.client.endAsync().catch(() => {})))
  await clearRetained(
    t.app,
    clients.map((c) => c.sn),
  )
})

describe('device commands', () => {
  it('goes sent → delivered → succeeded, with the reply and its round trip, and the device sees the payload', async () => {
    // Accepted and succeeded far enough apart to be written in two batches (and seen as two events).
    const d = await device({ replyLatencyMs: 150 })
    const seen = d.sim.nextCommand('ping')
    const res = await send({ deviceIds: [d.deviceId], command: 'ping' })
    expect(res.code, res.msg).toBe(200)
    expect(res.msg).toBe('Command sent')
    expect(res.data).toMatchObject({ sent: 1, queued: 0, commands: [{ deviceId: d.deviceId, sn: d.sn, status: 'sent' }] })
    const { commandId, requestId } = res.data.commands[0]!

    const payload: CommandPayload = await seen
    expect(payload).toMatchObject({ v: 1, id: requestId, name: 'ping', params: {} })
    expect(payload.expiresAt).toBeGreaterThan(Date.now())

    const row = await finalRow(commandId, 'succeeded')
    expect(row.deliveredAt).toBeTruthy()
    expect(row.repliedAt).toBeTruthy()
    expect(row.roundTripMs).toBeGreaterThanOrEqual(140)
    expect(row.roundTripMs).toBe(Date.parse(row.repliedAt!) - Date.parse(row.sentAt!))
    expect(Date.parse(row.deadlineAt!) - Date.parse(row.sentAt!)).toBe(30_000)
    const reply = JSON.parse(row.reply!)
    expect(reply).toMatchObject({ id: requestId, status: 'succeeded', code: 0 })
    expect(reply.result.pong).toEqual(expect.any(Number))

    await until('the events', () => events.some((e) => e.commandId === commandId && e.status === 'succeeded'))
    const statuses = events.filter((e) => e.commandId === commandId).map((e) => e.status)
    expect(statuses).toEqual(['sent', 'delivered', 'succeeded'])
    expect(events.find((e) => e.commandId === commandId && e.status === 'succeeded')).toMatchObject({ deviceId: d.deviceId, command: 'ping', roundTripMs: row.roundTripMs, reply: row.reply })
  })

  it('records a failure the device reports', async () => {
    const d = await device({ failureRate: 1 })
    const res = await send({ deviceIds: [d.deviceId], command: 'locate' })
    expect(res.code, res.msg).toBe(200)
    const row = await finalRow(res.data.commands[0]!.commandId, 'failed')
    expect(JSON.parse(row.reply!)).toMatchObject({ status: 'failed', code: 500, message: 'Simulated failure' })
    expect(row.roundTripMs).toEqual(expect.any(Number))
  })

  it('times out a command the device never answers, and a late reply does not change that', async () => {
    const d = await device({ silentCommands: ['report'] })
    const res = await send({ deviceIds: [d.deviceId], command: 'report', timeoutSeconds: 1 })
    const { commandId, requestId } = res.data.commands[0]!
    const row = await finalRow(commandId, 'timedOut')
    expect(row.repliedAt).toBeNull()
    expect(Date.parse(row.updateTime!)).toBeGreaterThanOrEqual(Date.parse(row.deadlineAt!))

    await d.sim.publish('reply', { id: requestId, status: 'accepted' })
    await d.sim.publish('reply', { id: requestId, status: 'succeeded', code: 0 })
    const late = await until('the late reply kept', async () => {
      const r = await commandRow(commandId)
      return r.reply !== null ? r : null
    })
    expect(late.status).toBe('timedOut')
    expect(late.roundTripMs).toBeNull()
    expect(JSON.parse(late.reply!)).toMatchObject({ status: 'succeeded' })
  })

  it('ignores a reply naming another device’s request', async () => {
    const owner = await device({ silentCommands: ['ping'] })
    const other = await device()
    const res = await send({ deviceIds: [owner.deviceId], command: 'ping', timeoutSeconds: 30 })
    const { commandId, requestId } = res.data.commands[0]!
    await other.sim.publish('reply', { id: requestId, status: 'succeeded', code: 0 })
    // The owner's own (genuine) answer still lands afterwards: the impostor changed nothing.
    await owner.sim.publish('reply', { id: requestId, status: 'failed', code: 1 })
    const row = await finalRow(commandId, 'failed')
    expect(JSON.parse(row.reply!)).toMatchObject({ code: 1 })
  })

  it('queues a command for an offline device and sends it when the device comes back', async () => {
    const d = await device({}, { offline: true })
    const res = await send({ deviceIds: [d.deviceId], command: 'ping' })
    expect(res.code, res.msg).toBe(200)
    expect(res.msg).toBe('The device is offline: the command is queued until it comes back online')
    expect(res.data).toMatchObject({ sent: 0, queued: 1, commands: [{ status: 'queued' }] })
    const { commandId, requestId } = res.data.commands[0]!
    const queued = await commandRow(commandId)
    expect(queued).toMatchObject({ status: 'queued', sentAt: null, deadlineAt: null })

    const seen = d.sim.nextCommand('ping')
    await d.sim.connect()
    expect((await seen).id).toBe(requestId)
    const row = await finalRow(commandId, 'succeeded')
    expect(row.sentAt).toBeTruthy()
  })

  it('expires a queued command past its lifetime and never delivers it', async () => {
    const d = await device({}, { offline: true })
    const res = await send({ deviceIds: [d.deviceId], command: 'report', expireMinutes: 1 })
    const { commandId, requestId } = res.data.commands[0]!
    expect(Date.parse((await commandRow(commandId)).expiresAt) - Date.now()).toBeGreaterThan(50_000)
    // A minute is long for a test: the queue lifetime is moved into the past instead.
    await t.app.services.db.updateTable('iotCommand').set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where('commandId', '=', commandId).execute()
    await finalRow(commandId, 'expired')
    await until('the expired event', () => events.some((e) => e.commandId === commandId && e.status === 'expired'))

    await connect(d.sim, d.deviceId)
    // Commands reach a device in order: once a later one has made the round trip, the expired one is not coming.
    const ping = await send({ deviceIds: [d.deviceId], command: 'ping' })
    await finalRow(ping.data.commands[0]!.commandId, 'succeeded')
    expect(d.sim.received.map((r) => r.command.id)).not.toContain(requestId)
    expect((await commandRow(commandId)).status).toBe('expired')
  })

  it('refuses a function command a device’s model does not offer, naming the devices, and stores nothing', async () => {
    const ok = await device({}, { offline: true })
    const bare = await device({}, { offline: true, model: otherModelId })
    const before = await commandCount()
    const res = await send<Refusal>({ deviceIds: [ok.deviceId, bare.deviceId], command: 'lock' })
    expect(res.status).toBe(400)
    expect(res.msg).toBe(`1 device does not support the command "lock": ${bare.sn}`)
    expect(res.data.errors[0]!.field).toBe('deviceIds')
    const zh = await send({ deviceIds: [bare.deviceId], command: 'playAudio', params: { audio: 'welcome' } }, t.admin, 'zh_CN')
    expect(zh.status).toBe(400)
    expect(zh.msg).toBe(`1 台设备不支持指令“playAudio”：${bare.sn}`)
    // No enabled function of the demo model opens playAudio either.
    expect((await send({ deviceIds: [ok.deviceId], command: 'playAudio', params: { audio: 'welcome' } })).status).toBe(400)
    expect(await commandCount()).toBe(before)
  })

  it('follows the function: once it is disabled its command is refused', async () => {
    const d = await device({}, { offline: true })
    const db = t.app.services.db
    await db.updateTable('iotFunction').set({ status: '1' }).where('command', '=', 'findBike').execute()
    try {
      expect((await send({ deviceIds: [d.deviceId], command: 'findBike' })).status).toBe(400)
      const list = await t.call<DeviceCommandOption[]>({ url: `/api/iot/device/${d.deviceId}/commands`, token: t.admin })
      expect(list.data.map((c: { name: string }) => c.name)).not.toContain('findBike')
    } finally {
      await db.updateTable('iotFunction').set({ status: '0' }).where('command', '=', 'findBike').execute()
    }
  })

  it('refuses bad parameters with field errors and stores nothing', async () => {
    const d = await device({}, { offline: true })
    const before = await commandCount()
    const res = await send<Refusal>({ deviceIds: [d.deviceId], command: 'reboot', params: { delaySeconds: 999, bogus: 1 } })
    expect(res.status).toBe(400)
    const fields = res.data.errors.map((e: { field: string }) => e.field).sort()
    expect(fields).toEqual(['params.bogus', 'params.delaySeconds'])
    const zh = await send<Refusal>({ deviceIds: [d.deviceId], command: 'setConfig', params: { version: '' } }, t.admin, 'zh_CN')
    expect(zh.status).toBe(400)
    expect(zh.data.errors.map((e: { field: string }) => e.field).sort()).toEqual(['params.values', 'params.version'])
    expect(zh.msg).toMatch(/^请求参数有误/)
    // Unknown devices and commands are refused at the door too.
    const missing = await send({ deviceIds: [d.deviceId, 99_999_999], command: 'ping' })
    expect(missing.status).toBe(400)
    expect(missing.msg).toBe('1 device does not exist: 99999999')
    expect((await send({ deviceIds: [d.deviceId], command: 'selfDestruct' })).status).toBe(400)
    expect((await send({ deviceIds: [], command: 'ping' })).status).toBe(400)
    expect(await commandCount()).toBe(before)
  })

  it('sends one command to many devices in one call', async () => {
    const online = await Promise.all(Array.from({ length: 5 }, () => device({ replyLatencyMs: 10 })))
    const offline = await device({}, { offline: true })
    const res = await send({ deviceIds: [...online.map((d) => d.deviceId), offline.deviceId], command: 'lock' })
    expect(res.code, res.msg).toBe(200)
    expect(res.msg).toBe('Command sent to 6 devices (1 offline: queued until it comes back online)')
    expect(res.data).toMatchObject({ sent: 5, queued: 1 })
    expect(new Set(res.data.commands.map((c: { requestId: string }) => c.requestId)).size).toBe(6)
    for (const c of res.data.commands.filter((c: { status: string }) => c.status === 'sent')) await finalRow(c.commandId, 'succeeded')
    for (const d of online) expect(d.sim.received.at(-1)!.command.name).toBe('lock')
    expect((await commandRow(res.data.commands.find((c: { status: string }) => c.status === 'queued')!.commandId)).status).toBe('queued')

    const zh = await send({ deviceIds: online.map((d) => d.deviceId), command: 'unlock' }, t.admin, 'zh_CN')
    expect(zh.msg).toBe('指令已发送到 5 台设备')
  })

  it('says "Reboot command sent" when every device got it', async () => {
    const a = await device()
    const b = await device()
    const res = await t.call<SendCommandResult>({ method: 'POST', url: '/api/iot/device/reboot', token: t.admin, body: { deviceIds: [a.deviceId, b.deviceId] } })
    expect(res.code, res.msg).toBe(200)
    expect(res.msg).toBe('Reboot command sent')
    expect(res.data).toMatchObject({ sent: 2, queued: 0 })
    for (const c of res.data.commands) await finalRow(c.commandId, 'succeeded')
    expect(a.sim.received.at(-1)!.command).toMatchObject({ name: 'reboot', params: {} })

    const offline = await device({}, { offline: true })
    const zh = await t.call({ method: 'POST', url: '/api/iot/device/reboot', token: t.admin, lang: 'zh_CN', body: { deviceIds: [offline.deviceId] } })
    expect(zh.msg).toBe('重启指令已排队：设备离线，上线后下发')
    const en = await t.call({ method: 'POST', url: '/api/iot/device/reboot', token: t.admin, body: { deviceIds: [offline.deviceId] } })
    expect(en.msg).toBe('Reboot command queued: the device is offline and gets it when it comes back online')
    const op = await t.app.services.db.selectFrom('sysOperLog').selectAll().where('operUrl', '=', '/api/iot/device/reboot').orderBy('operId', 'desc').executeTakeFirst()
    expect(op?.title).toBe('IoT command')
  })

  it('lists the commands a device supports, in the caller’s language', async () => {
    const d = await device({}, { offline: true })
    const bare = await device({}, { offline: true, model: otherModelId })
    const res = await t.call<DeviceCommandOption[]>({ url: `/api/iot/device/${d.deviceId}/commands`, token: t.admin, lang: 'zh_CN' })
    expect(res.code).toBe(200)
    const names = res.data.map((c: { name: string }) => c.name)
    expect(names).toEqual(expect.arrayContaining(['reboot', 'ping', 'report', 'setConfig', 'lock', 'unlock', 'findBike', 'locate', 'setAlarm', 'transportMode']))
    expect(names).not.toContain('playAudio')
    expect(res.data.find((c: { name: string }) => c.name === 'reboot')).toEqual({ name: 'reboot', label: '重启', base: true, confirm: true, example: { delaySeconds: 0 } })
    const bareList = await t.call<DeviceCommandOption[]>({ url: `/api/iot/device/${bare.deviceId}/commands`, token: t.admin })
    expect(bareList.data.map((c: { name: string }) => c.name)).toEqual(['reboot', 'ping', 'report', 'setConfig'])
    expect((await t.call({ url: '/api/iot/device/99999999/commands', token: t.admin })).status).toBe(404)
  })

  it('needs iot:device:command to send and iot:commandTest:send to test', async () => {
    const d = await device({}, { offline: true })
    const viewer = await limitedUser(t, { userName: 'iotviewer', perms: ['iot:device:list', 'iot:device:query'], dataScope: '1' })
    expect((await t.call({ url: `/api/iot/device/${d.deviceId}/commands`, token: viewer.token })).code).toBe(200)
    const before = await commandCount()
    const refused = await send({ deviceIds: [d.deviceId], command: 'ping' }, viewer.token)
    expect(refused.status).toBe(403)
    expect((await t.call({ method: 'POST', url: '/api/iot/device/reboot', token: viewer.token, body: { deviceIds: [d.deviceId] } })).status).toBe(403)
    expect((await t.call({ method: 'POST', url: '/api/iot/commandTest/send', token: viewer.token, body: { deviceId: d.deviceId, command: 'ping' } })).status).toBe(403)
    expect(await commandCount()).toBe(before)

    const operator = await limitedUser(t, { userName: 'iotoperator', perms: ['iot:device:command'], dataScope: '1' })
    expect((await send({ deviceIds: [d.deviceId], command: 'ping' }, operator.token)).code).toBe(200)
    expect((await t.call({ url: `/api/iot/device/${d.deviceId}/commands`, token: operator.token })).status).toBe(403)
  })
})

describe('a device asking for what is pending (docs/iot-protocol.md › sync)', () => {
  /** A device that announces itself before it subscribes: what the server publishes meanwhile reaches nobody. */
  async function announcedUnsubscribed() {
    const reg = await registerDevice()
    const client = await mqtt.connectAsync(brokerUrl(t.app), { clientId: reg.sn, username: reg.sn, password: reg.secret, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 })
    clients.push({ client, sn: reg.sn })
    const received: CommandPayload[] = []
    client.on('message', (topic, payload) => {
      if (topic === downTopic(reg.sn, 'command')) received.push(JSON.parse(payload.toString()) as CommandPayload)
    })
    await client.publishAsync(upTopic(reg.sn, 'presence'), JSON.stringify({ v: 1, state: 'online' }), { qos: 1, retain: true })
    await until(`${reg.sn} online`, () => isOnline(reg.deviceId))
    const res = await send({ deviceIds: [reg.deviceId], command: 'ping' })
    expect(res.data).toMatchObject({ sent: 1 })
    const { commandId, requestId } = res.data.commands[0]!
    await t.app.iot.messageLog.flush()
    const reply = (status: string) => client.publishAsync(upTopic(reg.sn, 'reply'), JSON.stringify({ v: 1, id: requestId, status, code: 0 }), { qos: 1 })
    return { ...reg, client, received, commandId, requestId, reply }
  }

  it('sends a command published before the device subscribed again when it asks with up/sync, once per ask interval', async () => {
    const d = await announcedUnsubscribed()
    // Subscribed now; on the embedded broker that alone asks (next test): here the device asks itself.
    await d.client.subscribeAsync(downFilter(d.sn), { qos: 1 })
    await d.client.publishAsync(upTopic(d.sn, 'sync'), JSON.stringify({ v: 1 }), { qos: 1 })
    await until('the command again', () => d.received.find((c) => c.id === d.requestId))
    // Asked again at once: answered once the ask interval has passed, not at once (a device cannot
    // make the server replay its queue in a loop), and with it again while unanswered.
    const asked = Date.now()
    await d.client.publishAsync(upTopic(d.sn, 'sync'), JSON.stringify({ v: 1 }), { qos: 1 })
    await until('the command a second time', () => d.received.filter((c) => c.id === d.requestId).length >= 2)
    expect(Date.now() - asked).toBeGreaterThanOrEqual(SYNC_MIN_INTERVAL_MS - 500)
    await d.reply('succeeded')
    const row = await finalRow(d.commandId, 'succeeded')
    expect(row.roundTripMs).not.toBeNull()
    // Answered: an ask does not send it again.
    expect(await t.app.iot.commands.sendUnanswered({ deviceId: d.deviceId, sn: d.sn, modelId })).toBe(0)
  })

  it('on the embedded broker, subscribing to its down topics asks by itself', async (ctx) => {
    if (!t.app.broker) ctx.skip()
    const d = await announcedUnsubscribed()
    expect(d.received).toEqual([])
    await d.client.subscribeAsync(downFilter(d.sn), { qos: 1 })
    const again = await until('the command again', () => d.received.find((c) => c.id === d.requestId))
    expect(again).toMatchObject({ name: 'ping' })
    await d.reply('succeeded')
    await finalRow(d.commandId, 'succeeded')
  })
})

describe('command test', () => {
  const test = (body: Record<string, unknown>) => t.call<CommandOutcome>({ method: 'POST', url: '/api/iot/commandTest/send', token: t.admin, body })

  it('waits for the device and returns its answer', async () => {
    const d = await device({ replyLatencyMs: 100 })
    const res = await test({ deviceId: d.deviceId, command: 'setConfig', params: { version: '2.0.0', values: { heartbeatSeconds: 60 } } })
    expect(res.code, res.msg).toBe(200)
    expect(res.data).toMatchObject({ deviceId: d.deviceId, command: 'setConfig', status: 'succeeded', roundTripMs: expect.any(Number), sentAt: expect.any(String), repliedAt: expect.any(String) })
    expect(res.msg).toBe(`The device answered: succeeded (${res.data.roundTripMs} ms)`)
    expect(JSON.parse(res.data.reply!)).toMatchObject({ status: 'succeeded', result: { configVersion: '2.0.0' } })
    expect(d.sim.behaviour.configVersion).toBe('2.0.0')
  })

  it('comes back at once with a queued command for an offline device, and reports a timeout', async () => {
    const offline = await device({}, { offline: true })
    const started = Date.now()
    const queued = await test({ deviceId: offline.deviceId, command: 'ping' })
    expect(queued.data.status).toBe('queued')
    expect(queued.msg).toBe('The device is offline: the command is queued until it comes back online')
    expect(Date.now() - started).toBeLessThan(2000)

    const silent = await device({ silentCommands: ['ping'] })
    const timedOut = await test({ deviceId: silent.deviceId, command: 'ping', timeoutSeconds: 1 })
    expect(timedOut.data.status).toBe('timedOut')
    expect(timedOut.msg).toBe('The device did not answer within 1 s')
  })
})
