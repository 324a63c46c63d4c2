import { DURATION_UNIT_LABELS, type DashboardAnswer, type DashboardDef, type DurationUnit, type FigureColumn, type Language } from '@velo/shared'
import { loadExcelJs } from '../../platform/crud/excel'
import { xmlSafe } from '../../platform/crud/xlsx-stream'

const NUMBER_FORMATS: Partial<Record<FigureColumn['unit'], string>> = {
  percent: '0.0"%"',
  ratio: '0.00',
  hours: '0.0',
  stars: '0.00',
  km: '0.0',
  count: '#,##0',
  ms: '#,##0',
}

/**
 * Durations stay numbers a spreadsheet can sum and average (the page reads them as "3 h 15 min"):
 * their header names the unit, as the lists' exports do.
 */
const DURATION_OF: Partial<Record<FigureColumn['unit'], DurationUnit>> = { hours: 'h', ms: 'ms' }
function headerOf(c: FigureColumn, lang: Language): string {
  const unit = DURATION_OF[c.unit]
  if (!unit) return c.label[lang]
  const word = DURATION_UNIT_LABELS[unit][lang]
  return lang === 'zh_CN' ? `${c.label[lang]}（${word}）` : `${c.label[lang]} (${word})`
}

/**
 * The dashboard as a workbook: a first sheet naming the dashboard, range and filters, then one sheet
 * per figure with its columns' labels in the caller's language and the rows the page shows. Columns
 * the caller may not see are left out. Small (a figure has at most a few hundred rows), so built in memory.
 */
export async function dashboardWorkbook(def: DashboardDef, answer: DashboardAnswer, lang: Language, may: (permission: string) => boolean): Promise<Buffer> {
  const wb = new (await loadExcelJs()).Workbook()
  const about = wb.addWorksheet(lang === 'zh_CN' ? '说明' : 'About')
  about.columns = [{ width: 18 }, { width: 40 }]
  const q = answer.query
  about.addRows([
    [lang === 'zh_CN' ? '看板' : 'Dashboard', def.title[lang]],
    [lang === 'zh_CN' ? '起始日期' : 'From', q.from],
    [lang === 'zh_CN' ? '截止日期' : 'To', q.to],
    ...(q.countryId ? [[lang === 'zh_CN' ? '国家/地区编号' : 'Country id', q.countryId]] : []),
    ...(q.modelId ? [[lang === 'zh_CN' ? '车型编号' : 'Model id', q.modelId]] : []),
    ...(q.platform ? [[lang === 'zh_CN' ? '平台' : 'Platform', q.platform]] : []),
    [lang === 'zh_CN' ? '汇总刷新时间' : 'Rollups refreshed', answer.refreshedAt ?? '-'],
  ])
  const used = new Set<string>()
  for (const figure of def.figures) {
    const data = answer.figures.find((f) => f.key === figure.key)
    if (!data) continue
    const keep = figure.columns.map((c, i) => [c, i] as const).filter(([c]) => !c.permission || may(c.permission))
    if (keep.length === 0) continue
    // Sheet names: at most 31 characters, none of []:*?/\ and unique.
    let name = xmlSafe(figure.title[lang]).replace(/[[\]:*?/\\]/g, ' ').slice(0, 28)
    while (used.has(name)) name = `${name.slice(0, 26)} ${used.size}`
    used.add(name)
    const sheet = wb.addWorksheet(name)
    sheet.columns = keep.map(([c]) => ({ header: headerOf(c, lang), width: Math.max(12, headerOf(c, lang).length + 4), style: NUMBER_FORMATS[c.unit] ? { numFmt: NUMBER_FORMATS[c.unit] } : {} }))
    for (const row of data.rows) sheet.addRow(keep.map(([, i]) => (typeof row[i] === 'string' ? xmlSafe(row[i] as string) : row[i])))
  }
  return Buffer.from(await wb.xlsx.writeBuffer())
}
