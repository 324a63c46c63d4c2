import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../src/db/database'
import { Mailer } from '../src/platform/mailer'

// Without SMTP, a password-reset code is in clear in its .eml file: the folder and the files are the
// server's user's only, whatever the umask and whoever made the folder before.
const outbox: unknown[] = []
const db = { insertInto: () => ({ values: (row: unknown) => ({ execute: async () => void outbox.push(row) }) }) } as unknown as Db
const dir = mkdtempSync(join(tmpdir(), 'velo-mail-'))
const mode = (path: string) => statSync(path).mode & 0o777
const mails = (folder: string) => readdirSync(folder).filter((f) => f.endsWith('.eml'))
const reset = { to: 'rider@example.com', subject: 'Your code', body: 'Your code is 493817', secrets: ['493817'] }

let umask: number | undefined
beforeAll(() => {
  // The usual umask, which leaves what is made without a mode readable by everyone (0644, 0755).
  umask = process.umask(0o022)
})
afterAll(() => {
  if (umask !== undefined) process.umask(umask)
  rmSync(dir, { recursive: true, force: true })
})

describe('mail written to MAIL_DIR', () => {
  it('goes into a new folder made 0700, as a file made 0600', async () => {
    const folder = join(dir, 'new', 'mail')
    await new Mailer(db, undefined, 'Velo <no-reply@velo.local>', folder).send(reset)
    expect(mode(folder)).toBe(0o700)
    const [file, ...more] = mails(folder)
    expect(more).toEqual([])
    expect(mode(join(folder, file!))).toBe(0o600)
    // Nothing else is left there (no .part file).
    expect(readdirSync(folder)).toEqual([file])
    expect(outbox.at(-1)).toMatchObject({ mailTo: 'rider@example.com', status: 'file' })
  })

  it('narrows a folder that was there with looser bits to 0700', async () => {
    const folder = join(dir, 'existing')
    mkdirSync(folder)
    chmodSync(folder, 0o755)
    const mailer = new Mailer(db, undefined, 'Velo <no-reply@velo.local>', folder)
    await mailer.send(reset)
    expect(mode(folder)).toBe(0o700)
    // And again if someone opens it up meanwhile.
    chmodSync(folder, 0o775)
    await mailer.send({ ...reset, body: 'Your code is 120934', secrets: ['120934'] })
    expect(mode(folder)).toBe(0o700)
    expect(mails(folder).map((f) => mode(join(folder, f)))).toEqual([0o600, 0o600])
  })
})
