import { PassThrough } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import {
  IMPORT_MAX_CELL_CHARS,
  IMPORT_MAX_CELLS,
  IMPORT_MAX_COLUMNS,
  IMPORT_MAX_PART,
  IMPORT_MAX_ROWS,
  IMPORT_MAX_SHARED_STRINGS,
  IMPORT_MAX_TEXT,
  isDateFormat,
  readFirstSheet,
} from '../src/platform/crud/xlsx-read'
import { writeXlsx, type XlsxCell } from '../src/platform/crud/xlsx-stream'
import { readWorkbook, snapshot, useTestApp } from './harness'
import { deflated, inlineRow, MAIN_NS, sheetEnd, sheetStart, workbookXlsx } from './xlsx-craft'

// Penetration test findings 8 (import bombs) and 18 (exports broken by characters XML forbids).
const t = useTestApp()

const TOO_LARGE = 'The workbook is too large to import once unpacked: split it into smaller files'
const CELL_TOO_LONG = `A cell holds more than ${IMPORT_MAX_CELL_CHARS} characters, more than Excel allows`
const UNREADABLE = 'The file could not be read as an Excel workbook'
const HEADER = ['Dictionary name', 'Dictionary type']

function importDict(file: Buffer, o: { updateSupport?: boolean; lang?: 'en_US' | 'zh_CN' } = {}) {
  const form = new FormData()
  if (o.updateSupport) form.append('updateSupport', 'true')
  form.append('file', new Blob([file]), 'dictionaries.xlsx')
  return t.call({ method: 'POST', url: '/api/system/dict/import', token: t.admin, lang: o.lang, payload: form })
}

/** The import is refused with this status and message, and no dictionary changed. */
async function expectRefused(file: Buffer, status: number, msg: string, lang?: 'en_US' | 'zh_CN') {
  const before = await snapshot(t, 'sysDictType', 'sysDictData')
  const res = await importDict(file, { lang })
  expect(res.msg).toBe(msg)
  expect(res.status).toBe(status)
  expect(await snapshot(t, 'sysDictType', 'sysDictData')).toEqual(before)
}

/** A deflated sheet: the given rows' XML, pieces repeated as `deflated` repeats them. */
const sheet = (...pieces: Parameters<typeof deflated>) => deflated(sheetStart, ...pieces, sheetEnd)
/** XML that no cell reads and no other limit stops, past `limit` bytes: only the part's size can stop it. */
const FILLER = `<x>${'a'.repeat(100_000)}</x>`.repeat(10)
const beyond = (limit: number) => ({ text: FILLER, times: Math.ceil(limit / FILLER.length) + 1 })

