import i18n from './index'

const formats = new Map<string, Intl.NumberFormat>()

/**
 * A count in the page's language (3,357), whatever the browser's own locale: the one format of the
 * kit's counts (an export's rows, an import's progress), as the server's texts write theirs.
 */
export function formatCount(n: number): string {
  const locale = i18n.language === 'zh_CN' ? 'zh-CN' : 'en-US'
  let format = formats.get(locale)
  if (!format) formats.set(locale, (format = new Intl.NumberFormat(locale)))
  return format.format(n)
}
