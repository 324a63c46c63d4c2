import nodemailer from 'nodemailer'
import type { Db } from '../db/database'

export interface Mail {
  to: string
  subject: string
  body: string
}

/**
 * Sends mail over SMTP when SMTP_URL is set. Every mail is also written to sys_mail_outbox, which is
 * the only delivery without SMTP: an administrator reads it there.
 */
export class Mailer {
  private readonly transport
  constructor(
    private readonly db: Db,
    smtpUrl: string | undefined,
    private readonly from: string,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined
  }

  async send(mail: Mail): Promise<void> {
    let status = 'outbox'
    let error = ''
    if (this.transport) {
      try {
        await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.body })
        status = 'sent'
      } catch (e) {
        status = 'failed'
        error = e instanceof Error ? e.message : String(e)
      }
    }
    await this.db
      .insertInto('sysMailOutbox')
      .values({ mailTo: mail.to, subject: mail.subject, body: mail.body, status, error, createTime: new Date().toISOString() })
      .execute()
  }
}
