import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { APP_LANGUAGES, type AppLanguage } from '@velo/shared'
import type { Db, Dialect } from '../db/database'
import { StreamDigests } from '../platform/files/digests'
import { sniff } from '../platform/files/sniff'
import type { Storage } from '../platform/storage'
import {
  ACHIEVEMENTS,
  ACTIVITIES,
  APP_RELEASES,
  BANNERS,
  ERROR_CODES,
  FAQ,
  GUIDES,
  LEVEL_COLOURS,
  MANUAL_NOTE,
  MANUAL_TITLE,
  MESSAGES,
  type MessageText,
  POLICIES,
  PROTOCOL_NAMES,
  protocolContent,
  SERVICE_CENTRES,
  type Theme,
  THEMES,
  VIDEOS,
} from './content-texts'
import type { AppRelease, AppUsage, CrashReport } from './dashboards'
import { DAY, type Plan, type PlannedMember } from './generate'
import { badge, bikeDrawing, hexColour, pictureName } from './placeholders'
import { random, type Random } from './random'
import { emailPart, type Lang } from './vocabulary'
import { TableWriter } from './write'

// The demo's App content (SPEC §3): agreements with members' signatures, system messages with their
// inbox rows, app versions, activities, feature guides, achievements, banners, FAQ, policies, user
// help, error codes, service centres and the app's uploaded logs, in the app's four languages.
// Planned from the members the generator made (after their rides, so their last logins are known),
// with a chance stream of its own: the members, bikes and rides stay what they were without it.
//
// The counters agree with the rows, as the product keeps them: a message's sentCount is its inbox
// rows and readCount the read ones; an agreement's signCount its signed rows and cancelCount its
// cancelled ones; a member's privacy agreement is 'agreed' exactly when they hold a signed signature
// of the privacy version in force in their language (the update of 1.1.0 made the earlier ones not count).

const HOUR = 3_600_000
const MINUTE = 60_000
const iso = (t: number) => new Date(t).toISOString()

/** The one demo member with a password, for trying the app API (README, Demo data). */
export const DEMO_RIDER = { email: 'rider@velo.example', password: 'Rider2026!' } as const

/** The app has no Chinese: Chinese-speaking members read it in English. */
const APP_LANGUAGE_OF: Record<Lang, AppLanguage> = { en: 'en_US', de: 'de_DE', nl: 'nl_NL', fr: 'fr_FR', zh: 'en_US' }

export interface ContentTable {
  table: string
  columns: readonly string[]
  rows: unknown[][]
}

/** A file a `file` field holds: stored under STORAGE_DIR with its sys_file row, so it downloads. */
export interface DemoFile {
  name: string
  entity: string
  field: string
  originalName: string
  bytes: Buffer
  created: number
}

export interface ContentPlan {
  /** The member with DEMO_RIDER's e-mail; runDemo gives them the password's hash. */
  rider: PlannedMember
  /** In the order of DEMO_TABLES. */
  tables: ContentTable[]
  images: { name: string; draw: () => Buffer }[]
  files: DemoFile[]
}

const AUDIT = ['create_by', 'create_time', 'update_by', 'update_time', 'remark'] as const

export const contentImage = (key: string) => `demo/content/${key}.png`
/** Demo files of `file` fields live in folders of their own, emptied before each run. */
export const DEMO_FILE_FOLDERS = ['file/userHelp/demo', 'file/appUploadLog/demo'] as const

type ProtocolType = 'privacy' | 'emailSubscription'
type ProtocolVersion = '1.0.0' | '1.1.0' | '1.2.0'

interface Protocol {
  id: number
  type: ProtocolType
  lang: AppLanguage
  version: ProtocolVersion
  isUpdate: boolean
  status: 'draft' | 'published' | 'retired'
  created: number
  published: number | null
  remark: string
  signed: number
  cancelled: number
}

interface Signature {
  protocol: Protocol
  member: PlannedMember
  signTime: number
  cancelTime: number | null
}

interface Message {
  id: number
  text: MessageText
  audience: 'all' | 'country' | 'members'
  country: string | null
  selected: PlannedMember[]
  sendMode: 'now' | 'scheduled'
  sendTime: number | null
  status: 'draft' | 'scheduled' | 'sent'
  created: number
  sentAt: number | null
  recipients: [member: PlannedMember, readTime: number | null][]
}

/** The app's releases, iOS then Android of each (Android the next morning): cnt_app_version, and the versions the app's events and uploads carry. */
export function appReleases(end: number): AppRelease[] {
  return APP_RELEASES.flatMap(([ios, android, daysAgo, force]) => [
    { platform: 'ios' as const, version: ios, time: end - daysAgo * DAY + 16 * HOUR, force },
    { platform: 'android' as const, version: android, time: end + (1 - daysAgo) * DAY + 9 * HOUR, force },
  ])
}

