import { mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises'
import { randomUUID } from 'node:crypto'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/** Files on local disk under STORAGE_DIR. Names given by clients are resolved and refused if they leave it. */
export class Storage {
  constructor(readonly root: string) {}

  /**
   * Creates the root at the server's start (the README promises ./data/files), readable by the server
   * alone: files are handed out through their routes, never from the folder. An existing folder keeps
   * its mode (an operator may share it with a backup user).
   */
  async ensureRoot(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 })
  }

  /** The absolute path of a stored file, or undefined when the name is unsafe. */
  resolve(name: string): string | undefined {
    if (!name || name.includes('\0') || isAbsolute(name) || name.includes('\\')) return undefined
    const full = resolve(this.root, name)
    const rel = relative(this.root, full)
    if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) return undefined
    return full
  }

  /** Saves bytes under folder/yyyy/mm/dd with a fresh name; returns the stored name (relative). */
  async save(folder: string, extension: string, bytes: Buffer): Promise<string> {
    const d = new Date()
    const day = `${d.getUTCFullYear()}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}`
    const name = `${folder}/${day}/${randomUUID()}.${extension}`
    const full = join(this.root, name)
    await mkdir(resolve(full, '..'), { recursive: true })
    await writeFile(full, bytes)
    return name
  }

  async read(name: string): Promise<Buffer | undefined> {
    const full = this.resolve(name)
    if (!full) return undefined
    try {
      if (!(await stat(full)).isFile()) return undefined
      return await readFile(full)
    } catch {
      return undefined
    }
  }

  async remove(name: string): Promise<void> {
    const full = this.resolve(name)
    if (full) await unlink(full).catch(() => undefined)
  }
}
