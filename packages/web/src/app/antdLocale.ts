import type { Locale } from 'antd/es/locale'
import enUS from 'antd/locale/en_US'
import dayjs from 'dayjs'
import { currentLanguage } from '../i18n'

// The language only changes with a page reload, so antd's and dayjs's locales are set once, before
// the console renders (console.ts waits for this as for the texts). The Chinese ones are a chunk of
// their own that only a Chinese page loads, as the Chinese texts are.
let locale: Locale = enUS

export async function loadAntdLocale(language = currentLanguage()): Promise<void> {
  if (language !== 'zh_CN') return void dayjs.locale('en')
  const [zhCN] = await Promise.all([import('antd/locale/zh_CN').then((m) => m.default), import('dayjs/locale/zh-cn')])
  locale = zhCN
  dayjs.locale('zh-cn')
}

/** antd's locale for the page's language (English until a Chinese page's has loaded). */
export const antdLocale = (): Locale => locale