describe('import limits', () => {
  it('refuses a shared-strings bomb with 413 and a clear message, in the caller language', async () => {
    const si = `<si><t>${'a'.repeat(1000)}</t></si>`.repeat(1024)
    const bomb = workbookXlsx({
      sheet: sheet(inlineRow(HEADER)),
      // ~300 MB of strings in a file of a few hundred KB.
      sharedStrings: deflated(`<sst xmlns="${MAIN_NS}">`, { text: si, times: 300 }, '</sst>'),
    })
    expect(bomb.length).toBeLessThan(1024 * 1024)
    await expectRefused(bomb, 413, TOO_LARGE)
    await expectRefused(bomb, 413, '工作簿解压后过大，无法导入，请拆分为多个较小的文件', 'zh_CN')
  })

  it('checks the header before reading on: a wrong header over a bomb is an unknown column; a right one meets the sheet limit', async () => {
    const body = beyond(IMPORT_MAX_PART.sheet)
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(['Dictionary name', 'Colour of sky']), body) }), 400, 'Unknown column "Colour of sky": use the import template')
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER), body) }), 413, TOO_LARGE)
  }, 60_000)

  it('reads stored (uncompressed) parts, and holds them to the same limits', async () => {
    const stored = workbookXlsx({ sheet: Buffer.from(sheetStart + inlineRow(HEADER) + inlineRow(['Stored', 'stored_type']) + sheetEnd) }, 0)
    const res = await importDict(stored)
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toEqual({ inserted: 1, updated: 0 })

    const { text, times } = beyond(IMPORT_MAX_PART.other)
    const padding = text.repeat(times)
    const workbook = Buffer.from(`<workbook xmlns="${MAIN_NS}">${padding}<sheets><sheet name="S" sheetId="1" r:id="rId1" xmlns:r="r"/></sheets></workbook>`)
    await expectRefused(workbookXlsx({ sheet: Buffer.from(sheetStart + inlineRow(HEADER) + sheetEnd), workbook }, 0), 413, TOO_LARGE)
  }, 60_000)

  it(`refuses more than ${IMPORT_MAX_ROWS} rows`, async () => {
    const rows = { text: inlineRow(['Row', 'row_type']).repeat(1000), times: IMPORT_MAX_ROWS / 1000 }
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER), rows, inlineRow(['One more', 'one_more'])) }), 400, `At most ${IMPORT_MAX_ROWS.toLocaleString('en-US')} rows can be imported at once`)
  }, 60_000)

  it(`refuses a row with a cell past column ${IMPORT_MAX_COLUMNS}, by reference or by count, and ignores values past the header`, async () => {
    const message = (row: number) => `Row ${row} has more than ${IMPORT_MAX_COLUMNS} columns: use the import template`
    const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER), `<row r="2">${cell('A2', 'Wide')}${cell('IW2', 'x')}</row>`) }), 400, message(2))
    const many = `<row r="3">${'<c><v>1</v></c>'.repeat(IMPORT_MAX_COLUMNS + 1)}</row>`
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER), inlineRow(['Fine', 'fine_type']), many) }), 400, message(3))
    // The last column allowed: its value has no header, so it is not kept, and the row imports.
    const widest = workbookXlsx({ sheet: sheet(inlineRow(HEADER), `<row r="2">${cell('A2', 'Widest')}${cell('B2', 'widest_type')}${cell('IV2', 'x')}</row>`) })
    expect((await readFirstSheet(widest, (h) => h)).rows).toEqual([{ number: 2, cells: ['Widest', 'widest_type'] }])
    const res = await importDict(widest)
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toEqual({ inserted: 1, updated: 0 })
  })

  it(`refuses a cell of more than ${IMPORT_MAX_CELL_CHARS} characters, inline or shared, and an endless one before it fills memory`, async () => {
    const long = 'a'.repeat(IMPORT_MAX_CELL_CHARS + 1)
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER), inlineRow([long, 'long_type'])) }), 400, CELL_TOO_LONG)
    const shared = deflated(`<sst xmlns="${MAIN_NS}"><si><t>${long}</t></si></sst>`)
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER)), sharedStrings: shared }), 400, CELL_TOO_LONG)
    // A text that never ends: refused as one, not after the whole part's limit was read into it.
    const endless = deflated(`<sst xmlns="${MAIN_NS}"><si><t>`, { text: 'a'.repeat(1024 * 1024), times: IMPORT_MAX_PART.sharedStrings / 1024 / 1024 + 1 })
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER)), sharedStrings: endless }), 400, CELL_TOO_LONG)

    const { rows } = await readFirstSheet(workbookXlsx({ sheet: sheet(inlineRow(HEADER), inlineRow([long.slice(1)])) }), (h) => h)
    expect(rows[0]!.cells[0]).toHaveLength(IMPORT_MAX_CELL_CHARS)
  })

  it(`refuses more than ${IMPORT_MAX_CELLS} cells under the header`, async () => {
    // Eleven columns wide (a header in A and K), each row with a value in K.
    const width = 11
    const header = `<row><c r="A1" t="inlineStr"><is><t>Dictionary name</t></is></c><c r="K1" t="inlineStr"><is><t>Remark</t></is></c></row>`
    const row = '<row><c r="K1" t="inlineStr"><is><t>r</t></is></c></row>'
    const times = Math.floor(IMPORT_MAX_CELLS / width / 1000) + 1
    expect(times * 1000).toBeLessThanOrEqual(IMPORT_MAX_ROWS)
    await expectRefused(workbookXlsx({ sheet: sheet(header, { text: row.repeat(1000), times }) }), 413, TOO_LARGE)
  }, 60_000)

  it(`refuses more than ${IMPORT_MAX_TEXT / 1024 / 1024}M characters of text in the sheet's own cells`, async () => {
    const row = inlineRow(['', '', '', 'a'.repeat(IMPORT_MAX_CELL_CHARS)])
    const times = Math.floor(IMPORT_MAX_TEXT / IMPORT_MAX_CELL_CHARS) + 1
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow([...HEADER, 'Status', 'Remark']), { text: row, times }) }), 413, TOO_LARGE)
  }, 60_000)

  it(`refuses more than ${IMPORT_MAX_SHARED_STRINGS} shared strings`, async () => {
    const sst = deflated(`<sst xmlns="${MAIN_NS}">`, { text: '<si><t>s</t></si>'.repeat(1000), times: IMPORT_MAX_SHARED_STRINGS / 1000 }, '<si><t>s</t></si></sst>')
    await expectRefused(workbookXlsx({ sheet: sheet(inlineRow(HEADER), inlineRow(['Shared', 'shared_type'])), sharedStrings: sst }), 413, TOO_LARGE)
  }, 60_000)

  it('refuses XML nested deeper than any workbook', async () => {
    const deep = '<x>'.repeat(100_000) + '</x>'.repeat(100_000)
    await expectRefused(workbookXlsx({ sheet: sheet(deep, inlineRow(HEADER), inlineRow(['Deep', 'deep_type'])) }), 400, UNREADABLE)
  })
})

