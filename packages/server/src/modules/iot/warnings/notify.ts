import { ALARM_SEVERITY_OPTIONS, ALARM_TYPE_OPTIONS, type AlarmSeverity, type AlarmType, type AppLanguage, type NotifiedEvent } from '@velo/shared'
import { appLanguageOfCountry } from '../../../platform/i18n/app-language'
import type { FastifyBaseLogger } from 'fastify'
import type { Mailer } from '../../../platform/mailer'
import { deliverMessage } from '../../content/messages'
import { DEFAULT_MESSAGES, type MessageTexts } from './defaults'
import type { Db } from '../../../db/database'

/** How long a message configuration is read from memory: raises come in storms (1,000 devices at once). */
const CONFIG_TTL_MS = 5_000
const SUFFIX: Record<AppLanguage, string> = { en_US: 'En', de_DE: 'De', nl_NL: 'Nl', fr_FR: 'Fr' }
const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/

export interface MessageConfig extends MessageTexts {
  eventType: NotifiedEvent
  severity: AlarmSeverity
  enabled: boolean
  notifyMember: boolean
  notifyStaff: boolean
  staffEmails: string
  messageConfigId: number | null
}

const truthy = (v: unknown) => v === true || v === 1 || v === '1'

/** Fills {sn}, {type}, {severity}, {detail}, {time}; an unknown placeholder stays as written. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole)
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** Splits the staff addresses of a configuration; a blank entry is no address. */
export const staffAddresses = (emails: string) =>
  emails
    .split(/[,;\s]+/)
    .map((s) => s.trim())
    .filter(Boolean)

export const badStaffAddress = (emails: string) => staffAddresses(emails).find((a) => !EMAIL.test(a))

/**
 * Who hears of a device event (the message configuration): the bike's member in the app inbox, in
 * their language, and staff by e-mail, in English and Chinese. Without a configuration row the
 * built-in defaults apply (DEFAULT_MESSAGES, the rows the seed writes).
 */
export class Notifier {
  private readonly cache = new Map<NotifiedEvent, { config: MessageConfig; until: number }>()

  constructor(
    private readonly db: Db,
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
  ) {}

  async configOf(event: NotifiedEvent): Promise<MessageConfig> {
    const cached = this.cache.get(event)
    if (cached && cached.until > Date.now()) return cached.config
    const row = await this.db.selectFrom('iotMessageConfig').selectAll().where('eventType', '=', event).executeTakeFirst()
    const config: MessageConfig = row
      ? {
          ...(row as unknown as MessageTexts),
          eventType: event,
          severity: row.severity as AlarmSeverity,
          enabled: truthy(row.enabled),
          notifyMember: truthy(row.notifyMember),
          notifyStaff: truthy(row.notifyStaff),
          staffEmails: String(row.staffEmails ?? ''),
          messageConfigId: Number(row.messageConfigId),
        }
      : { ...DEFAULT_MESSAGES[event], eventType: event, staffEmails: '', messageConfigId: null }
    this.cache.set(event, { config, until: Date.now() + CONFIG_TTL_MS })
    return config
  }

  /** Forgets what was read, after a configuration changed on this instance. */
  forget() {
    this.cache.clear()
  }

  async severityOf(type: AlarmType): Promise<AlarmSeverity | undefined> {
    return (await this.configOf(type)).severity
  }

  async alarmRaised(deviceId: number, type: AlarmType, severity: AlarmSeverity, detail: string, time: string) {
    const labels = (options: typeof ALARM_TYPE_OPTIONS, value: string) => options.find((o) => o.value === value)?.label
    await this.notify(type, deviceId, {
      detail,
      time,
      typeOf: (lang) => labels(ALARM_TYPE_OPTIONS, type)?.[lang] ?? type,
      severityOf: (lang) => labels(ALARM_SEVERITY_OPTIONS, severity)?.[lang] ?? severity,
    })
  }

