import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Registration } from './register'

interface StoredDevice {
  secret: string
  mqtt: Registration['mqtt']
  registeredAt: string
  /** The OTA manifest keys it trusts (its registration's, then key updates); absent: registered before signed images. */
  otaKeys?: Registration['otaKeys']
}

interface SecretsFile {
  version: 1
  /** By server and model ("{api} {productId}"), then by SN. */
  servers: Record<string, Record<string, StoredDevice>>
}

/**
 * Registration answers kept on disk (default .device-sim/secrets.json) so a rerun reuses its devices
 * instead of registering them again (a device that has connected once may not register again). The
 * file holds device secrets: it is written with mode 0600.
 */
export class SecretStore {
  private data: SecretsFile = { version: 1, servers: {} }
  private dirty = false

  constructor(
    readonly file: string | null,
    private readonly scope: string,
  ) {
    if (!file) return
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
      throw err
    }
    try {
      const parsed = JSON.parse(text) as SecretsFile
      if (parsed?.version === 1 && parsed.servers && typeof parsed.servers === 'object') this.data = parsed
    } catch {
      throw new Error(`${file} is not a secrets file written by the simulator: move it away or pass another --secrets FILE`)
    }
  }

  private get devices(): Record<string, StoredDevice> {
    return (this.data.servers[this.scope] ??= {})
  }

  get(sn: string): StoredDevice | undefined {
    return this.data.servers[this.scope]?.[sn]
  }

  set(registration: Registration) {
    this.devices[registration.sn] = {
      secret: registration.secret,
      mqtt: registration.mqtt,
      registeredAt: new Date().toISOString(),
      ...(registration.otaKeys ? { otaKeys: registration.otaKeys } : {}),
    }
    this.dirty = true
  }

  /** The keys a device trusts now (after a key update), kept for its next run. */
  setOtaKeys(sn: string, otaKeys: NonNullable<Registration['otaKeys']>) {
    const stored = this.get(sn)
    if (!stored || JSON.stringify(stored.otaKeys) === JSON.stringify(otaKeys)) return
    stored.otaKeys = otaKeys
    this.dirty = true
  }

  delete(sn: string) {
    if (!this.get(sn)) return
    delete this.devices[sn]
    this.dirty = true
  }

  get size(): number {
    return Object.keys(this.data.servers[this.scope] ?? {}).length
  }

  /** The broker address of the most recent registration (stored secrets carry where they last connected). */
  lastMqtt(): Registration['mqtt'] | undefined {
    let best: StoredDevice | undefined
    for (const d of Object.values(this.data.servers[this.scope] ?? {})) if (!best || d.registeredAt > best.registeredAt) best = d
    return best?.mqtt
  }

  /** Writes the file if anything changed (atomically: a crash never leaves half a file). */
  save() {
    if (!this.file || !this.dirty) return
    mkdirSync(dirname(this.file), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(this.data, null, 1), { mode: 0o600 })
    chmodSync(tmp, 0o600)
    renameSync(tmp, this.file)
    this.dirty = false
  }
}
