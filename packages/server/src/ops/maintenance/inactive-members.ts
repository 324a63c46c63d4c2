import type { AppLanguage, RetentionNotices } from '@velo/shared'
import { appLanguageOfCountry } from '../../platform/i18n/app-language'
import { yieldWhenDue } from '../../lib/event-loop'
import { AppError } from '../../platform/errors'
import { eraseRider, erasureHolds } from '../../platform/privacy/erasure'
import { loadRider } from '../../platform/privacy/rider-rows'
import type { Services } from '../../platform/services'
import type { Db } from '../../db/database'

// Members who have not used their account for years (docs/privacy.md › Retention): told in the app
// that it will be erased unless they sign in, and erased once the notice period has passed without
// a sign-in or any activity. The retention job runs it as its inactiveMembers target.

export const INACTIVE_MEMBER_YEARS_KEY = 'privacy.retention.inactiveMemberYears'
export const DEFAULT_INACTIVE_MEMBER_YEARS = 3
export const ERASURE_NOTICE_DAYS_KEY = 'privacy.retention.erasureNoticeDays'
export const DEFAULT_ERASURE_NOTICE_DAYS = 30
const DAY_MS = 86_400_000
/** Members read per step. */
const CHUNK = 500
/** Who wrote the notices (the message's createBy) and who asked for the erasures (the operation log). */
const BY = 'retention'

/**
 * The notice in each app language (the member's is read off their country: appLanguageOfCountry): app content, written here rather than in the console's message
 * catalogues, which hold the console's English and Chinese only. {date} is the erasure's day, in the language's format.
 */
const NOTICES: Record<AppLanguage, { locale: string; title: string; text: (years: number, date: string) => string }> = {
  en_US: {
    locale: 'en-GB',
    title: 'Your account will be erased',
    text: (years, date) =>
      `You have not used your account for ${years === 1 ? 'a year' : `${years} years`}. We keep personal data no longer than needed, so your account and its data (profile, rides, feedback, uploads) will be erased on ${date}. To keep your account, simply sign in to the app before then.`,
  },
  de_DE: {
    locale: 'de-DE',
    title: 'Ihr Konto wird gelöscht',
    text: (years, date) =>
      `Sie haben Ihr Konto seit ${years === 1 ? 'einem Jahr' : `${years} Jahren`} nicht genutzt. Wir speichern personenbezogene Daten nicht länger als nötig, daher werden Ihr Konto und seine Daten (Profil, Fahrten, Feedback, hochgeladene Dateien) am ${date} gelöscht. Wenn Sie Ihr Konto behalten möchten, melden Sie sich einfach vorher in der App an.`,
  },
  nl_NL: {
    locale: 'nl-NL',
    title: 'Uw account wordt verwijderd',
    text: (years, date) =>
      `U hebt uw account al ${years} jaar niet gebruikt. Wij bewaren persoonsgegevens niet langer dan nodig, daarom worden uw account en de gegevens ervan (profiel, ritten, feedback, uploads) op ${date} verwijderd. Wilt u uw account behouden, meld u dan vóór die datum aan in de app.`,
  },
  fr_FR: {
    locale: 'fr-FR',
    title: 'Votre compte va être supprimé',
    text: (years, date) =>
      `Vous n’avez pas utilisé votre compte depuis ${years === 1 ? 'un an' : `${years} ans`}. Nous ne conservons pas les données personnelles plus longtemps que nécessaire : votre compte et ses données (profil, trajets, avis, fichiers envoyés) seront donc supprimés le ${date}. Pour conserver votre compte, connectez-vous simplement à l’application avant cette date.`,
  },
}


/** When a member counts as inactive, and since when a notice has run its period. */
interface Limits {
  years: number
  /** Activity before this time (a sign-in, the registration) is old enough. */
  inactiveBefore: string
  /** lastActiveDay before this day is old enough: a day counts whole, so the cutoff's own day is recent. */
  inactiveBeforeDay: string
  /** A notice given before this has run its period. */
  noticeBefore: number
  now: string
  noticeDays: number
}

/**
 * What tells when a member was last there: their registration, last sign-in, last day with a ride or
 * an app event, and the last use of an app session (a session lasts while it is used, so a rider who
 * uses the app every week may not have signed in for years).
 */
interface Activity {
  createTime: string | null
  lastLoginTime: string | null
  lastActiveDay: string | null
  lastSeen: string | null
}

const before = (time: string | null, limit: string) => time === null || Date.parse(time) < Date.parse(limit)