export function planContent(
  plan: Plan,
  o: {
    seed: number
    mark: string
    countries: ReadonlyMap<string, number>
    functions: ReadonlyMap<string, number>
    /** The members' phones and app versions, and the crash reports their app events imply (demo/dashboards.ts). */
    app: { usage: AppUsage; crashes: readonly CrashReport[] }
  },
): ContentPlan {
  // Its own stream, so adding content changed none of the members, bikes or rides a seed gives.
  const r = random((o.seed ^ 0x5eedc0de) >>> 0)
  const { end, members } = plan
  const at = (days: number, hours = 0) => end + days * DAY + hours * HOUR
  const audit = (created: number, update?: { by: string; at: number }) => [o.mark, iso(created), update?.by ?? '', update ? iso(update.at) : null] as const
  const countryId = (code: string | undefined) => (code ? (o.countries.get(code) ?? null) : null)
  const tables: ContentTable[] = []
  const table = (name: string, columns: readonly string[]) => {
    const t: ContentTable = { table: name, columns, rows: [] }
    tables.push(t)
    return t.rows
  }

  // ---- The rider: a British member with a bike, in the app every week, registered before the
  // privacy update (so they signed twice), given DEMO_RIDER's e-mail.
  const privacyUpdate = at(-120, 8)
  const newsletterUpdate = at(-45, 8)
  const firstPublished = plan.start - 30 * DAY + 8 * HOUR
  const rider =
    members.find((m) => m.market.code === 'GB' && !m.disabled && m.bikes.length > 0 && m.activeUntil >= end && m.reg < privacyUpdate - 30 * DAY && m.lastLogin > end - 7 * DAY) ??
    members.find((m) => !m.disabled) ??
    members[0]!
  rider.email = DEMO_RIDER.email
  rider.emailConfirmed = true

  // ---- Agreements: 1.0.0 of both types in every language since before the first member, 1.1.0
  // published as an update (the 1.0.0 retired), and a 1.2.0 of the English privacy policy in draft.
  const protocols: Protocol[] = []
  const addProtocol = (type: ProtocolType, version: ProtocolVersion, lang: AppLanguage, created: number, published: number | null, isUpdate: boolean, remark: string) =>
    protocols.push({ id: protocols.length + 1, type, lang, version, isUpdate, status: published === null ? 'draft' : 'published', created, published, remark, signed: 0, cancelled: 0 })
  for (const type of ['privacy', 'emailSubscription'] as const) {
    for (const lang of APP_LANGUAGES) addProtocol(type, '1.0.0', lang, firstPublished - 5 * DAY, firstPublished, false, '')
  }
  for (const lang of APP_LANGUAGES) addProtocol('privacy', '1.1.0', lang, privacyUpdate - 14 * DAY, privacyUpdate, true, 'Connected bikes report their position; rides are kept 24 months')
  for (const lang of APP_LANGUAGES) addProtocol('emailSubscription', '1.1.0', lang, newsletterUpdate - 7 * DAY, newsletterUpdate, true, 'Opens and clicks are measured; dealer events name the dealer')
  addProtocol('privacy', '1.2.0', 'en_US', at(-5, 10), null, false, 'Sharing with the dealer when a service is booked: legal review pending')
  const protocolOf = (type: ProtocolType, version: ProtocolVersion, lang: AppLanguage) => protocols.find((p) => p.type === type && p.version === version && p.lang === lang)!
  for (const p of protocols) if (p.version === '1.0.0') p.status = 'retired'

  const signatures: Signature[] = []
  const sign = (m: PlannedMember, type: ProtocolType, version: ProtocolVersion, time: number) => {
    const s: Signature = { protocol: protocolOf(type, version, APP_LANGUAGE_OF[m.lang]), member: m, signTime: time, cancelTime: null }
    signatures.push(s)
    return s
  }
  /** A moment after `from` when the member was in the app (before their last login). */
  const inAppAfter = (m: PlannedMember, from: number, mean: number) => {
    const t = from + r.exponential(mean)
    return t < m.lastLogin ? t : r.between(from, m.lastLogin)
  }
  for (const m of members) {
    // Signed at sign-up, within the minute (the last login is at least a minute after registering).
    const signUp = m.reg + r.between(10, 50) * 1000
    let privacy = sign(m, 'privacy', signUp < privacyUpdate ? '1.0.0' : '1.1.0', signUp)
    // The update asked everyone who signed 1.0.0 to sign again: most who opened the app since did.
    if (privacy.protocol.version === '1.0.0' && m.lastLogin > privacyUpdate + HOUR && (m === rider || r.chance(0.9))) {
      privacy = sign(m, 'privacy', '1.1.0', inAppAfter(m, privacyUpdate, 5 * DAY))
    }
    if (m.privacy === 'disagreed' && m !== rider) privacy.cancelTime = r.between(privacy.signTime, m.lastLogin)
    m.privacy = privacy.protocol.version === '1.1.0' && privacy.cancelTime === null ? 'agreed' : 'disagreed'

    // The newsletter: opt-in, mostly at sign-up. The rider signed 1.0.0 and not the update, so the
    // app asks them to sign it again.
    if (m === rider || r.chance(0.42)) {
      const when = m === rider || r.chance(0.75) ? signUp + 1000 : r.between(signUp, m.lastLogin)
      let letter = sign(m, 'emailSubscription', when < newsletterUpdate ? '1.0.0' : '1.1.0', when)
      if (m !== rider && letter.protocol.version === '1.0.0' && m.lastLogin > newsletterUpdate + HOUR && r.chance(0.55)) {
        letter = sign(m, 'emailSubscription', '1.1.0', inAppAfter(m, newsletterUpdate, 8 * DAY))
      }
      if (m !== rider && r.chance(0.12)) letter.cancelTime = r.between(letter.signTime, m.lastLogin)
    }
  }
  signatures.sort((a, b) => a.signTime - b.signTime || a.member.id - b.member.id)
  for (const s of signatures) {
    if (s.cancelTime === null) s.protocol.signed++
    else s.protocol.cancelled++
  }
  const protocolRows = table('cnt_protocol', ['protocol_id', 'name', 'type', 'content', 'language', 'version_code', 'is_update', 'status', 'sign_count', 'cancel_count', 'publish_time', ...AUDIT])
  for (const p of protocols) {
    const update = p.status === 'retired' ? { by: 'admin', at: p.type === 'privacy' ? privacyUpdate : newsletterUpdate } : p.published === null ? undefined : { by: 'admin', at: p.published }
    protocolRows.push([
      p.id, PROTOCOL_NAMES[p.type][p.lang], p.type, protocolContent(p.type, p.version, p.lang), p.lang, p.version, p.isUpdate, p.status, p.signed, p.cancelled,
      p.published === null ? null : iso(p.published), ...audit(p.created, update), p.remark,
    ])
  }
  const signatureRows = table('cnt_protocol_signature', ['signature_id', 'protocol_id', 'member_id', 'type', 'language', 'version_code', 'state', 'sign_time', 'cancel_time'])
  for (const [i, s] of signatures.entries()) {
    signatureRows.push([i + 1, s.protocol.id, s.member.id, s.protocol.type, s.protocol.lang, s.protocol.version, s.cancelTime === null ? 'signed' : 'cancelled', iso(s.signTime), s.cancelTime === null ? null : iso(s.cancelTime)])
  }

  // ---- System messages: pushed to everyone, to a country, to selected members; one scheduled for
  // December, one draft. Recipients are the members enabled when it was pushed (as delivery does).
  const haulOwners = (t: number) => {
    const owners = members.filter((m) => m.bikes.some((b) => b.model.spec.code === 'HAU' && b.boundTime! < t))
    // A tiny demo may have no Velo Haul: the notice then went to the first riders.
    return owners.length ? owners : members.filter((m) => m.bikes.length > 0).slice(0, 3)
  }
  const messageSpecs: Omit<Message, 'id' | 'recipients'>[] = [
    { text: MESSAGES.app3, audience: 'all', country: null, selected: [], sendMode: 'now', sendTime: null, status: 'sent', created: at(-259, 14), sentAt: at(-258, 8.5) },
    { text: MESSAGES.heat, audience: 'all', country: null, selected: [], sendMode: 'scheduled', sendTime: at(-140, 7), status: 'sent', created: at(-143, 10), sentAt: at(-140, 7) },
    { text: MESSAGES.privacy, audience: 'all', country: null, selected: [], sendMode: 'now', sendTime: null, status: 'sent', created: privacyUpdate - DAY, sentAt: privacyUpdate + 10 * MINUTE },
    { text: MESSAGES.lightsNl, audience: 'country', country: 'NL', selected: [], sendMode: 'now', sendTime: null, status: 'sent', created: at(-52, 13), sentAt: at(-50, 8) },
    { text: MESSAGES.autumnDe, audience: 'country', country: 'DE', selected: [], sendMode: 'scheduled', sendTime: at(-35, 7), status: 'sent', created: at(-37, 11), sentAt: at(-35, 7) },
    { text: MESSAGES.kickstand, audience: 'members', country: null, selected: haulOwners(at(-21, 15)), sendMode: 'now', sendTime: null, status: 'sent', created: at(-21, 15), sentAt: at(-20, 9) },
    { text: MESSAGES.winter, audience: 'all', country: null, selected: [], sendMode: 'now', sendTime: null, status: 'sent', created: at(-8, 10), sentAt: at(-6, 8) },
    { text: MESSAGES.review, audience: 'all', country: null, selected: [], sendMode: 'scheduled', sendTime: at(21, 8), status: 'scheduled', created: at(-2, 14), sentAt: null },
    { text: MESSAGES.salonFr, audience: 'country', country: 'FR', selected: [], sendMode: 'now', sendTime: null, status: 'draft', created: at(-1, 10), sentAt: null },
  ]
  const messages: Message[] = messageSpecs.map((m, i) => ({ ...m, id: i + 1, recipients: [] }))
  for (const msg of messages) {
    const t = msg.sentAt
    if (t === null) continue
    const selected = new Set(msg.selected)
    const country = countryId(msg.country ?? undefined)
    for (const m of members) {
      if (m.reg >= t || (m.disabled && m.disabled.at <= t)) continue
      if (msg.audience === 'country' && m.countryId !== country) continue
      if (msg.audience === 'members' && !selected.has(m)) continue
      let read: number | null = null
      // The rider has read all but the latest, so their inbox shows one unread.
      const reads = m === rider ? msg.text.key !== MESSAGES.winter.key : r.chance(0.72)
      if (reads && m.lastLogin > t + MINUTE) read = inAppAfter(m, t, 1.5 * DAY)
      msg.recipients.push([m, read])
    }
  }
  const messageRows = table('cnt_message', ['message_id', 'title', 'content', 'audience', 'country_id', 'send_mode', 'send_time', 'status', 'sent_count', 'read_count', 'sent_time', ...AUDIT])
  for (const m of messages) {
    // Delivery writes 10,000 inbox rows a statement: done a few seconds later.
    const sentTime = m.sentAt === null ? null : m.sentAt + 2000 + m.recipients.length
    messageRows.push([
      m.id, m.text.title, m.text.content, m.audience, countryId(m.country ?? undefined), m.sendMode, m.sendTime === null ? null : iso(m.sendTime), m.status,
      m.recipients.length, m.recipients.filter(([, read]) => read !== null).length, sentTime === null ? null : iso(sentTime),
      ...audit(m.created, sentTime === null ? undefined : { by: 'admin', at: sentTime }), m.text.remark ?? '',
    ])
  }
  const linkRows = table('cnt_message_member', ['message_id', 'member_id'])
  for (const m of messages) for (const member of [...m.selected].sort((a, b) => a.id - b.id)) linkRows.push([m.id, member.id])
  const recipientRows = table('cnt_message_recipient', ['recipient_id', 'message_id', 'member_id', 'create_time', 'read_time'])
  for (const m of messages) {
    for (const [member, read] of m.recipients) recipientRows.push([recipientRows.length + 1, m.id, member.id, iso(m.sentAt!), read === null ? null : iso(read)])
  }

  // ---- App versions: the same releases on iOS and Android (Android's patch numbers differ), 3.0.0 a
  // force update, the latest of each platform current.
  const versionRows = table('cnt_app_version', [
    'version_id', 'platform', 'version_code', 'version_type', 'download_url', 'update_interval', 'current', 'release_time', 'notes_en', 'notes_de', 'notes_nl', 'notes_fr', ...AUDIT,
  ])
  const releases = appReleases(end)
  for (const [i, [, , , force, notes]] of APP_RELEASES.entries()) {
    const last = i === APP_RELEASES.length - 1
    for (const { platform, version, time } of releases.slice(2 * i, 2 * i + 2)) {
      const patch = !version.endsWith('.0')
      versionRows.push([
        versionRows.length + 1, platform, version, force ? 'force' : 'normal', `https://velo.example/app/${platform}?version=${version}`, force ? 0 : patch ? 72 : 24, last, iso(time),
        notes.en_US, notes.de_DE, notes.nl_NL, notes.fr_FR, ...audit(time - 2 * DAY), force ? 'Required: the ride sync of 2.x was switched off with this release' : '',
      ])
    }
  }

  // ---- Activities and banners: past, running and future ones, some for one country only.
  const activityRows = table('cnt_activity', [
    'activity_id', 'name', 'subtitle', 'image', 'start_time', 'end_time', 'order_num', 'contact_us', 'country_id', 'language', 'description', 'reminder', 'tag_end_time', 'bike_type', 'function_id', 'status', ...AUDIT,
  ])
  for (const [i, a] of ACTIVITIES.entries()) {
    const start = at(...a.start)
    for (const lang of APP_LANGUAGES) {
      const text = a.texts[lang]
      if (!text) continue
      activityRows.push([
        activityRows.length + 1, text[0], text[1], contentImage(a.theme), iso(start), iso(at(...a.end)), (i + 1) * 10, a.contactUs ?? false, countryId(a.country), lang, text[2], a.reminder ?? false,
        a.newDays ? iso(start + a.newDays * DAY) : null, a.bikeType ?? '', a.func ? (o.functions.get(a.func) ?? null) : null, a.disabled ? '1' : '0', ...audit(Math.min(start - 14 * DAY, end - DAY)), '',
      ])
    }
  }
  const bannerRows = table('cnt_banner', ['banner_id', 'title', 'image', 'link_url', 'order_num', 'start_time', 'end_time', 'language', 'country_id', 'status', ...AUDIT])
  for (const b of BANNERS) {
    for (const lang of APP_LANGUAGES) {
      const title = b.titles[lang]
      if (!title) continue
      bannerRows.push([
        bannerRows.length + 1, title, contentImage(b.theme), `https://velo.example/${lang.slice(0, 2)}/${b.link}`, b.order, iso(at(b.start)), b.end === null ? null : iso(at(b.end)), lang, countryId(b.country),
        b.disabled ? '1' : '0', ...audit(Math.min(at(b.start) - 7 * DAY, end - DAY)), '',
      ])
    }
  }

  // ---- Feature guides, achievements.
  const guideRows = table('cnt_guide', ['guide_id', 'title', 'description', 'image', 'function_id', 'order_num', 'language', 'status', ...AUDIT])
  for (const lang of APP_LANGUAGES) {
    for (const [i, [, , func, texts]] of GUIDES.entries()) {
      guideRows.push([guideRows.length + 1, texts[lang][0], texts[lang][1], contentImage(`guide-${i + 1}`), func ? (o.functions.get(func) ?? null) : null, i + 1, lang, '0', ...audit(at(-200 + i)), ''])
    }
  }
  const achievementRows = table('cnt_achievement', ['achievement_id', 'name', 'description', 'default_image', 'image', 'level', 'target_value', 'status', ...AUDIT])
  for (const [name, levels, describe, event] of ACHIEVEMENTS) {
    for (const [i, target] of levels.entries()) {
      const image = event ? contentImage(`badge-${emailPart(name)}`) : contentImage(`badge-level-${i + 1}`)
      const created = name === 'Spring Starter' ? at(-250) : name === 'Autumn Rider' ? at(-30) : at(-162)
      achievementRows.push([achievementRows.length + 1, name, describe(target.toLocaleString('en-US')), contentImage('badge-locked'), image, i + 1, target, '0', ...audit(created), ''])
    }
  }

  // ---- Help centre FAQ, insurance and warranty policies, user help.
  const faqRows = table('content_faq', ['faq_id', 'type', 'title', 'introduction', 'order_num', 'content', 'language', 'status', ...AUDIT])
  for (const lang of APP_LANGUAGES) {
    for (const [i, [type, texts]] of FAQ.entries()) {
      const [title, introduction, content] = texts[lang]
      faqRows.push([faqRows.length + 1, type, title, introduction, i + 1, content, lang, '0', ...audit(plan.start + i * 3 * DAY), ''])
    }
  }
  const policyRows = table('cnt_policy', ['policy_id', 'title', 'type', 'content', 'coverage_months', 'link_url', 'language', 'country_id', 'status', ...AUDIT])
  for (const [i, p] of POLICIES.entries()) {
    for (const lang of APP_LANGUAGES) {
      const text = p.texts[lang]
      if (!text) continue
      policyRows.push([
        policyRows.length + 1, text[0], p.type, text[1], p.months, `https://velo.example/${lang.slice(0, 2)}/${p.link}`, lang, countryId(p.country), p.disabled ? '1' : '0', ...audit(plan.start + (20 + i * 9) * DAY), '',
      ])
    }
  }
  const files: DemoFile[] = []
  const helpRows = table('cnt_user_help', ['help_id', 'title', 'type', 'model_id', 'language', 'cover_image', 'video', 'video_duration', 'document', 'link_url', 'order_num', 'status', ...AUDIT])
  const coverOf = (code: string) => {
    const model = plan.models.find((m) => m.spec.code === code) ?? plan.models[0]!
    return pictureName(model.spec.code, model.colours[0]!.code, 1)
  }
  for (const lang of APP_LANGUAGES) {
    const short = lang.slice(0, 2)
    for (const [i, [slug, code, seconds, titles]] of VIDEOS.entries()) {
      const model = code ? plan.models.find((m) => m.spec.code === code) : undefined
      helpRows.push([
        helpRows.length + 1, titles[lang], 'video', model?.id ?? null, lang, coverOf(code ?? 'MET'), null, seconds, null, `https://velo.example/${short}/videos/${slug}`, i + 1, '0', ...audit(at(-300 + i * 20)), '',
      ])
    }
    for (const [i, m] of plan.models.entries()) {
      const title = MANUAL_TITLE[lang].replace('{model}', m.spec.name)
      const created = m.launch - 20 * DAY
      const name = `file/userHelp/demo/manual-${m.spec.code}-${short}.pdf`
      files.push({ name, entity: 'userHelp', field: 'document', originalName: `${m.spec.name.replace(/ /g, '-')}-${short}.pdf`, bytes: manualPdf(title, m.spec.remark, MANUAL_NOTE[lang]), created })
      helpRows.push([
        helpRows.length + 1, title, 'manual', m.id, lang, coverOf(m.spec.code), null, null, name, `https://velo.example/${short}/manuals/${m.spec.code.toLowerCase()}`, 10 + i, '0', ...audit(created), '',
      ])
    }
  }

  // ---- Error codes and service centres.
  const errorRows = table('cnt_error_code', ['error_code_id', 'code', 'level', 'description', 'solution', 'error_type', 'status', ...AUDIT])
  for (const [i, [code, level, type, description, solution, disabled]] of ERROR_CODES.entries()) {
    errorRows.push([i + 1, code, level, description, solution, type, disabled ? '1' : '0', ...audit(plan.start + i * DAY), ''])
  }
  const centreRows = table('cnt_service_centre', [
    'centre_id', 'name', 'address', 'country_id', 'latitude', 'longitude', 'phone', 'email', 'opening_hours', 'offers_sales', 'offers_repair', 'offers_test_ride', 'offers_warranty', 'status', ...AUDIT,
  ])
  for (const [i, [name, address, code, lat, lng, phone, hours, sales, repair, testRide, warranty, closed]] of SERVICE_CENTRES.entries()) {
    const country = countryId(code)
    if (country === null) continue
    const local = emailPart(name.replace(/^Velo\b/, ''))
    const email = `${local || `service-${code.toLowerCase()}${i + 1}`}@stores.velo.example`
    centreRows.push([centreRows.length + 1, name, address, country, lat, lng, phone, email, hours, sales, repair, testRide, warranty, closed ? '1' : '0', ...audit(plan.start + (i * 11) * DAY), ''])
  }

  // ---- What the app uploaded: logs from Help › Send app log (the last 90 days), and crash reports.
  const uploads = planUploads(r, plan, o.app, files)
  const uploadRows = table('mon_app_upload_log', ['upload_id', 'member_id', 'device_id', 'log_type', 'platform', 'app_version', 'os_version', 'file', 'original_name', 'file_size', 'upload_time'])
  for (const [i, u] of uploads.entries()) uploadRows.push([i + 1, u.member.id, u.deviceId, u.logType, u.platform, u.appVersion, u.osVersion, u.file.name, u.file.originalName, u.file.bytes.length, iso(u.time)])

  // ---- Pictures: one per theme (activities and banners share them), per guide, per medal.
  const images: ContentPlan['images'] = []
  for (const [theme, [category, frame, background]] of Object.entries(THEMES) as [Theme, (typeof THEMES)[Theme]][]) {
    images.push({ name: contentImage(theme), draw: () => bikeDrawing(category, hexColour(frame), hexColour(background)) })
  }
  for (const [i, [frame, background]] of GUIDES.entries()) images.push({ name: contentImage(`guide-${i + 1}`), draw: () => bikeDrawing('city', hexColour(frame), hexColour(background)) })
  const light = hexColour('#F4F4F5')
  images.push({ name: contentImage('badge-locked'), draw: () => badge(hexColour('#D4D4D8'), light) })
  for (const [i, colour] of LEVEL_COLOURS.entries()) images.push({ name: contentImage(`badge-level-${i + 1}`), draw: () => badge(hexColour(colour), light) })
  for (const [name, , , event] of ACHIEVEMENTS) if (event) images.push({ name: contentImage(`badge-${emailPart(name)}`), draw: () => badge(hexColour(event), light) })

  return { rider, tables, images, files }
}

