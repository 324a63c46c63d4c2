import { describe, expect, it } from 'vitest'
import { allEntities, entityByKey } from '@velo/shared'
import i18n, { translateTitle } from '.'
import { enUS } from './en_US'
import { menuZhCN } from './menus'
import { zhCN } from './zh_CN'
import { TEXTS_FILES } from '../test/texts'

// Where the two languages meet: no English left in the Chinese texts where Chinese has a word for it,
// the same names for the same things in both, and English counts that agree with their number.

/** Terms Chinese admin screens keep in Latin letters: acronyms, file types, units, protocols. */
const KEPT_IN_LATIN = new Set(['OTA', 'IoT', 'App', 'JPG', 'JPEG', 'PNG', 'xls', 'xlsx', 'https', 'JSON', 'dBm', 'SN', 'ID', 'IP', 'QoS', 'SIM', 'MB', 'UUID', 'ICCID', 'URL', 'FAQ', 'API', 'MQTT', 'BMS', 'ECU', 'SQL', 'README', 'seconds', 'true', 'false', 'km', 'WebGL', 'GeoJSON',
  // GeoJSON's own names, as a file must spell them.
  'Polygon', 'MultiPolygon', 'Point', 'radius'])

/** The Latin words of a text, less {{placeholders}} and $t(nesting). */
const latinWords = (text: string) =>
  text
    .replace(/\{\{[^}]*\}\}/g, ' ')
    .replace(/\$t\([^)]*\)/g, ' ')
    // Syntax shown as is: '$share/' of MQTT.
    .replace(/\$\w+/g, ' ')
    .match(/[A-Za-z][A-Za-z-]+/g) ?? []

/** Every text of a language: the console's catalogue and the areas' texts (routes/pageTexts.ts). */
const everyText = (language: 'en_US' | 'zh_CN', catalogue: Record<string, string>) =>
  Object.assign({}, catalogue, ...TEXTS_FILES.filter((f) => f.language === language).map((f) => f.texts)) as Record<string, string>

const zh = i18n.getFixedT('zh_CN')
const en = i18n.getFixedT('en_US')

describe('language seams', () => {
  it('the settings drawer is all Chinese in Chinese', () => {
    const settings = Object.entries(zhCN).filter(([key]) => key.startsWith('settings.'))
    expect(settings.length).toBeGreaterThan(5)
    for (const [key, text] of settings) expect(latinWords(text), `${key}: ${text}`).toEqual([])
    expect(zh('settings.tagsView')).toBe('显示标签栏')
    expect(zh('settings.fixedHeader')).toBe('固定头部')
    expect(en('settings.tagsView')).toBe('Tags view')
    expect(en('settings.fixedHeader')).toBe('Fixed header')
    expect(en('settings.sidebarLogo')).toBe('Sidebar logo')
  })

  it('no Chinese text or menu title keeps an English word that Chinese has a word for', () => {
    const leftovers = Object.entries({ ...everyText('zh_CN', zhCN), ...menuZhCN }).flatMap(([key, text]) =>
      latinWords(text)
        .filter((word) => !KEPT_IN_LATIN.has(word))
        .map((word) => `${key}: ${word}`),
    )
    expect(leftovers).toEqual([])
  })

  it('the home page is Home / 首页 in its tab, breadcrumb, menu and avatar menu', () => {
    expect(translateTitle('route.dashboard')).toBe('Home')
    expect(en('route.dashboard')).toBe(en('navbar.home'))
    expect(zh('route.dashboard')).toBe('首页')
    expect(zh('route.dashboard')).toBe(zh('navbar.home'))
  })

  it('add and modify dialogs name one row: 新增用户, Add user, for every entity', () => {
    const user = entityByKey('user')
    expect(zh('crud.addTitle', { entity: user.singular.zh_CN })).toBe('新增用户')
    expect(zh('crud.editTitle', { entity: user.singular.zh_CN })).toBe('修改用户')
    expect(en('crud.addTitle', { entity: user.singular.en_US })).toBe('Add user')
    expect(en('crud.editTitle', { entity: entityByKey('role').singular.en_US })).toBe('Modify role')
    for (const e of allEntities()) {
      expect(e.singular.zh_CN, e.key).not.toMatch(/管理$/)
    }
  })

  it('English counts agree with their number', () => {
    expect(en('log.cleaned', { count: 1 })).toBe('1 entry deleted')
    expect(en('log.cleaned', { count: 2 })).toBe('2 entries deleted')
    expect(en('crud.importDone', { inserted: 1, updated: 0 })).toBe('1 row added, 0 rows updated')
    expect(en('crud.importDone', { inserted: 4, updated: 1 })).toBe('4 rows added, 1 row updated')
    expect(zh('crud.importDone', { inserted: 1, updated: 0 })).toBe('新增 1 条，更新 0 条')
    // A text with a count that reads "1 things" in English has _one and _other forms.
    const counted = Object.entries(everyText('en_US', enUS)).filter(([key, text]) => /\{\{count\}\} [a-z]+s\b/.test(text) && !/_(one|other)$/.test(key))
    expect(counted.map(([key]) => key)).toEqual([])
  })
})
