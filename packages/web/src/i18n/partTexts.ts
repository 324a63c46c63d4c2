import type { Language } from '@velo/shared'
import { addTexts, currentLanguage } from '.'

/**
 * The words of a part loaded on first use (the import dialog, the form, a dialog), added to i18next
 * when it loads: i18next holds one language, and a switch reloads the page, so only the current
 * language's are added. The part's texts files sit beside it (texts.en_US.ts, texts.zh_CN.ts).
 */
export function addPartTexts(texts: Readonly<Record<Language, Readonly<Record<string, string>>>>): void {
  addTexts(currentLanguage(), texts[currentLanguage()])
}
