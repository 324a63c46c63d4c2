import type { Download } from '@playwright/test'
import ExcelJS from 'exceljs'

/** The first sheet of a downloaded workbook as rows of texts (empty cells as ''). */
export async function sheetRowsOf(download: Download): Promise<string[][]> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(await download.path())
  const rows: string[][] = []
  workbook.worksheets[0]!.eachRow((row) => rows.push((row.values as ExcelJS.CellValue[]).slice(1).map((v) => (v === null || v === undefined ? '' : String(v)))))
  return rows
}
