import { createHash, type Hash } from 'node:crypto'
import {
  crc8,
  crc8Hex,
  decodeOtaBlock,
  decodeOtaBlockError,
  type OtaBlockError,
  OTA_COMMIT_SECONDS,
  OTA_MAX_BLOCKS_PER_REQUEST,
  type OtaDeviceStage,
  otaDownPayload,
  type OtaOfferPayload,
  type OtaKeysPayload,
  type OtaProgressPayload,
  type OtaPublicKey,
  type StatusPayload,
} from '@velo/shared'
import { acceptKeySet, checkManifest, type DeviceIdentity, firstKeySet } from './manifest'

/** How a simulated module performs upgrades (docs/iot-protocol.md › OTA, version 2). */
/** How long a device waits for the fresh link it asked for before it carries on over MQTT blocks. */
const LINK_RENEWAL_WAIT_MS = 5000

export interface OtaBehaviour {
  /** Download speed, bytes per second; 0: as fast as the blocks come. */
  otaBytesPerSecond: number
  /** Blocks asked for in one request (1–32). */
  otaWindow: number
  /** Milliseconds without the blocks asked for before asking again from the first missing one. */
  otaRetryMs: number
  /** Drops the connection once per upgrade after this many blocks (then reconnects and resumes); 0: never. */
  otaDropAfterBlocks: number
  /** The image is damaged on its way to flash: every block passes its CRC-8, the SHA-256 check fails (E_VERIFY_SHA256). */
  otaCorrupt: boolean
  /** Installing fails with this code (E_FLASH_WRITE, …); empty: it installs. */
  otaInstallFailCode: string
  /**
   * After the reboot the module still reports the version it ran before, and says nothing of a trial
   * (the new image did not take, and the firmware does not know it): the server's status rule judges it.
   */
  otaKeepOldVersion: boolean
  /** Milliseconds the self-test takes after the reboot into the new image, before the commit. */
  otaSelfTestMs: number
  /** The self-test fails: the module rolls back to the image it ran before (rolledBack, E_SELF_TEST). */
  otaSelfTestFail: boolean
  /** The self-test never ends (it hangs): past the offer's commitSeconds the module rolls back by itself (E_COMMIT_TIMEOUT). */
  otaNeverCommit: boolean
  /** Downloads through the offer's HTTPS link (byte ranges) instead of MQTT blocks, while the link is valid. */
  otaUseHttp: boolean
  /** The server's HTTP origin the offer's link is relative to (http://host:port). */
  httpOrigin: string
  /** Milliseconds spent installing, and a part other than the IoT module rebooting. */
  otaInstallMs: number
  /** The bike is being ridden: offers are refused (riding). */
  riding: boolean
  /** SIM data is low: offers are refused (simDataLow). Also refused when less data is left than the image's size. */
  simDataLow: boolean
  /** What the display, BMS and ECU run (reported in status `parts`). */
  parts: NonNullable<StatusPayload['parts']>
  /** The audio files the module holds, IoT name → version (reported in status `audio`). */
  audio: Record<string, string>
  /** The public keys it trusts for OTA manifests (from its registration, then key updates); replaced whole, never changed in place. */
  otaKeys: OtaPublicKey[]
  /** When the key set it holds was issued (0: the registration's): an older update is refused. */
  otaKeysIssuedAt: number
  /** GET {API}/iot/ota-keys, asked when an offer names a key it does not know; empty: never asked. */
  otaKeysUrl: string
  /** Damages each offer's signature before checking it: the upgrade fails with E_SIGNATURE, nothing downloaded. */
  otaBadSignature: boolean
  /** Takes no offer at all (keys and aborts still): a test that reports an upgrade's stages by hand. */
  otaIgnoreOffers: boolean
  /** Fault: takes every block whatever its CRC-8 says, so a damaged block is never asked for again (the SHA-256 then fails). */
  otaIgnoreCrc: boolean
  /** Fault: after a dropped connection the download starts again from block 0 instead of the first missing block. */
  otaNoResume: boolean
  /** Fault: takes an offer whose manifest signature does not verify (and downloads it). */
  otaIgnoreSignature: boolean
  /** Fault: an abort is not answered and the download goes on. */
  otaIgnoreAbort: boolean
}