interface Upload {
  member: PlannedMember
  deviceId: string
  platform: 'ios' | 'android'
  logType: 'log' | 'crash'
  appVersion: string
  osVersion: string
  time: number
  /** A crash report's: when the app fell over (the report is sent at the next launch). */
  crashed?: number
  file: DemoFile
}

const IPHONES = ['iPhone 15', 'iPhone 15 Pro', 'iPhone 16', 'iPhone 16 Pro', 'iPhone 17', 'iPhone SE (3rd generation)']
const ANDROIDS = ['Samsung Galaxy S24', 'Samsung Galaxy A55', 'Google Pixel 9', 'Google Pixel 8a', 'Xiaomi 14', 'OnePlus 12', 'Fairphone 5']

function planUploads(r: Random, plan: Plan, app: { usage: AppUsage; crashes: readonly CrashReport[] }, files: DemoFile[]): Upload[] {
  const { end, members } = plan
  const from = end - 90 * DAY
  const riders = members.filter((m) => m.bikes.length > 0 && m.lastLogin > from + DAY)
  const pool = riders.length ? riders : members
  // About 2 % of the members send their log from the help screen in three months. The crash reports
  // are the ones the app's crashes sent at the next launch (the app.crash events of the last 120 days).
  const count = Math.max(3, Math.round(members.length * 0.0225))
  const devices = new Map<PlannedMember, { platform: 'ios' | 'android'; model: string; id: string }>()
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[r.int(16)]).join('')
  const deviceOf = (member: PlannedMember) => {
    let device = devices.get(member)
    if (!device) {
      const platform = app.usage.platformOf(member)
      device =
        platform === 'android'
          ? { platform, model: r.pick(ANDROIDS), id: hex(16) }
          : { platform, model: r.pick(IPHONES), id: `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`.toUpperCase() }
      devices.set(member, device)
    }
    return device
  }
  const osOf = (platform: 'ios' | 'android', time: number) =>
    platform === 'ios' ? `iOS ${time < end - 60 * DAY ? r.pick(['26.6', '26.6.1']) : r.pick(['26.6.1', '27.0.1', '27.1'])}` : `Android ${r.pick(['14', '15', '16', '16', '17'])}`
  const uploads: Omit<Upload, 'file'>[] = []
  for (let i = 0; i < count; i++) {
    const member = r.pick(pool)
    const device = deviceOf(member)
    const lower = Math.max(member.reg + HOUR, from)
    const time = lower < member.lastLogin ? r.between(lower, member.lastLogin) : member.lastLogin
    uploads.push({ member, deviceId: device.id, platform: device.platform, logType: 'log', appVersion: app.usage.versionAt(member, time), osVersion: `${osOf(device.platform, time)} (${device.model})`, time })
  }
  for (const c of app.crashes) {
    if (c.time >= end) continue
    const device = deviceOf(c.member)
    uploads.push({ member: c.member, deviceId: device.id, platform: c.platform, logType: 'crash', appVersion: c.appVersion, osVersion: `${osOf(c.platform, c.time)} (${device.model})`, time: c.time, crashed: c.crashed })
  }
  uploads.sort((a, b) => a.time - b.time)
  return uploads.map((u, i) => {
    const stamp = iso(u.time)
    const file: DemoFile =
      u.logType === 'crash'
        ? { name: `file/appUploadLog/demo/${i + 1}.json`, entity: 'appUploadLog', field: 'file', originalName: `crash-${stamp.slice(0, 19).replace(/:/g, '-')}.json`, bytes: crashReport(r, u), created: u.time }
        : { name: `file/appUploadLog/demo/${i + 1}.log`, entity: 'appUploadLog', field: 'file', originalName: `velo-${u.platform}-${stamp.slice(0, 10)}.log`, bytes: appLog(r, u), created: u.time }
    files.push(file)
    return { ...u, file }
  })
}