/** Whether nothing the member did is newer than the limit (the same test as the notices' query). */
const inactive = (m: Activity, l: Limits) =>
  m.createTime !== null && before(m.createTime, l.inactiveBefore) && before(m.lastLoginTime, l.inactiveBefore) && before(m.lastSeen, l.inactiveBefore) && (m.lastActiveDay === null || m.lastActiveDay < l.inactiveBeforeDay)

/** Whether the member signed in or used the app after the notice, or was active on its day or later (a day's activity has no time). */
function activeSince(m: Activity, notice: string): boolean {
  const after = (time: string | null) => time !== null && Date.parse(time) > Date.parse(notice)
  if (after(m.lastLoginTime) || after(m.lastSeen)) return true
  return m.lastActiveDay !== null && m.lastActiveDay >= new Date(notice).toISOString().slice(0, 10)
}

/**
 * Members given a notice: void when they came back (or are no longer inactive long enough, the
 * setting raised), erased once the notice period has passed. An erasure a hold refuses (409) is
 * counted and left for a later run. Answers how many members were erased.
 */
async function reviewNotices(services: Services, l: Limits, counts: RetentionNotices, signal: AbortSignal): Promise<number> {
  const { db } = services
  let erased = 0
  let after = 0
  for (;;) {
    signal.throwIfAborted()
    const rows = await db
      .selectFrom('memMember as m')
      .select((eb) => [
        'm.memberId',
        'm.createTime',
        'm.lastLoginTime',
        'm.lastActiveDay',
        'm.erasureNoticeTime',
        eb.selectFrom('memSession as s').select((s) => s.fn.max('s.lastSeen').as('lastSeen')).whereRef('s.memberId', '=', 'm.memberId').as('lastSeen'),
      ])
      .where('m.erasureNoticeTime', 'is not', null)
      .where('m.erasedTime', 'is', null)
      .where('m.memberId', '>', after)
      .orderBy('m.memberId')
      .limit(CHUNK)
      .execute()
    for (const m of rows) {
      const memberId = Number(m.memberId)
      const notice = String(m.erasureNoticeTime)
      if (activeSince(m, notice) || !inactive(m, l)) {
        const voided = await db.updateTable('memMember').set({ erasureNoticeTime: null }).where('memberId', '=', memberId).where('erasedTime', 'is', null).executeTakeFirst()
        counts.voided += Number(voided.numUpdatedRows)
        continue
      }
      if (Date.parse(notice) >= l.noticeBefore) continue
      // Looked at first: an erasure refused is written to the operation log, and a hold may last for months of hourly runs.
      const rider = await loadRider(db, memberId)
      if (!rider) continue
      if ((await erasureHolds(db, rider, 'en_US')).length) {
        counts.held++
        continue
      }
      try {
        await eraseRider(services, memberId, { by: BY, request: `inactive for ${l.years} years`, lang: 'en_US', signal })
        erased++
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        // Held since it was looked at, or erased meanwhile: tried again next run.
        if (err.status === 409) counts.held++
        // Gone meanwhile: nothing to erase.
        else if (err.status !== 404) throw err
      }
    }
    if (rows.length < CHUNK) return erased
    after = Number(rows.at(-1)!.memberId)
    await yieldWhenDue()
  }
}