export const OTA_DEFAULTS: OtaBehaviour = {
  otaBytesPerSecond: 0,
  otaWindow: 8,
  otaRetryMs: 2000,
  otaDropAfterBlocks: 0,
  otaCorrupt: false,
  otaInstallFailCode: '',
  otaKeepOldVersion: false,
  otaSelfTestMs: 20,
  otaSelfTestFail: false,
  otaNeverCommit: false,
  otaUseHttp: false,
  httpOrigin: '',
  otaInstallMs: 20,
  riding: false,
  simDataLow: false,
  parts: { display: { version: '1.0.0' }, bms: { version: '1.0.0' }, ecu: { version: '1.0.0' } },
  audio: {},
  otaKeys: [],
  otaKeysIssuedAt: 0,
  otaKeysUrl: '',
  otaBadSignature: false,
  otaIgnoreOffers: false,
  otaIgnoreCrc: false,
  otaNoResume: false,
  otaIgnoreSignature: false,
  otaIgnoreAbort: false,
}

/**
 * How an upgrade ended on the device: installed (a firmware committed after its self-test; it then
 * reports the version it runs), rolledBack (back to the image it ran before, with the code why), or not.
 */
export interface OtaOutcome {
  id: string
  result: 'installed' | 'rolledBack' | 'rejected' | 'failed' | 'aborted'
  code?: string
}

/** One upgrade as the module sees it; kept by id across reconnects and reboots, so a download resumes. */
export interface OtaState {
  id: string
  offer: OtaOfferPayload
  stage: OtaDeviceStage | 'installed'
  /** Blocks received in order and summed: the next one asked for is this. */
  next: number
  /** Distinct blocks received (in order, or held until the gap before them is filled). */
  blocksReceived: number
  /** Block frames received, duplicates included. */
  framesReceived: number
  /** Frames refused: wrong CRC-8, wrong size. */
  badFrames: number
  /** Image bytes that arrived, duplicates and refused blocks included (what the download cost). */
  bytesReceived: number
  code?: string
}

/** What the upgrade needs of its module. */
export interface OtaHost {
  readonly sn: string
  readonly behaviour: { firmwareVersion: string; hardwareVersion: string; battery: number; simUsedMb: number; simLimitMb: number } & OtaBehaviour
  readonly connected: boolean
  /** The module is shutting down: stop. */
  readonly closing: boolean
  publish(kind: 'ota' | 'otaReq' | 'sync', body: Record<string, unknown>, opts: { qos: 0 | 1 }): Promise<void>
  /** Resolves true once connected (at once if it is), false after timeoutMs or when the module closes. */
  whenConnected(timeoutMs: number): Promise<boolean>
  /** The connection breaks (a tunnel); the module comes back by itself. */
  dropConnection(): void
  /** Offline, reconnect, announce: resolves once connected again. */
  reboot(): Promise<void>
  reportStatus(): Promise<void>
}

interface Session extends OtaState {
  hash: Hash
  /** Blocks received ahead of a gap (at most a window's worth). */
  held: Map<number, Uint8Array>
  aborted: boolean
  dropped: boolean
  reportedTenth: number
  wake: (() => void) | null
}

/** Finished upgrades kept (to answer a repeated offer with how it ended). */
const KEPT_SESSIONS = 8
const ABORTABLE: ReadonlySet<Session['stage']> = new Set(['accepted', 'downloading', 'downloaded', 'verified'])
const MB = 1024 * 1024

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * The OTA part of a simulated module: takes offers (down/ota), refuses them when riding, low on
 * battery or SIM data, downloads the image in windows of blocks (up/otaReq → down/otaBlock) or
 * through the offer's HTTPS link, checks each block's CRC-8 and the whole image's SHA-256, installs,
 * reboots into the new image on trial, and commits it once its self-test passes (or rolls back to the
 * old one); every stage goes up on up/ota. Memory per upgrade is a
 * running SHA-256 and at most a window of blocks, so a fleet of thousands shares no image copies.
 */
