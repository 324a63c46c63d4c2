import { describe, expect, it } from 'vitest'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { authEnUS } from '../i18n/auth'
import { enUS } from '../i18n/en_US'
import { menuEnUS } from '../i18n/menus'
import { TEXTS_FILES } from '../test/texts'
import { pageTextFiles } from './pageTexts'

// The texts a page shows are in the console's catalogue (i18n/en_US.ts, with the public pages' and the
// menus') or in the texts that come with it (./pageTexts.ts: those of the folders its module is in). The
// types check that both languages of a file have the same keys; these check, from the source, that a
// file asks only for keys it will find, and that a folder showing another's parts brings their texts.

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const catalogue = new Set(Object.keys({ ...authEnUS, ...enUS, ...menuEnUS }))
const english = TEXTS_FILES.filter((f) => f.language === 'en_US')
const textsOf = new Map(english.map((f) => [f.folder, f.texts]))

/** Source files (path from src), without tests, texts files and the catalogue itself. */
function sources(folder = src): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sources(path)
    const file = relative(src, path)
    return /\.tsx?$/.test(file) && !/\.test\.tsx?$|\/texts\.\w+\.ts$|^i18n\/|^test\//.test(file) ? [file] : []
  })
}
const files = sources()
const code = new Map(files.map((file) => [file, readFileSync(join(src, file), 'utf8')]))

/** The folders of a file, innermost first: 'pages/tool/gen/edit.tsx' → pages/tool/gen, pages/tool, pages. */
const foldersOf = (file: string) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, parts.length - i).join('/'))

/** Every key a file finds: the catalogue's and those of the texts of its folders. */
const reachable = (file: string) => new Set([...catalogue, ...foldersOf(file).flatMap((folder) => Object.keys(textsOf.get(folder) ?? {}))])

const allKeys = [...catalogue, ...english.flatMap((f) => Object.keys(f.texts))]
const prefixes = new Set(allKeys.map((key) => key.slice(0, key.indexOf('.'))))

/** The keys a file names as strings ('iot.copy', "monitorData.backups.empty"), and the prefixes of those it builds (`gen.kind.${kind}`). */
function keysIn(text: string): { keys: string[]; built: string[] } {
  const keys = [...text.matchAll(/(['"])([a-z][A-Za-z]*(?:\.[\w-]+)+)\1/g)].map((m) => m[2]!).filter((s) => prefixes.has(s.slice(0, s.indexOf('.'))))
  const built = [...text.matchAll(/`([a-z][A-Za-z]*(?:\.[\w-]+)*\.)\$\{/g)].map((m) => m[1]!).filter((s) => prefixes.has(s.slice(0, s.indexOf('.'))))
  return { keys, built }
}

const keysOf = new Map(files.map((file) => [file, keysIn(code.get(file)!)]))

/** What of a file's keys the set lacks: a key counts with its plural forms ('log.cleaned' → log.cleaned_one). */
function missing(file: string, found: Set<string>): string[] {
  const { keys, built } = keysOf.get(file)!
  const has = (key: string) => found.has(key) || found.has(`${key}_one`)
  const all = [...found]
  return [...new Set([...keys.filter((key) => !has(key)), ...built.filter((prefix) => !all.some((key) => key.startsWith(prefix))).map((prefix) => `${prefix}*`)])]
}

/** The source files a file imports (relative imports only: the rest has no texts of ours). */
function importsOf(file: string): string[] {
  const imported = [...code.get(file)!.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => join(dirname(file), m[1]!))
  return imported.flatMap((path) => [`${path}.ts`, `${path}.tsx`, `${path}/index.ts`, `${path}/index.tsx`].filter((f) => code.has(f)).slice(0, 1))
}

/** Imports of another folder's code that shows none of its texts. */
const WORDLESS_IMPORTS: Readonly<Record<string, string>> = {
  // Data and backups counts rows as the dashboards do (formatNumber): digits only, no unit words.
  'pages/monitor/dataAndBackups/runs.ts': 'dashboards/format.ts',
}

/** Every source file a file's code reaches through its imports, the file included. */
function shownBy(file: string): string[] {
  const seen = new Set([file])
  const todo = [file]
  while (todo.length > 0) {
    const next = todo.pop()!
    for (const imported of importsOf(next)) {
      if (WORDLESS_IMPORTS[next] === imported || seen.has(imported)) continue
      seen.add(imported)
      todo.push(imported)
    }
  }
  return [...seen]
}

/**
 * A part loaded on first use may bring its own folder's words: it imports a loader beside it for its
 * side effect (`import './formTexts'`, which adds them to i18next), so whatever shows it finds them.
 */
const bringsOwn = (file: string): string[] =>
  /^import '\.\/\w+Texts'$/m.test(code.get(file)!) ? Object.keys(textsOf.get(dirname(file)) ?? {}) : []

describe('texts that come with pages', () => {
  it('come from every folder a page module is in, in the page language only', () => {
    expect(pageTextFiles('../pages/tool/gen/edit.tsx', 'en_US')).toEqual(['../pages/tool/gen/texts.en_US.ts'])
    expect(pageTextFiles('../pages/iot/device/index.tsx', 'zh_CN')).toEqual(['../pages/iot/texts.zh_CN.ts'])
    expect(pageTextFiles('../pages/ota/iotpart/upgrade/index.tsx', 'en_US')).toEqual(['../pages/ota/texts.en_US.ts'])
    // System › Users has none: its words are the console's.
    expect(pageTextFiles('../pages/system/user/index.tsx', 'en_US')).toEqual([])
  })

  it('have the same keys in both languages, with what they bring from elsewhere', () => {
    const folders = [...new Set(TEXTS_FILES.map((f) => f.folder))]
    expect(folders.length).toBeGreaterThan(5)
    for (const folder of folders) {
      const keys = (language: string) => Object.keys(TEXTS_FILES.find((f) => f.folder === folder && f.language === language)?.texts ?? {}).sort()
      expect(keys('zh_CN'), folder).toEqual(keys('en_US'))
    }
  })

  it('repeat none of the console catalogue', () => {
    for (const { folder, texts } of english) expect(Object.keys(texts).filter((key) => catalogue.has(key)), folder).toEqual([])
  })

  it('hold every key a file asks for, with the catalogue', () => {
    const lacking = files.flatMap((file) => missing(file, reachable(file)).map((key) => `${file}: ${key}`))
    expect(lacking).toEqual([])
    // The scan sees the keys: a page with many words, one built from a value, one of a <Trans>.
    expect(keysIn(code.get('pages/iot/device/DeviceDrawer.tsx')!).keys.length).toBeGreaterThan(10)
    expect(keysIn(code.get('pages/tool/gen/ColumnsTable.tsx')!).built).toContain('gen.kind.')
    expect(keysIn(code.get('pages/monitor/dataAndBackups/BackupsCard.tsx')!).keys).toContain('monitorData.backups.empty')
  })

  it("come with every folder that shows another folder's parts (OTA shows IoT's device drawer, Home the dashboards kit)", () => {
    const lacking = files.flatMap((file) => {
      const found = reachable(file)
      return shownBy(file).flatMap((shown) => missing(shown, new Set([...found, ...bringsOwn(shown)])).map((key) => `${file} shows ${shown}: ${key}`))
    })
    expect(lacking).toEqual([])
    expect(importsOf('pages/ota/upgrade/CampaignDrawer.tsx')).toContain('pages/iot/device/DeviceDrawer.tsx')
    expect(bringsOwn('crud/form/typedValue.tsx')).toContain('crud.typedInteger')
  })
})
