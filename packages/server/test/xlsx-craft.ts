// Hand-made .xlsx files for the import limits: bombs, odd encodings and parts no spreadsheet program
// writes. Shared by test/import-limits.test.ts and bench/import-bomb.ts.
import { constants, crc32, deflateRawSync } from 'node:zlib'

export const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

/** `text` `times` over, in a part built by `deflated`. */
export interface Repeat {
  text: string
  times: number
}

/**
 * Raw deflate of the pieces one after another. A repeated piece is compressed once, with a full
 * flush so it stands alone on a byte boundary, and its bytes are repeated: a part that inflates to
 * gigabytes costs no more than its compressed size to build.
 */
export function deflated(...pieces: (string | Repeat)[]): Buffer {
  const out: Buffer[] = []
  for (const piece of pieces) {
    const { text, times } = typeof piece === 'string' ? { text: piece, times: 1 } : piece
    const block = deflateRawSync(text, { level: 9, finishFlush: constants.Z_FULL_FLUSH })
    for (let i = 0; i < times; i++) out.push(block)
  }
  out.push(deflateRawSync(Buffer.alloc(0)))
  return Buffer.concat(out)
}

/** A zip of parts already in their method's form: raw deflate (method 8) or as they are (0). */
export function zip(parts: [name: string, data: Buffer][], method: 0 | 8): Buffer {
  const local: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const [name, data] of parts) {
    const nameBytes = Buffer.from(name)
    // The reader never checks them; a stored part gets the right CRC and sizes anyway.
    const crc = method === 0 ? crc32(data) : 0
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(method, 8)
    header.writeUInt32LE(crc, 14)
    header.writeUInt32LE(data.length, 18)
    header.writeUInt32LE(method === 0 ? data.length : 0, 22)
    header.writeUInt16LE(nameBytes.length, 26)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(20, 4)
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(method, 10)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(data.length, 20)
    entry.writeUInt32LE(method === 0 ? data.length : 0, 24)
    entry.writeUInt16LE(nameBytes.length, 28)
    entry.writeUInt32LE(offset, 42)
    local.push(header, nameBytes, data)
    central.push(entry, nameBytes)
    offset += 30 + nameBytes.length + data.length
  }
  const dir = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(parts.length, 8)
  end.writeUInt16LE(parts.length, 10)
  end.writeUInt32LE(dir.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...local, dir, end])
}

/**
 * A one-sheet workbook around the given parts, each in the method's form (`deflated(…)` for 8,
 * `Buffer.from(xml)` for 0); the workbook, relationships and content types are added.
 */
export function workbookXlsx(o: { sheet: Buffer; sharedStrings?: Buffer; styles?: Buffer; workbook?: Buffer }, method: 0 | 8 = 8): Buffer {
  const part = (xml: string) => (method === 8 ? deflated(xml) : Buffer.from(xml))
  const rel = (id: string, type: string, target: string) => `<Relationship Id="${id}" Type="${REL_NS}/${type}" Target="${target}"/>`
  const parts: [string, Buffer][] = [
    ['[Content_Types].xml', part('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>')],
    ['xl/workbook.xml', o.workbook ?? part(`<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`)],
    [
      'xl/_rels/workbook.xml.rels',
      part(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          rel('rId1', 'worksheet', 'worksheets/sheet1.xml') +
          (o.sharedStrings ? rel('rId2', 'sharedStrings', 'sharedStrings.xml') : '') +
          (o.styles ? rel('rId3', 'styles', 'styles.xml') : '') +
          '</Relationships>',
      ),
    ],
    ['xl/worksheets/sheet1.xml', o.sheet],
  ]
  if (o.sharedStrings) parts.push(['xl/sharedStrings.xml', o.sharedStrings])
  if (o.styles) parts.push(['xl/styles.xml', o.styles])
  return zip(parts, method)
}

/** A row of inline-string cells, numbered or (number omitted) following the one before. */
export function inlineRow(texts: string[], number?: number): string {
  return `<row${number === undefined ? '' : ` r="${number}"`}>${texts.map((t) => `<c t="inlineStr"><is><t>${t}</t></is></c>`).join('')}</row>`
}

export const sheetStart = `<worksheet xmlns="${MAIN_NS}"><sheetData>`
export const sheetEnd = '</sheetData></worksheet>'
