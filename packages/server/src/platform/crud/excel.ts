import { PassThrough } from 'node:stream'
import { labelWithUnit, type FieldDef, type Language } from '@velo/shared'
import ExcelJS from 'exceljs'
import { writeXlsx, xmlSafe, type XlsxCell } from './xlsx-stream'

type Row = Record<string, unknown>

export const BOOLEAN_LABELS: Record<Language, [yes: string, no: string]> = { en_US: ['Yes', 'No'], zh_CN: ['是', '否'] }

/**
 * A cell as people read it: dictionary and option labels instead of codes, the referenced row's name
 * instead of its id, real dates instead of ISO strings. Import reads the same forms back.
 */
function cellValue(f: FieldDef, row: Row, lang: Language, dicts: Map<string, Map<string, string>>): ExcelJS.CellValue {
  const value = row[f.name]
  if (value === null || value === undefined) return null
  switch (f.kind) {
    case 'dict':
      return dicts.get(f.dict)?.get(String(value)) ?? String(value)
    case 'enum':
      return f.options.find((o) => o.value === value)?.label[lang] ?? String(value)
    case 'boolean':
      return BOOLEAN_LABELS[lang][value ? 0 : 1]
    case 'reference':
      return (row[`${f.name}Label`] as string | null) ?? Number(value)
    case 'datetime':
      return new Date(String(value))
    case 'number':
    case 'money':
    case 'treeParent':
      return Number(value)
    default:
      return String(value)
  }
}

/**
 * A column's header: the field's label, and for a duration the unit of its number ("Duration (s)").
 * The cell stays the stored number, not "1 h 12 min": a spreadsheet sums, sorts and averages
 * numbers, and the import reads the same number back.
 */
const headerOf = (f: FieldDef, lang: Language) => labelWithUnit(f)[lang]

function columnsOf(fields: readonly FieldDef[], lang: Language): Partial<ExcelJS.Column>[] {
  return fields.map((f) => ({
    header: headerOf(f, lang),
    key: f.name,
    width: f.kind === 'datetime' ? 20 : Math.min(40, Math.max(12, headerOf(f, lang).length + 4)),
    style: f.kind === 'datetime' ? { numFmt: 'yyyy-mm-dd hh:mm:ss' } : f.kind === 'money' ? { numFmt: '0.00' } : {},
  }))
}

/**
 * Streams an .xlsx of the given fields: rows are written, compressed and sent batch by batch as the
 * client takes them, so a million rows never sit in memory at once.
 */
export function streamWorkbook(options: {
  sheetName: string
  fields: readonly FieldDef[]
  lang: Language
  dicts: Map<string, Map<string, string>>
  batches: AsyncIterable<Row[]>
}): PassThrough {
  const out = new PassThrough()
  const { fields, lang, dicts } = options
  async function* cells() {
    for await (const rows of options.batches) yield rows.map((row) => fields.map((f) => cellValue(f, row, lang, dicts) as XlsxCell))
  }
  writeXlsx(out, {
    sheetName: options.sheetName,
    header: fields.map((f) => headerOf(f, lang)),
    widths: columnsOf(fields, lang).map((c) => c.width ?? 12),
    rows: cells(),
  }).catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))))
  return out
}

/**
 * The import template: the import columns with headers in the caller's language, a note on each
 * header saying what the column takes, and the allowed values as a drop-down where there is a list.
 */
export async function templateWorkbook(options: {
  sheetName: string
  fields: readonly FieldDef[]
  lang: Language
  dicts: Map<string, Map<string, string>>
}): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook()
  const sheet = workbook.addWorksheet(options.sheetName.slice(0, 31))
  sheet.columns = columnsOf(options.fields, options.lang)
  const header = sheet.getRow(1)
  header.font = { bold: true }
  options.fields.forEach((f, i) => {
    const choices =
      f.kind === 'dict'
        ? [...(options.dicts.get(f.dict)?.values() ?? [])]
        : f.kind === 'enum'
          ? f.options.map((o) => o.label[options.lang])
          : f.kind === 'boolean'
            ? BOOLEAN_LABELS[options.lang]
            : null
    if (f.required) header.getCell(i + 1).font = { bold: true, color: { argb: 'FFC00000' } }
    if (choices?.length && choices.join(',').length < 250) {
      for (let r = 2; r <= 1000; r++) {
        sheet.getCell(r, i + 1).dataValidation = { type: 'list', allowBlank: !f.required, formulae: [`"${choices.map((c) => xmlSafe(c).replace(/"/g, '')).join(',')}"`] }
      }
    }
  })
  return Buffer.from(await workbook.xlsx.writeBuffer())
}

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** Content-Disposition for a download name that may hold non-ASCII text (RFC 6266 / 5987). */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/"/g, '')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
}
