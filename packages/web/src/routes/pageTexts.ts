import type { Language } from '@velo/shared'
import { addTexts, currentLanguage } from '../i18n'

// The console's catalogue (i18n/en_US.ts) holds the shell's and the list kit's texts and those of
// pages with few words; an area with many keeps them beside its pages, one file per language
// (pages/iot/texts.en_US.ts, texts.zh_CN.ts), so a user who opens System › Users downloads none of
// IoT's words, and an English page none of the Chinese. A folder's texts come with every page module
// under it (pages/tool/gen/edit.tsx brings pages/tool/gen's and would bring pages/tool's), fetched
// beside the page's code and added to i18next before the page renders. A file brings what its pages
// show from elsewhere by importing it (OTA's brings IoT's, Home's the dashboards kit's); the tests
// check that every key a file uses is in the catalogue or in the texts that come with it
// (pageTexts.test.ts).

type Texts = Readonly<Record<string, string>>

const files = import.meta.glob<Texts>('../pages/**/texts.*.ts', { import: 'default' })

/** The texts files that come with a page module ('../pages/tool/gen/edit.tsx'), innermost folder first. */
export function pageTextFiles(pageFile: string, language: Language): string[] {
  const found: string[] = []
  for (let folder = pageFile.slice(0, pageFile.lastIndexOf('/')); folder.startsWith('../pages/'); folder = folder.slice(0, folder.lastIndexOf('/'))) {
    const file = `${folder}/texts.${language}.ts`
    if (file in files) found.push(file)
  }
  return found
}

const loads = new Map<string, Promise<void>>()

function load(file: string, language: Language): Promise<void> {
  let loading = loads.get(file)
  if (!loading) {
    loading = files[file]!().then((texts) => addTexts(language, texts))
    // A failed download may be tried again by the next page that needs the texts.
    loading.catch(() => loads.delete(file))
    loads.set(file, loading)
  }
  return loading
}

/**
 * A page module's texts, in the page's language: i18next holds one language, and a switch reloads
 * the page (i18n/language.ts), so the other language's files are never needed.
 */
export function loadPageTexts(pageFile: string, language: Language = currentLanguage()): Promise<void> {
  return Promise.all(pageTextFiles(pageFile, language).map((file) => load(file, language))).then(() => undefined)
}
