import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import type { Db } from '../db/database'

export interface Mail {
  to: string
  subject: string
  body: string
  /** Values in the body that only the recipient may read (codes): the outbox keeps them masked. */
  secrets?: string[]
}

const MASK = '••••••'

/** The body as the outbox keeps it: every secret replaced, so reading the outbox gives no one a code. */
export function maskedBody(mail: Mail): string {
  let body = mail.body
  for (const secret of mail.secrets ?? []) if (secret) body = body.split(secret).join(MASK)
  return body
}

/**
 * Sends mail over SMTP when SMTP_URL is set, else writes it as an .eml file into MAIL_DIR, where
 * whoever runs the server (not a console user) reads it. Every mail is also recorded in
 * sys_mail_outbox, with its secrets masked.
 */
export class Mailer {
  private readonly transport
  constructor(
    private readonly db: Db,
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly mailDir?: string,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : mailDir ? nodemailer.createTransport({ streamTransport: true, buffer: true }) : undefined
  }

  async send(mail: Mail): Promise<void> {
    let status = 'outbox'
    let error = ''
    if (this.transport) {
      try {
        const info = await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.body })
        if ('message' in info && Buffer.isBuffer(info.message) && this.mailDir) {
          await mkdir(this.mailDir, { recursive: true })
          const file = join(this.mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^\w.@-]/g, '')}.eml`)
          // Written aside and renamed: whoever reads the folder sees a whole mail or none, never half of one.
          await writeFile(`${file}.part`, info.message)
          await rename(`${file}.part`, file)
          status = 'file'
        } else status = 'sent'
      } catch (e) {
        status = 'failed'
        error = e instanceof Error ? e.message : String(e)
      }
    }
    await this.db
      .insertInto('sysMailOutbox')
      .values({ mailTo: mail.to, subject: mail.subject, body: maskedBody(mail), status, error, createTime: new Date().toISOString() })
      .execute()
  }
}