/** What exceljs writes for a workbook built by `fill`, read by the import's reader. */
async function readBack(fill: (ws: ExcelJS.Worksheet, wb: ExcelJS.Workbook) => void) {
  const wb = new ExcelJS.Workbook()
  fill(wb.addWorksheet('Sheet1'), wb)
  return readFirstSheet(Buffer.from(await wb.xlsx.writeBuffer()), (h) => h)
}

describe('reading what spreadsheets write', () => {
  const may2 = new Date(Date.UTC(2026, 4, 2, 8, 30, 15))

  it('reads shared and rich text, numbers, dates, booleans, formula results, hyperlinks and errors as exceljs writes them', async () => {
    const sheet = await readBack((ws) => {
      ws.addRow(['Text', 'Rich', 'Number', 'Date', 'Yes', 'No', 'Formula', 'Sum', 'Link', 'Error'])
      ws.addRow([
        'plain',
        { richText: [{ text: 'Ri', font: { bold: true } }, { text: 'ch' }] },
        42.5,
        may2,
        true,
        false,
        { formula: 'A2&"!"', result: 'plain!' },
        { formula: 'C2*2', result: 85 },
        { text: 'Velo', hyperlink: 'https://example.com' },
        { error: '#N/A' },
      ])
      // Gaps stay in their columns; a row of nothing is skipped.
      ws.getCell('A4').value = 'left'
      ws.getCell('C4').value = 'right'
    })
    expect(sheet.header).toEqual(['Text', 'Rich', 'Number', 'Date', 'Yes', 'No', 'Formula', 'Sum', 'Link', 'Error'])
    expect(sheet.rows).toEqual([
      { number: 2, cells: ['plain', 'Rich', 42.5, may2, true, false, 'plain!', 85, 'Velo'] },
      { number: 4, cells: ['left', null, 'right'] },
    ])
  })

  it('reads dates by their number format, custom or built in, and in the 1904 date system', async () => {
    const sheet = await readBack((ws, wb) => {
      wb.properties.date1904 = true
      ws.addRow(['Chinese date', 'Time', 'Days', 'Red', 'Plain'])
      ws.addRow([may2, may2, 3, 4, 5])
      ws.getCell('A2').numFmt = 'yyyy"年"m"月"d"日"'
      ws.getCell('B2').numFmt = '[h]:mm:ss'
      ws.getCell('C2').numFmt = '0" days"'
      ws.getCell('D2').numFmt = '[Red]0.00'
    })
    expect(sheet.rows[0]!.cells).toEqual([may2, may2, 3, 4, 5])
    for (const code of ['yyyy-mm-dd', 'mm-dd-yy', 'h:mm AM/PM', '[$-804]yyyy"年"m"月"', '[h]:mm']) expect(isDateFormat(code), code).toBe(true)
    for (const code of ['General', '0.00', '#,##0_);[Red](#,##0)', '0" days"', '\\d0', '@', '0.0E+00']) expect(isDateFormat(code), code).toBe(false)
  })

  it("reads the inline strings and string results exceljs's streaming writer writes", async () => {
    const out = new PassThrough()
    const file = buffer(out)
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: true })
    const ws = wb.addWorksheet('Sheet1')
    ws.addRow(['Text', 'Rich', 'Date']).commit()
    ws.addRow(['inline', { richText: [{ text: 'in' }, { text: 'line', font: { italic: true } }] }, may2]).commit()
    ws.commit()
    await wb.commit()
    const sheet = await readFirstSheet(await file, (h) => h)
    expect(sheet.rows).toEqual([{ number: 2, cells: ['inline', 'inline', may2] }])
  })

  it('leaves phonetic guides out, numbers rows and cells without references in sequence, and ignores namespace prefixes', async () => {
    const sharedStrings = deflated(`<sst xmlns="${MAIN_NS}"><si><t>漢字</t><rPh sb="0" eb="2"><t>かんじ</t></rPh></si><si><r><t>a</t></r><r><t xml:space="preserve"> b</t></r></si></sst>`)
    const xml =
      `<x:worksheet xmlns:x="${MAIN_NS}"><x:sheetData>` +
      '<x:row><x:c t="s"><x:v>0</x:v></x:c><x:c t="s"><x:v>1</x:v></x:c><x:c r="D1" t="inlineStr"><x:is><x:t>D</x:t></x:is></x:c></x:row>' +
      '<x:row r="5"><x:c><x:v>1</x:v></x:c><x:c t="b"><x:v>1</x:v></x:c><x:c t="e"><x:v>#DIV/0!</x:v></x:c><x:c r="D5" t="str"><x:f>A5</x:f><x:v>1</x:v></x:c></x:row>' +
      '<x:row><x:c r="B6" t="d"><x:v>2026-05-02T08:30:15Z</x:v></x:c></x:row>' +
      '</x:sheetData></x:worksheet>'
    const sheet = await readFirstSheet(workbookXlsx({ sheet: deflated(xml), sharedStrings }), (h) => h)
    expect(sheet.header).toEqual(['漢字', 'a b', '', 'D'])
    expect(sheet.rows).toEqual([
      { number: 5, cells: [1, true, null, '1'] },
      { number: 6, cells: [null, may2] },
    ])
  })

  it('refuses parts that are not there or not deflated', async () => {
    const good = workbookXlsx({ sheet: deflated(sheetStart + inlineRow(HEADER) + sheetEnd) })
    const renamed = Buffer.from(good.toString('latin1').replaceAll('xl/worksheets/sheet1.xml', 'xl/worksheets/sheet9.xml'), 'latin1')
    await expectRefused(renamed, 400, UNREADABLE)
    const bzip2 = Buffer.from(good)
    // Method 12 (bzip2) in every local and central header.
    for (let i = bzip2.indexOf('PK\x03\x04'); i >= 0; i = bzip2.indexOf('PK\x03\x04', i + 4)) bzip2.writeUInt16LE(12, i + 8)
    for (let i = bzip2.indexOf('PK\x01\x02'); i >= 0; i = bzip2.indexOf('PK\x01\x02', i + 4)) bzip2.writeUInt16LE(12, i + 10)
    await expectRefused(bzip2, 400, UNREADABLE)
  })
})