export class OtaClient {
  /** Error frames the server answered block requests with, newest last (a device that asks wrongly learns why). */
  readonly blockErrors: OtaBlockError[] = []
  private readonly sessions = new Map<string, Session>()
  private current: Session | null = null
  private readonly outcomeListeners = new Set<(o: OtaOutcome) => void>()

  constructor(private readonly host: OtaHost) {}

  /** The upgrade under way, or the last one. */
  get state(): OtaState | null {
    const s = this.current ?? [...this.sessions.values()].at(-1)
    if (!s) return null
    const { id, offer, stage, next, blocksReceived, framesReceived, badFrames, bytesReceived, code } = s
    return { id, offer, stage, next, blocksReceived, framesReceived, badFrames, bytesReceived, code }
  }

  /** Resolves with how the next upgrade (or the one of this id) ends. */
  finished(id?: string, timeoutMs = 60_000): Promise<OtaOutcome> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.outcomeListeners.delete(listener)
        reject(new Error(`${this.host.sn}: no upgrade ${id ?? ''} finished within ${timeoutMs} ms`))
      }, timeoutMs)
      const listener = (o: OtaOutcome) => {
        if (id && o.id !== id) return
        clearTimeout(timer)
        this.outcomeListeners.delete(listener)
        resolve(o)
      }
      this.outcomeListeners.add(listener)
    })
  }

  /** A down/ota message: an offer or an abort. */
  onControl(raw: Buffer) {
    let json: unknown
    try {
      json = JSON.parse(raw.toString())
    } catch {
      return
    }
    const parsed = otaDownPayload.safeParse(json)
    if (!parsed.success) return
    const message = parsed.data
    if (message.op === 'abort') return this.abort(message.id, message.reason)
    if (message.op === 'keys') return void this.takeKeys(message)
    if (this.host.behaviour.otaIgnoreOffers) return
    void this.offer(message).catch(() => {})
  }

  /** A down/otaBlock frame. */
  onBlock(frame: Buffer) {
    const block = decodeOtaBlock(frame)
    if (!block) {
      const error = decodeOtaBlockError(frame)
      if (error) this.blockErrors.push(error)
      return
    }
    const s = this.sessions.get(block.header.id)
    if (!s || s.stage !== 'downloading' || s.aborted) return
    s.framesReceived++
    s.bytesReceived += block.bytes.length
    const { n } = block.header
    const { blockBytes, blocks, size } = s.offer
    const expectedSize = n === blocks - 1 ? size - n * blockBytes : blockBytes
    const crcWrong = !this.host.behaviour.otaIgnoreCrc && crc8Hex(crc8(block.bytes)) !== block.header.crc8
    if (n >= blocks || block.bytes.length !== expectedSize || crcWrong) {
      s.badFrames++
      return
    }
    if (n < s.next || s.held.has(n)) return
    if (n > s.next + OTA_MAX_BLOCKS_PER_REQUEST) return
    s.blocksReceived++
    if (n === s.next) {
      this.take(s, block.bytes)
      for (let held = s.held.get(s.next); held; held = s.held.get(s.next)) {
        s.held.delete(s.next)
        this.take(s, held)
      }
    } else {
      // A copy: the frame's buffer belongs to the MQTT client.
      s.held.set(n, Uint8Array.from(block.bytes))
    }
    this.afterProgress(s)
    const drop = this.host.behaviour.otaDropAfterBlocks
    if (drop > 0 && !s.dropped && s.blocksReceived >= drop && s.next < blocks) {
      s.dropped = true
      this.host.dropConnection()
    }
  }

  /** The connection broke: whoever waits for blocks asks again once it is back. */
  onDisconnect() {
    const s = this.current
    if (s && this.host.behaviour.otaNoResume && s.stage === 'downloading') {
      // What a module that keeps nothing across a drop does: everything received is thrown away.
      s.next = 0
      s.held.clear()
      s.hash = createHash('sha256')
    }
    s?.wake?.()
  }

  private take(s: Session, bytes: Uint8Array) {
    if (s.next === 0 && this.host.behaviour.otaCorrupt) {
      const damaged = Uint8Array.from(bytes)
      damaged[0] = damaged[0]! ^ 0xff
      s.hash.update(damaged)
    } else s.hash.update(bytes)
    s.next++
  }

  private afterProgress(s: Session) {
    s.wake?.()
    if (s.next >= s.offer.blocks) return
    const tenth = Math.floor((s.next * 10) / s.offer.blocks)
    if (tenth > s.reportedTenth) {
      s.reportedTenth = tenth
      void this.report(s, 'downloading', { progress: tenth * 10 }).catch(() => {})
    }
  }

  private refusal(offer: OtaOfferPayload): { code: string; message?: string } | null {
    const b = this.host.behaviour
    // The one refusal that never passes (docs/iot-protocol.md › Refusing an offer): first, so no retry is asked for.
    if (offer.payload === 'audio') {
      if (offer.name && b.audio[offer.name] === offer.version) return { code: 'incompatible', message: `Already holds ${offer.name} ${offer.version}` }
    } else if (offer.part !== 'iot' && !b.parts[offer.part]) return { code: 'incompatible', message: `No ${offer.part} on this bike` }
    else if (this.runs(offer.part) === offer.version) return { code: 'incompatible', message: `Already runs ${offer.version}` }
    if (b.riding) return { code: 'riding' }
    if (offer.minBattery !== undefined && b.battery < offer.minBattery) return { code: 'batteryLow' }
    if (b.simDataLow || (b.simLimitMb - b.simUsedMb) * MB < offer.size) return { code: 'simDataLow' }
    if (this.current && this.current.id !== offer.id) return { code: 'busy' }
    return null
  }

  private async offer(offer: OtaOfferPayload) {
    const known = this.sessions.get(offer.id)
    if (known) {
      // The server offers again (we asked, it lost our reports, or we were away): resume with its
      // fresh link, or say how it ended.
      if (known === this.current) {
        known.offer = { ...known.offer, url: offer.url, urlExpiresAt: offer.urlExpiresAt }
        known.wake?.()
      } else await this.report(known, known.stage === 'installed' ? 'rebooting' : (known.stage as OtaDeviceStage), known.code ? { code: known.code } : {})
      return
    }
    // A key it does not know is looked up first (GET {API}/iot/ota-keys); otherwise nothing here waits,
    // so an offer right behind this one finds it busy.
    const b = this.host.behaviour
    if (b.otaKeysUrl && !b.otaKeys.some((k) => k.keyId === offer.keyId)) await this.fetchKeys()
    const refused = this.refusal(offer)
    const s: Session = {
      id: offer.id,
      offer,
      stage: 'accepted',
      next: 0,
      blocksReceived: 0,
      framesReceived: 0,
      badFrames: 0,
      bytesReceived: 0,
      hash: createHash('sha256'),
      held: new Map(),
      aborted: false,
      dropped: false,
      reportedTenth: 0,
      wake: null,
    }
    this.keep(s)
    // Nothing of an offer is taken before its manifest checks out: not a byte downloaded, no refusal reason given.
    const untrusted = this.untrusted(offer)
    if (untrusted) return this.fail(s, untrusted.code, untrusted.message)
    if (refused) {
      s.code = refused.code
      await this.report(s, 'rejected', refused)
      return this.end(s, 'rejected', refused.code)
    }
    this.current = s
    try {
      await this.report(s, 'accepted')
      await this.perform(s)
    } finally {
      if (this.current === s) this.current = null
    }
  }

  /** Why the offer's manifest is not to be trusted (docs/iot-protocol.md › Signed images), or null. */
  private untrusted(offer: OtaOfferPayload): { code: string; message: string } | null {
    const b = this.host.behaviour
    const check = checkManifest(offer, b.otaKeys, this.identity(offer), b.otaBadSignature)
    if (!check.ok && check.code === 'E_SIGNATURE' && b.otaIgnoreSignature) return null
    return check.ok ? null : { code: check.code, message: check.message }
  }

  /** What the part the offer is for runs and is, as the manifest is checked against it. */
  private identity(offer: OtaOfferPayload): DeviceIdentity {
    const b = this.host.behaviour
    if (offer.payload === 'audio') return { currentVersion: offer.name ? b.audio[offer.name] : undefined }
    if (offer.part === 'iot') return { currentVersion: b.firmwareVersion, hardware: b.hardwareVersion }
    const part = b.parts[offer.part]
    return { currentVersion: part?.version, hardware: part?.hardware }
  }

  /** A key update (down/ota op keys): taken only when a key it trusts signed it, and not older than the set it holds. */
  private takeKeys(update: Pick<OtaKeysPayload, 'keys' | 'signatures'>): boolean {
    const b = this.host.behaviour
    const taken = b.otaKeys.length ? acceptKeySet(update, b.otaKeys, b.otaKeysIssuedAt) : null
    if (!taken) return false
    b.otaKeys = taken.keys
    b.otaKeysIssuedAt = taken.issuedAt
    return true
  }

  /** The server's key set: a module that trusts no key yet (registered before signed images) takes it on first use. */
  private async fetchKeys() {
    const b = this.host.behaviour
    try {
      const res = await fetch(b.otaKeysUrl, { signal: AbortSignal.timeout(10_000) })
      const body = (await res.json()) as { code?: number; data?: Pick<OtaKeysPayload, 'keys' | 'signatures'> }
      if (body.code !== 200 || !body.data) return
      if (b.otaKeys.length) return void this.takeKeys(body.data)
      const first = firstKeySet(body.data)
      if (first) {
        b.otaKeys = first.keys
        b.otaKeysIssuedAt = first.issuedAt
      }
    } catch {
      // Unreachable: the offer fails with E_KEY_UNKNOWN, and a retry asks again.
    }
  }

  private keep(s: Session) {
    this.sessions.set(s.id, s)
    for (const id of this.sessions.keys()) {
      if (this.sessions.size <= KEPT_SESSIONS) break
      if (this.sessions.get(id) !== this.current) this.sessions.delete(id)
    }
  }

  private async perform(s: Session) {
    const b = this.host.behaviour
    await this.report(s, 'downloading', { progress: 0 })
    const viaHttp = b.otaUseHttp && s.offer.url && (s.offer.urlExpiresAt ?? Infinity) > Date.now()
    if (viaHttp) await this.downloadHttp(s).catch(() => undefined)
    // MQTT from the first block missing: all of it, or what the link did not deliver.
    await this.downloadMqtt(s)
    if (s.aborted || this.host.closing) return
    await this.report(s, 'downloaded', { progress: 100 })
    if (s.hash.digest('hex') !== s.offer.sha256) return this.fail(s, 'E_VERIFY_SHA256', 'The image does not have the SHA-256 of the offer')
    await this.report(s, 'verified')
    if (s.aborted) return
    await this.report(s, 'installing')
    await sleep(b.otaInstallMs)
    if (b.otaInstallFailCode) return this.fail(s, b.otaInstallFailCode, 'Simulated install failure')
    await this.install(s)
  }

  private async downloadMqtt(s: Session) {
    const b = this.host.behaviour
    const window = Math.max(1, Math.min(OTA_MAX_BLOCKS_PER_REQUEST, Math.floor(b.otaWindow)))
    const { blocks, blockBytes, id } = s.offer
    while (s.next < blocks && !s.aborted && !this.host.closing) {
      if (!(await this.host.whenConnected(b.otaRetryMs))) continue
      const first = s.next
      const count = Math.min(window, blocks - first)
      const started = Date.now()
      const windowDone = () => s.next >= first + count || s.aborted || !this.host.connected
      const waited = new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer)
          s.wake = null
          resolve()
        }
        const timer = setTimeout(finish, b.otaRetryMs)
        s.wake = () => {
          if (windowDone()) finish()
        }
      })
      // QoS 0, not awaited: a request written to a connection that just broke never completes, and a
      // lost request is like lost blocks, asked again after the retry time.
      this.host.publish('otaReq', { id, first, count, blockBytes }, { qos: 0 }).catch(() => {})
      await waited
      await this.throttle((s.next - first) * blockBytes, started)
    }
  }

  private async downloadHttp(s: Session) {
    const b = this.host.behaviour
    const { blockBytes, blocks, size } = s.offer
    const chunkBlocks = Math.max(1, Math.floor(b.otaWindow))
    let renewed = false
    while (s.next < blocks && !s.aborted && !this.host.closing) {
      const start = s.next * blockBytes
      const end = Math.min(size, start + chunkBlocks * blockBytes) - 1
      const started = Date.now()
      const link = s.offer.url!
      const res = await fetch(new URL(link, b.httpOrigin || undefined), { headers: { range: `bytes=${start}-${end}` } })
      // The link ran out (a slow modem): asked for (up/sync), the offer comes again with a fresh one; once.
      if (res.status === 403 && !renewed) {
        renewed = true
        await res.body?.cancel()
        await this.renewLink(s, link)
        continue
      }
      if (res.status !== 206) throw new Error(`${this.host.sn}: the image link answered ${res.status}`)
      const bytes = new Uint8Array(await res.arrayBuffer())
      s.bytesReceived += bytes.length
      if (bytes.length !== end - start + 1) throw new Error(`${this.host.sn}: the image link sent ${bytes.length} bytes for ${end - start + 1}`)
      for (let at = 0; at < bytes.length && !s.aborted; at += blockBytes) {
        this.take(s, bytes.subarray(at, at + blockBytes))
        s.blocksReceived++
      }
      this.afterProgress(s)
      await this.throttle(bytes.length, started)
    }
  }

  /** Links asked for again: how many times the device renewed an expired link. */
  linksRenewed = 0

  /** Asks for the offer again (up/sync) and waits a little for its fresh link; the MQTT blocks carry on without it. */
  private async renewLink(s: Session, expired: string) {
    this.linksRenewed++
    await this.host.publish('sync', {}, { qos: 1 }).catch(() => {})
    const deadline = Date.now() + LINK_RENEWAL_WAIT_MS
    while (s.offer.url === expired && Date.now() < deadline && !s.aborted) await sleep(25)
  }

  /** Waits out what the configured speed says these bytes take. */
  private async throttle(bytes: number, since: number) {
    const bps = this.host.behaviour.otaBytesPerSecond
    if (!(bps > 0)) return
    const due = (bytes / bps) * 1000 - (Date.now() - since)
    if (due > 0) await sleep(due)
  }

  private async install(s: Session) {
    const b = this.host.behaviour
    const { part, payload, version, name } = s.offer
    if (payload === 'audio') {
      // Nothing reboots for a sound: the status listing it at its version says it is there.
      if (name) b.audio[name] = version
      s.stage = 'installed'
      await this.host.reportStatus()
      return this.end(s, 'installed')
    }
    const previous = this.runs(part)
    await this.report(s, 'rebooting')
    s.stage = 'installed'
    await this.boot(part, b.otaKeepOldVersion ? previous : version)
    if (b.otaKeepOldVersion) return this.end(s, 'installed')
    return this.trial(s, previous)
  }

  /** The version a part runs now. */
  private runs(part: OtaOfferPayload['part']): string | undefined {
    const b = this.host.behaviour
    return part === 'iot' ? b.firmwareVersion : b.parts[part]?.version
  }

  /** A part restarts running this version; then its status says what it runs. */
  private async boot(part: OtaOfferPayload['part'], version: string | undefined) {
    const b = this.host.behaviour
    if (part === 'iot') {
      if (version) b.firmwareVersion = version
      // The status sent on reconnect carries the version it now runs.
      await this.host.reboot()
    } else {
      // The IoT module flashes the part over the bike's bus (or tells its bootloader to switch back); the part restarts, the module stays online.
      await sleep(b.otaInstallMs)
      if (version) b.parts[part] = { ...b.parts[part], version }
      await this.host.reportStatus()
    }
  }

  /**
   * The A/B contract after the reboot (docs/iot-protocol.md › Commit or roll back): on trial with the
   * new image, the self-test runs; passed, the module commits (the new image is made permanent);
   * failed, or no verdict within the offer's commitSeconds, it goes back to the image it ran before.
   */
  private async trial(s: Session, previous: string | undefined) {
    const b = this.host.behaviour
    const { version } = s.offer
    await this.report(s, 'trial', { version })
    const deadlineMs = (s.offer.commitSeconds ?? OTA_COMMIT_SECONDS.default) * 1000
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), deadlineMs)
      // A module left on trial must not keep a test process alive.
      timer.unref?.()
    })
    // A self-test that hangs never answers: only the deadline ends the trial.
    const selfTest = b.otaNeverCommit ? new Promise<never>(() => {}) : sleep(b.otaSelfTestMs).then(() => (b.otaSelfTestFail ? ('failed' as const) : ('passed' as const)))
    const verdict = await Promise.race([selfTest, deadline])
    clearTimeout(timer)
    if (this.host.closing) return
    if (verdict === 'passed') {
      await this.report(s, 'committed', { version })
      return this.end(s, 'installed')
    }
    const code = verdict === 'late' ? 'E_COMMIT_TIMEOUT' : 'E_SELF_TEST'
    const message = verdict === 'late' ? `No commit within ${deadlineMs / 1000} s of the reboot` : 'Simulated self-test failure'
    s.code = code
    // Said before going back: the status the old image then sends finds the upgrade already ended.
    await this.report(s, 'rolledBack', { code, message, ...(previous ? { version: previous } : {}) })
    await this.boot(s.offer.part, previous)
    this.end(s, 'rolledBack', code)
  }

  private abort(id: string, reason?: string) {
    const s = this.sessions.get(id)
    if (!s || s.aborted || !ABORTABLE.has(s.stage) || this.host.behaviour.otaIgnoreAbort) return
    s.aborted = true
    // Why the server stopped it (cancelled, or the code of an image it refused to serve), for the state shown.
    if (reason) s.code = reason
    s.wake?.()
    void this.report(s, 'aborted').catch(() => {})
    this.end(s, 'aborted')
  }

  private async fail(s: Session, code: string, message: string) {
    s.code = code
    await this.report(s, 'failed', { code, message })
    this.end(s, 'failed', code)
  }

  private async report(s: Session, stage: OtaDeviceStage, extra: Omit<Partial<OtaProgressPayload>, 'id' | 'stage'> = {}) {
    if (!s.aborted || stage === 'aborted') s.stage = stage
    if (!this.host.connected) return
    await this.host.publish('ota', { id: s.id, stage, ...extra }, { qos: 1 })
  }

  private end(s: Session, result: OtaOutcome['result'], code?: string) {
    if (this.current === s) this.current = null
    const outcome: OtaOutcome = { id: s.id, result, ...(code ? { code } : {}) }
    for (const l of [...this.outcomeListeners]) l(outcome)
  }
}
