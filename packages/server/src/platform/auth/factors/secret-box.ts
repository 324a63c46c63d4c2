import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The folder under DATA_DIR holding the identity key: never inside STORAGE_DIR (config.ts refuses that), never in a backup. */
export const IDENTITY_FOLDER = 'identity'
const KEY_FILE = 'secret-key'
/** Sealed values start with the scheme's version, so a later scheme can read what this one wrote. */
const VERSION = 'v1'

/**
 * Seals the second factors' secrets (TOTP seeds) with AES-256-GCM under a key kept outside the
 * database: a copy of the database, a backup or a SQL read alone gives no seed. The key is
 * IDENTITY_KEY (several instances share it that way) or a file made at the first start.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static fromConfig(dataDir: string, configured?: string): SecretBox {
    if (configured) return new SecretBox(Buffer.from(configured, 'base64'))
    const folder = join(dataDir, IDENTITY_FOLDER)
    const file = join(folder, KEY_FILE)
    if (!existsSync(file)) {
      mkdirSync(folder, { recursive: true, mode: 0o700 })
      // Written beside and renamed: two instances starting together end with one key, whole.
      const partial = `${file}.${process.pid}.tmp`
      writeFileSync(partial, randomBytes(32).toString('base64'), { mode: 0o600 })
      if (!existsSync(file)) renameSync(partial, file)
    }
    chmodSync(file, 0o600)
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key in base64`)
    return new SecretBox(key)
  }

  /** A fresh random key, for tests and for a server with no data folder. */
  static ephemeral(): SecretBox {
    return new SecretBox(randomBytes(32))
  }

  /** `context` binds the sealed value to its owner (the user's id): a seed copied to another row does not open. */
  seal(plain: string, context: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    cipher.setAAD(Buffer.from(context))
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`
  }

  /** The plain value, or null when it was sealed under another key or for another owner. */
  open(sealed: string, context: string): string | null {
    if (!sealed.startsWith(`${VERSION}:`)) return null
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64')
    if (raw.length < 29) return null
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
      decipher.setAAD(Buffer.from(context))
      decipher.setAuthTag(raw.subarray(12, 28))
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
    } catch {
      return null
    }
  }
}
