import { chmod, mkdir, rename, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Transporter } from 'nodemailer'
import type { Db } from '../db/database'
import { lazyRequire } from '../lib/lazy-require'

const nodemailer = lazyRequire<typeof import('nodemailer')>('nodemailer')

export interface Mail {
  to: string
  subject: string
  body: string
  /** Values in the body that only the recipient may read (codes): the outbox keeps them masked. */
  secrets?: string[]
}

const MASK = '••••••'
/** The mail folder and its files are the server's user's only: the mails hold password-reset codes. */
const FOLDER_MODE = 0o700
const FILE_MODE = 0o600

/**
 * The mail folder, made the server's user's only (0700) if it is new, and narrowed to that if it
 * lets anyone else in (a folder made before, by hand or by an older version). One that cannot be
 * narrowed (another user's) fails the mail rather than leaving a code where others read it.
 */
async function privateFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: FOLDER_MODE })
  const { mode } = await stat(dir)
  if (mode & 0o077) await chmod(dir, FOLDER_MODE)
}

/** The body as the outbox keeps it: every secret replaced, so reading the outbox gives no one a code. */
export function maskedBody(mail: Mail): string {
  let body = mail.body
  for (const secret of mail.secrets ?? []) if (secret) body = body.split(secret).join(MASK)
  return body
}

/**
 * Sends mail over SMTP when SMTP_URL is set, else writes it as an .eml file into MAIL_DIR, where
 * whoever runs the server (not a console user, nor another account on the machine: the folder is
 * 0700 and each file 0600) reads it. Every mail is also recorded in sys_mail_outbox, with its secrets
 * masked.
 */
export class Mailer {
  // Made at the first mail, not at start: nodemailer is not loaded by a server that sends none (issue 43).
  private transportMade?: Transporter
  constructor(
    private readonly db: Db,
    private readonly smtpUrl: string | undefined,
    private readonly from: string,
    private readonly mailDir?: string,
  ) {}

  private transport(): Transporter | undefined {
    if (!this.transportMade && (this.smtpUrl || this.mailDir)) {
      this.transportMade = this.smtpUrl ? nodemailer().createTransport(this.smtpUrl) : nodemailer().createTransport({ streamTransport: true, buffer: true })
    }
    return this.transportMade
  }

  async send(mail: Mail): Promise<void> {
    let status = 'outbox'
    let error = ''
    if (this.smtpUrl || this.mailDir) {
      try {
        const info = await this.transport()!.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.body })
        if ('message' in info && Buffer.isBuffer(info.message) && this.mailDir) {
          await privateFolder(this.mailDir)
          const file = join(this.mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^\w.@-]/g, '')}.eml`)
          // Written aside and renamed: whoever reads the folder sees a whole mail or none, never half of one.
          // The mode is set as it is created ('wx': a new file), so the code is never readable by others.
          await writeFile(`${file}.part`, info.message, { mode: FILE_MODE, flag: 'wx' })
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