/** A few minutes of the app's own log before the member sent it from the help screen. */
function appLog(r: Random, u: Omit<Upload, 'file'>): Buffer {
  const bike = u.member.bikes[0]
  const frame = bike?.frameNumber || 'unknown'
  const minutes = Math.round(r.between(6, 70))
  // The ride, then a few minutes until the member sent the log; each line a few seconds after the last.
  let t = u.time - (minutes + r.between(4, 12)) * MINUTE
  const lines: string[] = []
  const line = (level: 'I' | 'W' | 'E', tag: string, text: string) => {
    t += r.between(0.05, 12) * 1000
    lines.push(`${iso(t).replace('T', ' ').slice(0, 23)} ${level}/${tag}: ${text}`)
  }
  line('I', 'App', `Velo ${u.appVersion} (${u.appVersion.replace(/\./g, '')}) started on ${u.osVersion}`)
  line('I', 'Auth', `Session restored for member ${u.member.id}`)
  line('I', 'BLE', 'Scanning for bound bikes')
  const trouble = r.pick(['ble', 'sync', 'firmware', 'none'] as const)
  if (trouble === 'ble') {
    line('W', 'BLE', `Bike ${frame} not found (BLE-4002), retry 1/3`)
    line('W', 'BLE', `Bike ${frame} not found (BLE-4002), retry 2/3`)
    line('I', 'BLE', `Connected to ${frame}, RSSI -${Math.round(r.between(55, 88))} dBm, MTU 185`)
  } else {
    line('I', 'BLE', `Connected to ${frame}, RSSI -${Math.round(r.between(45, 75))} dBm, MTU 247`)
  }
  line('I', 'Bike', `Battery ${Math.round(r.between(12, 100))} %, health ${bike?.health ?? 100} %, assist level ${r.int(5) + 1}`)
  line('I', 'Ride', 'Ride started')
  t += minutes * MINUTE
  line('I', 'Ride', `Ride ended: ${((minutes / 60) * r.between(16, 23)).toFixed(1)} km, ${minutes} min`)
  if (trouble === 'sync') {
    line('W', 'Sync', 'Upload of 1 ride failed: timeout after 30000 ms (NET-3002), retry in 60 s')
    line('W', 'Sync', 'Upload of 1 ride failed: HTTP 503 (NET-3003), retry in 120 s')
    line('I', 'Sync', '1 ride uploaded')
  } else {
    line('I', 'Sync', '1 ride uploaded')
  }
  if (trouble === 'firmware') {
    line('I', 'OTA', 'Firmware 2.4.1 available for the motor controller')
    line('E', 'OTA', 'Connection lost at block 312/1024 (BLE-4004): the bike keeps firmware 2.3.7')
  }
  line('I', 'Support', 'Log sent from Help › Send app log')
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8')
}