  async deviceStateChanged(deviceId: number, event: 'deviceOnline' | 'deviceOffline') {
    await this.notify(event, deviceId, { detail: '', time: new Date().toISOString(), typeOf: () => '', severityOf: () => '' })
  }

  private async notify(
    event: NotifiedEvent,
    deviceId: number,
    values: { detail: string; time: string; typeOf: (lang: 'en_US' | 'zh_CN') => string; severityOf: (lang: 'en_US' | 'zh_CN') => string },
  ) {
    const config = await this.configOf(event)
    if (!config.enabled || (!config.notifyMember && !config.notifyStaff)) return
    const device = await this.db.selectFrom('iotDevice').select(['sn']).where('deviceId', '=', deviceId).executeTakeFirst()
    if (!device) return
    const vars = (lang: 'en_US' | 'zh_CN') => ({ sn: String(device.sn), detail: values.detail, time: values.time, type: values.typeOf(lang), severity: values.severityOf(lang) })
    if (config.notifyMember) await this.toMember(config, deviceId, vars('en_US'))
    if (config.notifyStaff) await this.toStaff(config, vars('en_US'), vars('zh_CN'))
  }

  /** One app inbox message to the member whose bike carries the device (none: no one to tell). */
  private async toMember(config: MessageConfig, deviceId: number, vars: Record<string, string>) {
    const owner = await this.db
      .selectFrom('bikeBike as b')
      .innerJoin('memMember as m', 'm.memberId', 'b.memberId')
      .leftJoin('sysCountry as c', 'c.countryId', 'm.countryId')
      .select(['m.memberId', 'c.code'])
      .where('b.iotDeviceId', '=', deviceId)
      .executeTakeFirst()
    if (!owner) return
    const lang = appLanguageOfCountry(owner.code)
    const texts = config as unknown as Record<string, string | null>
    const pick = (part: 'title' | 'text') => texts[`${part}${SUFFIX[lang]}`] || texts[`${part}En`] || ''
    const now = new Date().toISOString()
    await this.db.transaction().execute(async (tx) => {
      const created = await tx
        .insertInto('cntMessage')
        .values({
          title: fill(pick('title'), vars).slice(0, 200),
          content: `<p>${escapeHtml(fill(pick('text'), vars))}</p>`,
          audience: 'members',
          sendMode: 'now',
          status: 'draft',
          sentCount: 0,
          readCount: 0,
          remark: '',
          createBy: 'iot',
          createTime: now,
        })
        .returning('messageId')
        .executeTakeFirstOrThrow()
      await tx.insertInto('cntMessageMember').values({ messageId: created.messageId, memberId: owner.memberId }).execute()
      await deliverMessage(tx, Number(created.messageId))
    })
  }

  /** One mail per address: the configuration's addresses and those of the users of its roles. */
  private async toStaff(config: MessageConfig, en: Record<string, string>, zh: Record<string, string>) {
    const addresses = new Set(staffAddresses(config.staffEmails).filter((a) => EMAIL.test(a)))
    if (config.messageConfigId !== null) {
      const users = await this.db
        .selectFrom('iotMessageConfigRole as r')
        .innerJoin('sysUserRole as ur', 'ur.roleId', 'r.roleId')
        .innerJoin('sysUser as u', 'u.userId', 'ur.userId')
        .select('u.email')
        .where('r.messageConfigId', '=', config.messageConfigId)
        .where('u.delFlag', '=', '0')
        .where('u.status', '=', '0')
        .execute()
      for (const u of users) if (u.email && EMAIL.test(String(u.email))) addresses.add(String(u.email))
    }
    const subject = `${fill(config.titleEn, en)} / ${fill(config.titleZh, zh)}`.slice(0, 200)
    const body = `${fill(config.textEn, en)}\n\n${fill(config.textZh, zh)}`
    for (const to of addresses) {
      await this.mailer.send({ to, subject, body }).catch((err: unknown) => this.log.warn({ err, to }, 'alarm mail not sent'))
    }
  }
}
