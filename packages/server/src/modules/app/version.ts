import { APP_LANGUAGES, type AppLanguage, compareVersions, contentEntities } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { bilingual } from '../../platform/i18n/zod-messages'
import { PUBLIC } from '../../platform/rbac/guard'
import { envelope } from '../../platform/responses'
import type { Services } from '../../platform/services'
import { APP_TAGS } from './tables'
import type { Db } from '../../db/database'

type Platform = 'ios' | 'android'
const PLATFORMS = contentEntities.appVersion.fields.find((f) => f.name === 'platform')!
const PLATFORM_VALUES = (PLATFORMS.kind === 'enum' ? PLATFORMS.options.map((o) => o.value) : []) as [Platform, ...Platform[]]

interface VersionRow {
  versionCode: string
  versionType: string
  downloadUrl: string
  updateInterval: number
  current: boolean
  releaseTime: string
  notes: Record<AppLanguage, string>
}

/**
 * How long the versions of a platform are reused before they are read again. Every app asks at each
 * start; this many requests of one instance share one read, and a change made in the console is
 * answered by every instance within this time.
 */
const VERSIONS_FRESH_MS = 1000

/** The versions of each platform, read at most once per VERSIONS_FRESH_MS (concurrent callers share the read). */
class PlatformVersions {
  private readonly kept = new Map<Platform, { readAt: number; rows: Promise<VersionRow[]> }>()
  constructor(private readonly db: Db) {}

  get(platform: Platform): Promise<VersionRow[]> {
    const now = Date.now()
    const kept = this.kept.get(platform)
    if (kept && now - kept.readAt < VERSIONS_FRESH_MS) return kept.rows
    const rows = this.read(platform)
    this.kept.set(platform, { readAt: now, rows })
    // A failed read is not kept: the next caller tries again.
    rows.catch(() => this.kept.get(platform)?.rows === rows && this.kept.delete(platform))
    return rows
  }

  private async read(platform: Platform): Promise<VersionRow[]> {
    // (platform, version_code) is unique: the index holds the rows of the platform.
    const rows = await this.db
      .selectFrom('cntAppVersion')
      .select(['versionCode', 'versionType', 'downloadUrl', 'updateInterval', 'current', 'releaseTime', 'notesEn', 'notesDe', 'notesNl', 'notesFr'])
      .where('platform', '=', platform)
      .execute()
    return rows.map((r) => ({
      versionCode: r.versionCode,
      versionType: r.versionType,
      downloadUrl: r.downloadUrl,
      updateInterval: Number(r.updateInterval),
      current: Boolean(r.current),
      releaseTime: r.releaseTime,
      notes: { en_US: r.notesEn, de_DE: r.notesDe, nl_NL: r.notesNl, fr_FR: r.notesFr },
    }))
  }
}

const versionQuery = z.strictObject({
  platform: z.enum(PLATFORM_VALUES),
  version: z
    .string()
    .trim()
    .regex(/^\d{1,3}\.\d{1,3}\.\d{1,3}$/, { message: bilingual({ en_US: 'version must be a version 0.0.0 to 999.999.999', zh_CN: 'version 必须是 0.0.0 到 999.999.999 的版本号' }) }),
  lang: z.enum(APP_LANGUAGES).default('en_US'),
})

const versionAnswer = z.object({
  latest: z
    .object({
      versionCode: z.string(),
      versionType: z.string(),
      downloadUrl: z.string(),
      updateInterval: z.number(),
      releaseNotes: z.string(),
      releaseTime: z.string(),
    })
    .nullable(),
  updateAvailable: z.boolean(),
  forceUpdate: z.boolean(),
})

/** What the app at `version` should do: the current version of its platform, and whether it must update. */
export function versionCheck(rows: readonly VersionRow[], version: string, lang: AppLanguage): z.infer<typeof versionAnswer> {
  const latest = rows.find((r) => r.current)
  if (!latest) return { latest: null, updateAvailable: false, forceUpdate: false }
  const updateAvailable = compareVersions(latest.versionCode, version) > 0
  // A forced version between the app's and the current one makes the update forced, even when the
  // current one itself is a normal update: the app would skip what it must not.
  const forceUpdate = rows.some((r) => r.versionType === 'force' && compareVersions(r.versionCode, version) > 0 && compareVersions(r.versionCode, latest.versionCode) <= 0)
  return {
    latest: {
      versionCode: latest.versionCode,
      versionType: latest.versionType,
      downloadUrl: latest.downloadUrl,
      updateInterval: latest.updateInterval,
      // Notes not written in the asked language fall back to English rather than to nothing.
      releaseNotes: latest.notes[lang] || latest.notes.en_US,
      releaseTime: latest.releaseTime,
    },
    updateAvailable,
    forceUpdate,
  }
}

/** GET /version: the version check every app makes at start (SPEC §3 App version). */
export function registerVersionCheck(app: FastifyInstance, services: Services) {
  const api = app.withTypeProvider<ZodTypeProvider>()
  const versions = new PlatformVersions(services.db)
  api.get(
    '/version',
    {
      config: { permission: PUBLIC },
      schema: {
        tags: APP_TAGS,
        summary: `The current version of the platform and whether the app at ?version should update (forced when a force version lies between); release notes in ?lang (default en_US, English when not written). Console changes show within ${VERSIONS_FRESH_MS / 1000} s`,
        security: [],
        querystring: versionQuery,
        response: { 200: envelope(versionAnswer) },
      },
    },
    async (req) => versionCheck(await versions.get(req.query.platform), req.query.version, req.query.lang),
  )
}
