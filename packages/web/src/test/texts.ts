import type { Language } from '@velo/shared'

// Every texts file of the app (pages/<area>/texts.<language>.ts, and a kit's beside it), as tests see
// them. The browser loads a page's with the page (routes/pageTexts.ts); tests render pages and their
// parts on their own, so setup.ts adds them all.

export interface TextsFile {
  /** 'pages/iot' */
  folder: string
  language: Language
  /** What the file gives i18next: its own texts and those it brings from elsewhere. */
  texts: Readonly<Record<string, string>>
}

const modules = import.meta.glob<Readonly<Record<string, string>>>('../**/texts.*.ts', { import: 'default', eager: true })

export const TEXTS_FILES: readonly TextsFile[] = Object.entries(modules).map(([path, texts]) => {
  const [, folder, language] = /^\.\.\/(.+)\/texts\.(\w+)\.ts$/.exec(path)!
  return { folder: folder!, language: language as Language, texts }
})
