import { PassThrough } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { isoMillis } from '../src/platform/crud/excel'
import { EXCEL_EPOCH, numberText, writeXlsx, xmlSafe, type XlsxCell, type XlsxColumn } from '../src/platform/crud/xlsx-stream'
import { readWorkbook } from './harness'

/** The sheet's XML of an .xlsx our writer made (its entries are deflated, one after another). */
function sheetXml(file: Buffer): string {
  const name = Buffer.from('xl/worksheets/sheet1.xml')
  const signature = Buffer.from('PK\x03\x04', 'latin1')
  for (let at = file.indexOf(signature); at >= 0; at = file.indexOf(signature, at + 4)) {
    const nameLength = file.readUInt16LE(at + 26)
    if (file.subarray(at + 30, at + 30 + nameLength).equals(name)) return inflateRawSync(file.subarray(at + 30 + nameLength)).toString('utf8')
  }
  throw new Error('no sheet')
}

async function write<R>(columns: readonly XlsxColumn<R>[], batches: (readonly R[])[]) {
  const out = new PassThrough()
  const file = buffer(out)
  await writeXlsx(out, {
    sheetName: 'Sheet1',
    columns,
    rows: (async function* () {
      yield* batches
    })(),
  })
  return file
}

/** The row as the writer wrote it before rows went into the chunk as bytes: the text each row must still come out as. */
function expectedRow(r: number, cells: XlsxCell[], dates: boolean[]): string {
  const col = (i: number) => String.fromCharCode(65 + i)
  const text = (s: string) => {
    const t = xmlSafe(s).replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
    const preserve = t.charCodeAt(0) <= 32 || t.charCodeAt(t.length - 1) <= 32
    return `" t="inlineStr"><is><t${preserve ? ' xml:space="preserve"' : ''}>${t}</t></is></c>`
  }
  let xml = `<row r="${r}">`
  cells.forEach((v, i) => {
    const at = `<c r="${col(i)}${r}`
    if (typeof v === 'number') xml += dates[i] ? `${at}" s="2"><v>${(v - EXCEL_EPOCH) / 86_400_000}</v></c>` : `${at}"><v>${numberText(v)}</v></c>`
    else if (typeof v === 'string') xml += v === '' ? '' : at + text(v)
    else if (v instanceof Date) xml += `${at}" s="2"><v>${(v.getTime() - EXCEL_EPOCH) / 86_400_000}</v></c>`
  })
  return `${xml}</row>`
}

const TEXTS = ['plain', ' lead', 'trail ', 'a & b < c > d "e" \'f\'', 'tab\there', 'line\nbreak', 'café', '骑行记录', 'emoji 😀', 'bad\u0001\uFFFE\uD800chars', '~!@#$%^*()_+{}|:?', 'x']
const NUMBERS = [0, -0, 1, -1, 7, 42, 1939, 123456789, 10.61, 0.05, -0.5, 0.1, 19.7, -12.34, 1 / 3, Math.PI, 1e15, 1e21, -1e15 - 2, 2 ** 53, 5e-7, 1.005, 99.99, 100.1]
const DATES = [Date.UTC(2024, 11, 5, 1, 21, 59, 758), Date.UTC(1999, 0, 1), Date.UTC(2026, 5, 1, 12, 34, 56, 789)]

describe('the export writer', () => {
  it('writes every kind of cell as the string writer did, across chunks and for rows too long for one', async () => {
    const dates = [false, false, true, false, false]
    const columns: XlsxColumn<XlsxCell[]>[] = dates.map((date, i) => ({ header: `H${i}`, width: 12, date, value: (row) => row[i] }))
    const rows: XlsxCell[][] = []
    for (let i = 0; i < 12_000; i++) {
      const text = TEXTS[i % TEXTS.length]!
      rows.push([
        i % 7 === 3 ? null : NUMBERS[i % NUMBERS.length]!,
        i % 5 === 4 ? '' : `${text} ${i}`,
        DATES[i % DATES.length]!,
        i % 11 === 0 ? new Date(DATES[(i + 1) % DATES.length]!) : text,
        // Now and then a text longer than what is left of a chunk: its row goes as a string.
        i % 4000 === 1999 ? `long ${'é&'.repeat(150_000)} end` : i % 13 === 0 ? undefined : -i / 4,
      ])
    }
    // Batches of uneven sizes, as pages come.
    const file = await write(columns, [rows.slice(0, 1), rows.slice(1, 5000), rows.slice(5000)])
    const xml = sheetXml(file)
    const body = xml.slice(xml.indexOf('</row>') + '</row>'.length, xml.lastIndexOf('</sheetData>'))
    expect(body).toBe(rows.map((r, i) => expectedRow(i + 2, r, dates)).join(''))

    // And a spreadsheet reads the same cells.
    const sheet = await readWorkbook(file)
    expect(sheet.header).toEqual(['H0', 'H1', 'H2', 'H3', 'H4'])
    expect(sheet.rows).toHaveLength(rows.length)
    const read = (v: XlsxCell) => (typeof v === 'number' ? v + 0 : typeof v === 'string' && v !== '' ? xmlSafe(v) : undefined)
    for (const i of [0, 1, 2, 3, 6, 7, 1998, 2000, 4567, 11_999]) {
      const cells = sheet.rows[i]!
      expect([0, 1, 4].map((c) => cells[c] ?? undefined)).toEqual([0, 1, 4].map((c) => read(rows[i]![c])))
    }
    expect(sheet.rows[1999]![4]).toBe(`long ${'é&'.repeat(150_000)} end`)
    expect(sheet.rows[6]![1]).toBe('café 6')
  })

  it('reads datetimes as Date.parse does', () => {
    for (const s of ['2024-12-05T01:21:59.758Z', '1970-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2024-02-30T00:00:00.000Z', '2024-02-29T24:00:00.000Z', '2024-01-01T23:59:60.000Z', '0099-01-01T00:00:00.000Z', '2024-13-01T00:00:00.000Z', '2024-01-01 00:00:00', '2024-01-01T00:00:00Z', 'not a date'])
      expect(Object.is(isoMillis(s), Date.parse(s)), s).toBe(true)
    for (let t = -2e12; t < 5e12; t += 7_777_777_777) expect(isoMillis(new Date(t).toISOString())).toBe(t)
  })
})