/** What the crash reporter sends after the app fell over. */
function crashReport(r: Random, u: Omit<Upload, 'file'>): Buffer {
  const ios = u.platform === 'ios'
  const crash = ios
    ? r.pick([
        ['EXC_BAD_ACCESS (SIGSEGV)', 'KERN_INVALID_ADDRESS at 0x0000000000000010', ['VeloRide RideSyncQueue.flush() + 412', 'VeloRide closure #1 in RideSyncQueue.schedule() + 88', 'libdispatch.dylib _dispatch_call_block_and_release + 32']],
        ['EXC_CRASH (SIGABRT)', 'Fatal error: Unexpectedly found nil while unwrapping an Optional value', ['VeloRide BikeCardView.batteryLabel.getter + 156', 'SwiftUI ViewGraph.updateOutputs() + 212', 'UIKitCore -[UIApplication _run] + 888']],
      ] as const)
    : r.pick([
        ['java.lang.IllegalStateException', 'BluetoothGatt is null after reconnect', ['com.velo.ride.ble.BikeConnection.write(BikeConnection.kt:212)', 'com.velo.ride.ble.UnlockCommand.send(UnlockCommand.kt:48)', 'kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:108)']],
        ['java.lang.OutOfMemoryError', 'Failed to allocate a 33177612 byte allocation with 8388608 free bytes', ['android.graphics.BitmapFactory.decodeStream(BitmapFactory.java:790)', 'com.velo.ride.map.RideMapRenderer.render(RideMapRenderer.kt:131)', 'com.velo.ride.rides.RideDetailFragment.onViewCreated(RideDetailFragment.kt:77)']],
      ] as const)
  const report = {
    app: 'Velo',
    version: u.appVersion,
    platform: u.platform,
    os: u.osVersion,
    deviceId: u.deviceId,
    time: iso(u.crashed ?? u.time - r.between(1, 30) * MINUTE),
    thread: ios ? 'com.apple.main-thread' : 'main',
    exception: crash[0],
    message: crash[1],
    stack: crash[2],
    memoryFreeMb: Math.round(r.between(40, 900)),
    batteryPercent: Math.round(r.between(5, 100)),
  }
  return Buffer.from(`${JSON.stringify(report, null, 2)}\n`, 'utf8')
}

