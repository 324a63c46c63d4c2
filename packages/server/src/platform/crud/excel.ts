import { PassThrough } from 'node:stream'
import { labelWithUnit, type FieldDef, type Language } from '@velo/shared'
import type ExcelJS from 'exceljs'
import { writeXlsx, xmlSafe, type XlsxCell, type XlsxColumn } from './xlsx-stream'

type Row = Record<string, unknown>

let excelJs: Promise<typeof ExcelJS> | undefined
/**
 * exceljs, loaded with the first workbook a process makes (a template, the SQL tool's or a
 * dashboard's export, a rider's data package): with jszip, unzipper and archiver it is ~150 modules
 * and ~7 MB of heap an idle server would keep (docs/ops/capacity.md › Idle memory). The lists'
 * exports write their workbooks without it (streamWorkbookRows).
 */
export const loadExcelJs = () => (excelJs ??= import('exceljs').then((m) => m.default))

export const BOOLEAN_LABELS: Record<Language, [yes: string, no: string]> = { en_US: ['Yes', 'No'], zh_CN: ['是', '否'] }

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

const digit = (s: string, i: number) => s.charCodeAt(i) - 48
/** Two digits at i, or NaN. */
function twoDigits(s: string, i: number): number {
  const a = digit(s, i)
  const b = digit(s, i + 1)
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN
}

/**
 * Date.parse(s), by hand for the text both databases answer a datetime as (toISOString's
 * yyyy-mm-ddThh:mm:ss.sssZ): V8's parser of free-form dates was a microsecond a row, the export's
 * largest cost per cell (issue 43). Any other text, and a field out of its range, goes to Date.parse.
 */
export function isoMillis(s: string): number {
  if (s.length !== 24 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58 || s.charCodeAt(19) !== 46 || s.charCodeAt(23) !== 90) return Date.parse(s)
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2)
  const month = twoDigits(s, 5)
  const day = twoDigits(s, 8)
  const hour = twoDigits(s, 11)
  const minute = twoDigits(s, 14)
  const second = twoDigits(s, 17)
  const ms = twoDigits(s, 20) * 10 + digit(s, 22)
  const last = digit(s, 22)
  // Date.UTC reads years 0–99 as 1900–1999; Date.parse has its own rules past the 31st and the 59th.
  if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59 && last >= 0 && last <= 9 && ms >= 0)) return Date.parse(s)
  // Days since 1970 of a proleptic Gregorian date, counted in years from March (the leap day last); a day past its month's end runs on, as in Date.UTC.
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const days = era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms
}

/**
 * Each exported field's column. A cell as people read it: dictionary and option labels instead of
 * codes, the referenced row's name instead of its id, real dates instead of ISO strings; import
 * reads the same forms back. How is decided once per column, not per cell (a million rows): the
 * labels in a map, a date as its milliseconds. `at` finds a value in a row's array by its name (a
 * reference's label is `<name>Label`).
 */
function sheetColumns(fields: readonly FieldDef[], lang: Language, dicts: Map<string, Map<string, string>>, at: (name: string) => number): XlsxColumn<readonly unknown[]>[] {
  const widths = columnsOf(fields, lang).map((c) => c.width ?? 12)
  return fields.map((f, i) => {
    const column = { header: headerOf(f, lang), width: widths[i]! }
    const v = at(f.name)
    const given = (row: readonly unknown[]) => row[v] !== null && row[v] !== undefined
    switch (f.kind) {
      case 'dict': {
        const labels = dicts.get(f.dict)
        return { ...column, value: (row) => (given(row) ? (labels?.get(String(row[v])) ?? String(row[v])) : null) }
      }
      case 'enum': {
        // The first option of a value, as find() took it.
        const labels = new Map<unknown, string>()
        for (const o of f.options) if (!labels.has(o.value)) labels.set(o.value, o.label[lang])
        return { ...column, value: (row) => (given(row) ? (labels.get(row[v]) ?? String(row[v])) : null) }
      }
      case 'boolean': {
        const [yes, no] = BOOLEAN_LABELS[lang]
        return { ...column, value: (row) => (given(row) ? (row[v] ? yes : no) : null) }
      }
      case 'reference': {
        const label = at(`${f.name}Label`)
        return { ...column, value: (row) => (given(row) ? ((row[label] as XlsxCell) ?? Number(row[v])) : null) }
      }
      case 'datetime':
        return { ...column, date: true, value: (row) => (given(row) ? isoMillis(String(row[v])) : null) }
      case 'number':
      case 'money':
      case 'treeParent':
        return { ...column, value: (row) => (given(row) ? Number(row[v]) : null) }
      default:
        return { ...column, value: (row) => (given(row) ? String(row[v]) : null) }
    }
  })
}

/** What an export reads of each row, in order: the fields, then each reference's label. */
const readColumns = (fields: readonly FieldDef[]) => [...fields.map((f) => f.name), ...fields.flatMap((f) => (f.kind === 'reference' ? [`${f.name}Label`] : []))]

/**
 * Streams an .xlsx of the given fields from rows given as arrays of values named by `columns`
 * (EntityRepository.exportRead): rows are written, compressed and sent batch by batch as the client
 * takes them, so a million rows never sit in memory at once.
 */
export function streamWorkbookRows(options: {
  sheetName: string
  fields: readonly FieldDef[]
  lang: Language
  dicts: Map<string, Map<string, string>>
  columns: readonly string[]
  batches: AsyncIterable<readonly (readonly unknown[])[]>
}): PassThrough {
  // A megabyte on each side of the stream, so the writer is not stopped at every 16 KB.
  const out = new PassThrough({ highWaterMark: 1024 * 1024 })
  const index = new Map(options.columns.map((c, i) => [c, i]))
  const at = (name: string) => {
    const i = index.get(name)
    if (i === undefined) throw new Error(`an export's rows have no column ${name}`)
    return i
  }
  writeXlsx(out, { sheetName: options.sheetName, columns: sheetColumns(options.fields, options.lang, options.dicts, at), rows: options.batches }).catch((err: unknown) =>
    out.destroy(err instanceof Error ? err : new Error(String(err))),
  )
  return out
}

/** streamWorkbookRows for rows given as objects (an export not read by the repository: the online sessions). */
export function streamWorkbook(options: { sheetName: string; fields: readonly FieldDef[]; lang: Language; dicts: Map<string, Map<string, string>>; batches: AsyncIterable<Row[]> }): PassThrough {
  const columns = readColumns(options.fields)
  async function* arrays() {
    for await (const rows of options.batches) yield rows.map((row) => columns.map((c) => row[c]))
  }
  return streamWorkbookRows({ ...options, columns, batches: arrays() })
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
  const workbook = new (await loadExcelJs()).Workbook()
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
