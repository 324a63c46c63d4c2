import { PassThrough } from 'node:stream'
import type { FieldDef, Language } from '@velo/shared'
import ExcelJS from 'exceljs'

type Row = Record<string, unknown>

/** A cell as people read it: dictionary labels instead of codes, real dates instead of ISO strings. */
function cellValue(f: FieldDef, value: unknown, dicts: Map<string, Map<string, string>>): ExcelJS.CellValue {
  if (value === null || value === undefined) return null
  if (f.kind === 'dict') return dicts.get(f.dict)?.get(String(value)) ?? String(value)
  if (f.kind === 'datetime') return new Date(String(value))
  if (f.kind === 'number') return Number(value)
  return String(value)
}

/**
 * Streams an .xlsx of the given fields: rows are written and flushed batch by batch, so a million
 * rows never sit in memory at once.
 */
export function streamWorkbook(options: {
  sheetName: string
  fields: readonly FieldDef[]
  lang: Language
  dicts: Map<string, Map<string, string>>
  batches: AsyncIterable<Row[]>
}): PassThrough {
  const out = new PassThrough()
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false })
  const sheet = workbook.addWorksheet(options.sheetName.slice(0, 31))
  sheet.columns = options.fields.map((f) => ({
    header: f.label[options.lang],
    key: f.name,
    width: f.kind === 'datetime' ? 20 : Math.min(40, Math.max(12, f.label[options.lang].length + 4)),
    style: f.kind === 'datetime' ? { numFmt: 'yyyy-mm-dd hh:mm:ss' } : {},
  }))
  sheet.getRow(1).font = { bold: true }
  sheet.getRow(1).commit()
  void (async () => {
    try {
      for await (const rows of options.batches) {
        for (const row of rows) {
          sheet.addRow(Object.fromEntries(options.fields.map((f) => [f.name, cellValue(f, row[f.name], options.dicts)]))).commit()
        }
      }
      sheet.commit()
      await workbook.commit()
    } catch (err) {
      out.destroy(err instanceof Error ? err : new Error(String(err)))
    }
  })()
  return out
}

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** Content-Disposition for a download name that may hold non-ASCII text (RFC 6266 / 5987). */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/"/g, '')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
}