/** The run's notice message in one language: made when its first member is told, then every member of that language this run is added to it. */
async function noticeMessage(tx: Db, lang: AppLanguage, l: Limits): Promise<number> {
  const notice = NOTICES[lang]
  const erasureDay = new Date(Date.parse(l.now) + l.noticeDays * DAY_MS)
  const date = new Intl.DateTimeFormat(notice.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(erasureDay)
  const row = await tx
    .insertInto('cntMessage')
    .values({
      title: notice.title,
      content: `<p>${notice.text(l.years, date)}</p>`,
      audience: 'members',
      sendMode: 'now',
      status: 'sent',
      sentCount: 0,
      readCount: 0,
      sentTime: l.now,
      remark: `Erasure notice of the data retention job (${lang}): members inactive for ${l.years} years`,
      createBy: BY,
      createTime: l.now,
    })
    .returning('messageId')
    .executeTakeFirstOrThrow()
  return Number(row.messageId)
}

/**
 * Tells these members, in one language, that their account will be erased: the notice time on the
 * member and the message in their inbox in one transaction, for those still without a notice.
 * Answers how many were told.
 */
async function notify(services: Services, lang: AppLanguage, memberIds: number[], messages: Map<AppLanguage, number>, l: Limits): Promise<number> {
  let messageId = messages.get(lang)
  const told = await services.db.transaction().execute(async (tx) => {
    const noticed = await tx
      .updateTable('memMember')
      .set({ erasureNoticeTime: l.now })
      .where('memberId', 'in', memberIds)
      .where('erasureNoticeTime', 'is', null)
      .where('erasedTime', 'is', null)
      .returning('memberId')
      .execute()
    if (!noticed.length) return 0
    messageId ??= await noticeMessage(tx, lang, l)
    const id = messageId
    // Chosen for these members (the console's message names them) and delivered to their inbox.
    await tx
      .insertInto('cntMessageMember')
      .values(noticed.map((m) => ({ messageId: id, memberId: Number(m.memberId) })))
      .execute()
    await tx
      .insertInto('cntMessageRecipient')
      .values(noticed.map((m) => ({ messageId: id, memberId: Number(m.memberId), createTime: l.now })))
      .execute()
    await tx
      .updateTable('cntMessage')
      .set((eb) => ({ sentCount: eb('sentCount', '+', noticed.length) }))
      .where('messageId', '=', id)
      .execute()
    return noticed.length
  })
  if (messageId !== undefined) messages.set(lang, messageId)
  return told
}

/**
 * Members inactive since before the limit, not erased, without a notice: those something holds (a
 * legal hold, an open service order) are counted and left alone, as the notice would promise an
 * erasure that cannot happen; the others are told.
 */
async function sendNotices(services: Services, l: Limits, counts: RetentionNotices, signal: AbortSignal): Promise<void> {
  const { db } = services
  const messages = new Map<AppLanguage, number>()
  let after = 0
  for (;;) {
    signal.throwIfAborted()
    const rows = await db
      .selectFrom('memMember as m')
      .leftJoin('sysCountry as c', 'c.countryId', 'm.countryId')
      .select(['m.memberId', 'm.legalHold', 'c.code'])
      .where('m.erasedTime', 'is', null)
      .where('m.erasureNoticeTime', 'is', null)
      .where('m.createTime', '<', l.inactiveBefore)
      .where((eb) => eb.or([eb('m.lastLoginTime', 'is', null), eb('m.lastLoginTime', '<', l.inactiveBefore)]))
      .where((eb) => eb.or([eb('m.lastActiveDay', 'is', null), eb('m.lastActiveDay', '<', l.inactiveBeforeDay)]))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('memSession as s').select('s.memberId').whereRef('s.memberId', '=', 'm.memberId').where('s.lastSeen', '>=', l.inactiveBefore))))
      .where('m.memberId', '>', after)
      .orderBy('m.memberId')
      .limit(CHUNK)
      .execute()
    const byLanguage = new Map<AppLanguage, number[]>()
    for (const m of rows) {
      const memberId = Number(m.memberId)
      if (m.legalHold?.trim()) {
        counts.held++
        continue
      }
      const rider = await loadRider(db, memberId)
      if (!rider) continue
      if ((await erasureHolds(db, rider, 'en_US')).length) {
        counts.held++
        continue
      }
      const lang = appLanguageOfCountry(m.code)
      byLanguage.set(lang, [...(byLanguage.get(lang) ?? []), memberId])
    }
    for (const [lang, ids] of byLanguage) counts.sent += await notify(services, lang, ids, messages, l)
    if (rows.length < CHUNK) return
    after = Number(rows.at(-1)!.memberId)
    await yieldWhenDue()
  }
}

/**
 * The inactiveMembers target: first the members already told (void or erase), then new notices.
 * Answers how many members were erased; `counts` gets the notices sent, voided and held.
 */
export async function retireInactiveMembers(services: Services, signal: AbortSignal, counts: RetentionNotices, at = Date.now()): Promise<number> {
  const years = await services.configValues.int(INACTIVE_MEMBER_YEARS_KEY, DEFAULT_INACTIVE_MEMBER_YEARS)
  const noticeDays = await services.configValues.int(ERASURE_NOTICE_DAYS_KEY, DEFAULT_ERASURE_NOTICE_DAYS)
  const limit = inactiveLimit(years, at)
  const l: Limits = {
    years,
    inactiveBefore: limit.toISOString(),
    inactiveBeforeDay: limit.toISOString().slice(0, 10),
    noticeBefore: at - noticeDays * DAY_MS,
    now: new Date(at).toISOString(),
    noticeDays,
  }
  const erased = await reviewNotices(services, l, counts, signal)
  await sendNotices(services, l, counts, signal)
  return erased
}

/** The same moment `years` calendar years earlier (29 February falls on 1 March). */
export function inactiveLimit(years: number, at = Date.now()): Date {
  const d = new Date(at)
  d.setUTCFullYear(d.getUTCFullYear() - years)
  return d
}