/** An .xlsx from the export's own writer. */
async function exportFormat(header: string[], rows: XlsxCell[][], sheetName = 'Sheet1') {
  const out = new PassThrough()
  const file = buffer(out)
  await writeXlsx(out, { sheetName, header, widths: header.map(() => 12), rows: (async function* () { yield rows })() })
  return file
}

describe('export and import again', () => {
  it('reads an export as exceljs does; the export format imports, updating rows by key', async () => {
    const exported = await t.call({ method: 'POST', url: '/api/system/dict/export', token: t.admin, body: {} })
    expect(exported.status).toBe(200)
    const ours = await readFirstSheet(exported.raw, (h) => h)
    const theirs = await readWorkbook(exported.raw)
    expect(ours.header).toEqual(theirs.header)
    expect(ours.rows.map((r) => r.cells)).toEqual(theirs.rows.map((r) => Array.from(r, (v) => v ?? null)))
    expect(ours.rows.length).toBeGreaterThan(5)
    // The export imports back as it is: its ID and Created columns are recognised and skipped.
    const again = await importDict(exported.raw, { updateSupport: true })
    expect(again.status, JSON.stringify(again.data)).toBe(200)
    expect(again.data).toEqual({ inserted: 0, updated: ours.rows.length })

    const header = theirs.header.slice(1, 5)
    expect(header).toEqual(['Dictionary name', 'Dictionary type', 'Status', 'Remark'])
    const rows = theirs.rows.map((r) => [`${r[1]} (renamed)`, r[2], r[3], r[4]] as XlsxCell[])
    const res = await importDict(await exportFormat(header, [...rows, ['Round trip', 'round_trip', 'Disabled', 'new']]), { updateSupport: true })
    expect(res.status, JSON.stringify(res.data)).toBe(200)
    expect(res.data).toEqual({ inserted: 1, updated: rows.length })
    const after = await t.app.services.db.selectFrom('sysDictType').select(['dictName', 'dictType', 'status']).execute()
    expect(after.find((r) => r.dictType === 'sys_yes_no')?.dictName).toBe('Yes / no (renamed)')
    expect(after.find((r) => r.dictType === 'round_trip')).toEqual({ dictName: 'Round trip', dictType: 'round_trip', status: '1' })
  })
})

