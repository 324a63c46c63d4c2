import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { Services } from '../platform/services'
import { type Credential, DeviceAuthority } from './device-auth'
import { type EmbeddedBroker, startEmbeddedBroker } from './embedded-broker'
import { fileLimitShortfall, readOpenFileLimits } from './file-limit'
import { createIotEvents, type IotEventBus } from './events'
import { type GatewayOptions, MqttGateway } from './gateway'
import { MessageLog, type MessageLogOptions } from './message-log'
import { SharedCommits } from './write-behind'
import { Presence, type PresenceOptions } from './presence'
import { CommandService, type CommandServiceOptions } from './commands'
import { MqDebugger } from './mq-debug'
import { DeviceSync } from './sync'
import { parseTopic } from '@velo/shared'

export interface IotOptions {
  presence?: PresenceOptions
  messageLog?: MessageLogOptions
  gateway?: Pick<GatewayOptions, 'cacheMs' | 'unknownCacheMs' | 'maxPending'>
  /** The Redis channel of live events (default velo:iot:events). */
  eventsChannel?: string
  commands?: Pick<CommandServiceOptions, 'sweepIntervalMs' | 'replyFlushMs'>
}

/** Something built on the gateway core (the commands service, the MQ debugger), closed before it. */
export interface IotPart {
  close(): Promise<void>
}

export interface Iot {
  authority: DeviceAuthority
  /** The in-process broker, or null with an external one (MQTT_URL). */
  broker: EmbeddedBroker | null
  gateway: MqttGateway
  events: IotEventBus
  presence: Presence
  messageLog: MessageLog
  /** SQLite: the transaction the telemetry rows, device state and message log of one moment share (write-behind.ts); undefined on PostgreSQL. */
  commits: SharedCommits | undefined
  /** Commands to devices: sending, queueing, replies, timeouts. */
  commands: CommandService
  /** The administrators' topic watcher and publisher. */
  mqDebugger: MqDebugger
  /** A device asking for what is still pending for it (up/sync, or subscribing on the embedded broker). */
  sync: DeviceSync
  /** Adds a part to close (in reverse order) before the core closes; returns it. */
  attach<P extends IotPart>(part: P): P
  /**
   * Ends a device's live connection (deleted, secret reset, model disabled). Only the embedded broker
   * can be told to; an external one keeps the connection until it drops, but refuses the reconnect.
   */
  kick(sn: string): boolean
  close(): Promise<void>
}

/** user:password of MQTT_URL, which EMQX's auth hook must let in as the server itself. */
function urlCredential(url: string | undefined): Credential | undefined {
  if (!url) return undefined
  const parsed = new URL(url)
  return parsed.username ? { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) } : undefined
}

/**
 * Starts the IoT gateway: the broker's authority, the embedded broker when no MQTT_URL is set, the
 * gateway's MQTT client, live events, device state and the message log.
 */
