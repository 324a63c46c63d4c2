import { readFileSync } from 'node:fs'

/**
 * The embedded broker holds one socket, so one file descriptor, per connected device. Past the
 * process's open-file limit the kernel refuses the accept: libuv then accepts and at once closes
 * each new connection, so devices over the limit connect and drop in a loop, and the server's own
 * files (the database's journal, uploads, HTTP clients) fail with EMFILE too (docs/ops/capacity.md ›
 * Open files). Node raises its soft limit to the hard one by itself at start, so the figure read
 * here is what LimitNOFILE= (systemd) or --ulimit nofile= (docker) allowed.
 */

/** Descriptors the server holds besides device sockets: measured ~40 idle with SQLite, kept as headroom for HTTP clients, files and the database. */
export const FILE_RESERVE = 1024
/** A fleet the embedded broker should be able to take at least, whatever is registered yet (docs/ops/capacity.md › Open files). */
export const MIN_EXPECTED_DEVICES = 10_000

export interface FileLimits {
  soft: number
  hard: number
}

/** "Max open files" of /proc/<pid>/limits; Infinity for "unlimited"; null when the line is not there. */
export function parseOpenFileLimits(text: string): FileLimits | null {
  const line = text.split('\n').find((l) => l.startsWith('Max open files'))
  if (!line) return null
  const [soft, hard] = line.slice('Max open files'.length).trim().split(/\s+/)
  const value = (v: string | undefined) => (v === 'unlimited' ? Infinity : Number(v))
  const limits = { soft: value(soft), hard: value(hard) }
  return Number.isNaN(limits.soft) || Number.isNaN(limits.hard) ? null : limits
}

export interface FileLimitShortfall {
  /** The soft limit in force. */
  limit: number
  hard: number
  /** Device connections the limit leaves room for. */
  devices: number
  /** The devices the check expected: the registered fleet, at least MIN_EXPECTED_DEVICES. */
  expected: number
  /** The limit that would carry them. */
  needed: number
}

/** Whether the open-file limit is too low for `registeredDevices` devices on the embedded broker; null when it is enough. */
export function fileLimitShortfall(limits: FileLimits, registeredDevices: number): FileLimitShortfall | null {
  const expected = Math.max(registeredDevices, MIN_EXPECTED_DEVICES)
  const needed = expected + FILE_RESERVE
  if (limits.soft >= needed) return null
  return { limit: limits.soft, hard: limits.hard, devices: Math.max(0, limits.soft - FILE_RESERVE), expected, needed }
}

/** This process's open-file limits; null where there is no /proc (macOS, Windows): the check is skipped there. */
export function readOpenFileLimits(file = '/proc/self/limits'): FileLimits | null {
  if (process.platform !== 'linux') return null
  try {
    return parseOpenFileLimits(readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}