describe('characters XML forbids', () => {
  it('are left out of exports and templates, which stay readable', async () => {
    const label = 'a\uFFFEb\uFFFFc\u0001d\uD800e'
    const added = await t.call<{ dictCode: number }>({ method: 'POST', url: '/api/system/dict/data', token: t.admin, body: { dictType: 'sys_yes_no', dictValue: 'X', dictLabel: label } })
    expect(added.status, added.msg).toBe(200)
    // The databases keep no lone surrogate (both store U+FFFD for it); the rest is stored as sent.
    const stored = (await t.app.services.db.selectFrom('sysDictData').select('dictLabel').where('dictCode', '=', added.data.dictCode).executeTakeFirstOrThrow()).dictLabel
    expect(stored).toMatch(/^a\uFFFEb\uFFFFc\u0001d\uFFFD+e$/)

    const exported = await t.call({ method: 'POST', url: '/api/system/dict/data/export', token: t.admin, body: { dictType: 'sys_yes_no' } })
    expect(exported.status).toBe(200)
    const sheet = await readWorkbook(exported.raw)
    const column = sheet.header.indexOf('Label')
    expect(sheet.rows.map((r) => r[column])).toContain(stored.replace(/[\uFFFE\uFFFF\u0001]/g, ''))
    const ours = await readFirstSheet(exported.raw, (h) => h)
    expect(ours.rows.map((r) => r.cells[column])).toContain(stored.replace(/[\uFFFE\uFFFF\u0001]/g, ''))

    // The template offers the label in a drop-down list.
    const template = await t.call({ url: '/api/system/dict/data/importTemplate', token: t.admin })
    expect(template.status).toBe(200)
    await expect(readWorkbook(template.raw)).resolves.toMatchObject({ header: expect.arrayContaining(['Default']) })
  })

  it('lone surrogates are left out of cells, headers and the sheet name; pairs are kept', async () => {
    const file = await exportFormat(['Head\u0001er'], [['x\uD800y\uDC00z\uD83D\uDE00\uFFFF']], 'Sheet\uFFFE\uDFFF')
    const sheet = await readWorkbook(file)
    expect(sheet.name).toBe('Sheet')
    expect(sheet.header).toEqual(['Header'])
    expect(sheet.rows).toEqual([['xyz\uD83D\uDE00']])
  })
})