export async function startIot(services: Services, logger: FastifyBaseLogger, options: IotOptions = {}): Promise<Iot> {
  const { config, db, configValues } = services
  const external = config.mqttUrl
  const internal = external ? undefined : DeviceAuthority.newInternalCredential()
  const authority = new DeviceAuthority(db, [internal, urlCredential(external)])
  const broker = external ? null : await startEmbeddedBroker({ port: config.mqttPort, authority, portFile: join(config.dataDir, 'mqtt-port') })
  const events = await createIotEvents(services.redis, logger, options.eventsChannel)
  const commits = services.dialect === 'sqlite' ? new SharedCommits(db) : undefined
  const messageLog = new MessageLog({ db, events, configValues, logger, commits }, options.messageLog)
  const gateway = new MqttGateway({
    ...options.gateway,
    url: external ?? `mqtt://127.0.0.1:${broker!.port}`,
    credential: internal,
    shareGroup: external ? config.mqttShareGroup : undefined,
    protocolVersion: external ? 5 : 4,
    inProcess: !external,
    clientId: external ? config.mqttGatewayId : undefined,
    sessionExpirySeconds: config.mqttSessionExpiry,
    maxPending: options.gateway?.maxPending ?? config.ingestMaxPending,
    // Messages wait (unacknowledged) until the app has registered every handler: one taken earlier
    // would be acknowledged with nothing there to write it.
    startPaused: true,
    db,
    messageLog,
    logger,
  })
  // Device messages come in process, each acknowledged once written: no loopback client in between.
  broker?.onUp((topic, payload, ack, dup) => void gateway.take(topic, payload, ack, dup))
  const presence = new Presence({ db, dialect: services.dialect, gateway, events, configValues, logger, commits }, options.presence)
  const sync = new DeviceSync(gateway, logger)
  const commands = new CommandService({ ...options.commands, db, dialect: services.dialect, gateway, events, presence, sync, configValues, log: logger })
  // The embedded broker says when a device subscribes to its own down topics: that asks by itself,
  // so a device that announced itself before subscribing (or whose last connection broke) loses nothing.
  broker?.aedes.on('subscribe', (subscriptions, client) => {
    if (!client || !subscriptions.some((s) => { const t = parseTopic(s.topic); return t?.direction === 'down' && t.sn === client.id })) return
    void gateway.findDevice(client.id).then((device) => device && sync.ask(device)).catch((err: unknown) => logger.error({ err, sn: client.id }, 'could not answer a device subscription'))
  })
  const parts: IotPart[] = []

  const iot: Iot = {
    authority,
    broker,
    gateway,
    events,
    presence,
    messageLog,
    commits,
    commands,
    mqDebugger: new MqDebugger(gateway),
    sync,
    attach(part) {
      parts.push(part)
      return part
    },
    kick: (sn) => broker?.disconnect(sn) ?? false,
    async close() {
      // What was taken in is written and acknowledged first; what waits is left with the devices (or the broker).
      const drained = await gateway.stopTaking()
      if (!drained) logger.warn({ ...gateway.gate.stats }, 'device messages still being written at shutdown were not acknowledged: their devices send them again')
      for (const part of parts.splice(0).reverse()) await part.close().catch((err) => logger.error({ err }, 'closing an IoT part failed'))
      sync.close()
      await gateway.close()
      await presence.close()
      await messageLog.close()
      await events.close()
      await broker?.close()
    },
  }

  try {
    if (broker) {
      // Nobody can be connected to a broker that has just started: whatever the rows say from the last run is over.
      await presence.sweep(new Date().toISOString())
      await gateway.ready()
      void warnIfFewFiles(db, logger)
    } else {
      // An external broker that is down must not stop the start: the gateway keeps trying.
      void gateway.ready().then(() => logger.info(`IoT gateway subscribed at ${new URL(external!).host}`))
      // The registration answer would tell devices nowhere to connect (mqtt: {}): say so at the start, not at the first bike.
      if (!config.mqttPublicUrl) logger.warn('MQTT_URL is set but MQTT_PUBLIC_URL is not: devices that register are not told where the broker is (docs/iot-protocol.md › Where to connect)')
    }
    iot.attach(commands.start())
    // Devices silent too long go offline; sent commands past their deadline time out.
    services.jobs.every({ key: 'devicePresence', every: options.presence?.sweepEveryMs ?? '10s', run: () => presence.sweep() })
    services.jobs.every({ key: 'commandDeadlines', every: commands.sweepIntervalMs, run: () => commands.sweep() })
  } catch (err) {
    await iot.close()
    throw err
  }
  return iot
}

/**
 * Says once, at the start, when the open-file limit leaves the embedded broker fewer device
 * connections than the fleet registered (or MIN_EXPECTED_DEVICES): past it devices connect and drop
 * in a loop, which shows nowhere else until the fleet grows (file-limit.ts).
 */
async function warnIfFewFiles(db: Services['db'], logger: FastifyBaseLogger) {
  const limits = readOpenFileLimits()
  if (!limits) return
  try {
    const row = await db.selectFrom('iotDevice').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst()
    const short = fileLimitShortfall(limits, Number(row?.n ?? 0))
    if (short) logger.warn(short, `the open-file limit (${short.limit}) leaves the embedded MQTT broker room for about ${short.devices} device connections, fewer than the ${short.expected} expected: raise it to ${short.needed} or more (systemd LimitNOFILE=, docker --ulimit nofile=; docs/ops/capacity.md › Open files)`)
  } catch (err) {
    logger.debug({ err }, 'could not count the devices for the open-file check')
  }
}
