import type { Language } from '@velo/shared'
import { type MessageKey, type MessageParams, t } from '../../../platform/i18n'

/**
 * Why a campaign paused, as kept in its pauseReason: the sentence in English, a newline, the same in
 * Chinese. Lists show both; the overview answers the reader's line. A person's own reason is kept
 * as they wrote it.
 */
export function bothLanguages(key: MessageKey, params: (lang: Language) => MessageParams): string {
  return `${t('en_US', key, params('en_US'))}\n${t('zh_CN', key, params('zh_CN'))}`
}

/** The reader's line of a kept reason (a reason with one line is a person's, shown as written). */
export function reasonIn(lang: Language, stored: string | null | undefined): string | null {
  if (!stored) return null
  const lines = stored.split('\n')
  return lines.length === 2 ? lines[lang === 'zh_CN' ? 1 : 0]! : stored
}

/** "the canary" or "wave 2", in the language of the sentence it goes into. */
export const waveName = (lang: Language, wave: number) => (wave === 0 ? t(lang, 'ota.rollout.canary') : t(lang, 'ota.rollout.wave', { wave }))