/** A one-page PDF saying what it stands in for (PDF's own fonts hold no accents: written without). */
function manualPdf(title: string, remark: string, note: string): Buffer {
  const plain = (s: string) =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[’‘]/g, "'")
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/([\\()])/g, '\\$1')
  const lines: [number, string][] = [[22, title], [12, remark], [12, note]]
  const stream = lines.map(([size, text], i) => `BT /F1 ${size} Tf 56 ${770 - i * 32} Td (${plain(text)}) Tj ET`).join('\n')
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ]
  let out = '%PDF-1.4\n'
  const offsets: number[] = []
  for (const [i, body] of objects.entries()) {
    offsets.push(out.length)
    out += `${i + 1} 0 obj\n${body}\nendobj\n`
  }
  const xref = out.length
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}

/** Writes the pictures and files the rows name (the same bytes each run; the files' folders emptied first). */
export async function writeContentFiles(storage: Storage, content: ContentPlan): Promise<void> {
  const save = async (name: string, bytes: Buffer) => {
    const file = storage.resolve(name)
    if (!file) throw new Error(`bad stored name ${name}`)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, bytes)
  }
  for (const folder of DEMO_FILE_FOLDERS) {
    const dir = storage.resolve(folder)
    if (dir) await rm(dir, { recursive: true, force: true })
  }
  for (const image of content.images) await save(image.name, image.draw())
  for (const f of content.files) await save(f.name, f.bytes)
}

/** The content's rows, then the sys_file rows of its files (created by the demo, so the next run deletes them). */
export async function writeContent(tx: Db, dialect: Dialect, content: ContentPlan, mark: string): Promise<Record<string, number>> {
  const written: Record<string, number> = {}
  for (const t of content.tables) {
    const w = new TableWriter(tx, dialect, t.table, t.columns)
    for (const row of t.rows) await w.add(...row)
    await w.flush()
    written[t.table] = w.written
  }
  const sysFile = new TableWriter(tx, dialect, 'sys_file', ['file_name', 'original_name', 'size', 'content_type', 'sha256', 'md5', 'crc8', 'crc8_variant', 'entity', 'field', 'create_by', 'create_time'])
  for (const f of content.files) {
    const digests = new StreamDigests()
    digests.update(f.bytes)
    const d = digests.result()
    const { contentType } = await sniff(f.name.slice(f.name.lastIndexOf('.') + 1), f.bytes)
    await sysFile.add(f.name, f.originalName, d.size, contentType, d.sha256, d.md5, d.crc8.value, d.crc8.variant, f.entity, f.field, mark, iso(f.created))
  }
  await sysFile.flush()
  written.sys_file = sysFile.written
  return written
}
