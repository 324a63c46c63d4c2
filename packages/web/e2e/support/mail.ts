import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import { MAIL_DIR } from './server'

/** The mail drop of the e2e server (start-server.mjs sets MAIL_DIR to it): what the recipient reads. */
const mailDir = () => MAIL_DIR

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
