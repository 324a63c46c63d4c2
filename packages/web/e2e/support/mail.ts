import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from '@playwright/test'

/** The mail drop of the e2e server (start-server.mjs sets MAIL_DIR to it): what the recipient reads. */
const mailDir = () => join(tmpdir(), `velo-e2e-mail-${process.env.E2E_PORT ?? 18080}`)

/** The text of the newest mail to this address, once it has arrived. */
export async function newestMailTo(address: string): Promise<string> {
  let text = ''
  await expect
    .poll(() => {
      const dir = mailDir()
      const files = existsSync(dir) ? readdirSync(dir).sort() : []
      const mails = files.map((f) => readFileSync(join(dir, f), 'utf8')).filter((raw) => raw.includes(`To: ${address}`))
      text = (mails.at(-1) ?? '').replace(/=\r?\n/g, '')
      return text.length
    })
    .toBeGreaterThan(0)
  return text
}
