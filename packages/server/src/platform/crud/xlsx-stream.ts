// A minimal streaming .xlsx writer for exports. exceljs's streaming writer has no backpressure: on a
// million rows it buffered ~470 MB and, on SQLite, starved every other request for ~20 s while it ran
// (npm run bench). This one deflates the sheet as it is produced and waits for the client to take
// each chunk, so memory stays flat and other requests get their turns. exceljs still writes the
// (small) templates; imports are read by xlsx-read.ts.
import { once } from 'node:events'
import type { Writable } from 'node:stream'
import { crc32, createDeflateRaw } from 'node:zlib'

export type XlsxCell = string | number | Date | null | undefined

/**
 * Characters XML 1.0 does not allow even as references: C0 controls but tab, LF and CR; U+FFFE and
 * U+FFFF; and surrogates not in a pair. One of them in any text makes the whole sheet unreadable.
 */
const NOT_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
export const xmlSafe = (s: string) => s.replace(NOT_XML, '')
const esc = (s: string) => xmlSafe(s).replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
const colName = (i: number) => {
  let s = ''
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s
  return s
}
/** Day 0 of Excel's 1900 date system for dates from March 1900 on (it counts a 29 February 1900 that never was). */
export const EXCEL_EPOCH = Date.UTC(1899, 11, 30)

/** Zip entries written one after another, each deflated as it streams, sizes in data descriptors. */
class ZipWriter {
  private offset = 0
  private readonly central: Buffer[] = []
  constructor(private readonly out: Writable) {}

  private async raw(b: Buffer) {
    this.offset += b.length
    if (!this.out.write(b)) await once(this.out, 'drain')
  }

  /** Writes one entry from chunks produced by `fill`, which awaits `write` to respect backpressure. */
  async entry(name: string, fill: (write: (s: string) => Promise<void>) => Promise<void>) {
    const nameBuf = Buffer.from(name)
    const start = this.offset
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(0x0808, 6) // data descriptor + UTF-8 names
    header.writeUInt16LE(8, 8) // deflate
    header.writeUInt16LE(nameBuf.length, 26)
    await this.raw(Buffer.concat([header, nameBuf]))
    let crc = 0
    let size = 0
    let compressed = 0
    const deflate = createDeflateRaw({ level: 6 })
    const pumped = (async () => {
      for await (const chunk of deflate as AsyncIterable<Buffer>) {
        compressed += chunk.length
        await this.raw(chunk)
      }
    })()
    let pending: string[] = []
    let pendingLen = 0
    const flush = async () => {
      const b = Buffer.from(pending.join(''))
      pending = []
      pendingLen = 0
      crc = crc32(b, crc)
      size += b.length
      if (!deflate.write(b)) await once(deflate, 'drain')
    }
    await fill(async (s) => {
      pending.push(s)
      pendingLen += s.length
      if (pendingLen > 64 * 1024) await flush()
    })
    await flush()
    deflate.end()
    await pumped
    const desc = Buffer.alloc(16)
    desc.writeUInt32LE(0x08074b50, 0)
    desc.writeUInt32LE(crc >>> 0, 4)
    desc.writeUInt32LE(compressed, 8)
    desc.writeUInt32LE(size, 12)
    await this.raw(desc)
    const c = Buffer.alloc(46)
    c.writeUInt32LE(0x02014b50, 0)
    c.writeUInt16LE(20, 4)
    c.writeUInt16LE(20, 6)
    c.writeUInt16LE(0x0808, 8)
    c.writeUInt16LE(8, 10)
    c.writeUInt32LE(crc >>> 0, 16)
    c.writeUInt32LE(compressed, 20)
    c.writeUInt32LE(size, 24)
    c.writeUInt16LE(nameBuf.length, 28)
    c.writeUInt32LE(start, 42)
    this.central.push(Buffer.concat([c, nameBuf]))
  }

  async finish() {
    const start = this.offset
    const dir = Buffer.concat(this.central)
    await this.raw(dir)
    const end = Buffer.alloc(22)
    end.writeUInt32LE(0x06054b50, 0)
    end.writeUInt16LE(this.central.length, 8)
    end.writeUInt16LE(this.central.length, 10)
    end.writeUInt32LE(dir.length, 12)
    end.writeUInt32LE(start, 16)
    await this.raw(end)
    this.out.end()
  }
}

/** One sheet: a bold header row, then rows; Date cells as real dates (yyyy-mm-dd hh:mm:ss). */
export async function writeXlsx(out: Writable, o: { sheetName: string; header: string[]; widths: number[]; rows: AsyncIterable<XlsxCell[][]> }) {
  const zip = new ZipWriter(out)
  const fixed = (name: string, xml: string) => zip.entry(name, (w) => w(xml))
  await fixed(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
  )
  await fixed('_rels/.rels', '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
  await fixed(
    'xl/workbook.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${esc(o.sheetName.slice(0, 31))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  )
  await fixed(
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  )
  await fixed(
    'xl/styles.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="3"><xf/><xf fontId="1" applyFont="1"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>',
  )
  const cols = o.header.map((_, i) => colName(i))
  await zip.entry('xl/worksheets/sheet1.xml', async (w) => {
    await w(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cols>${o.widths.map((wd, i) => `<col min="${i + 1}" max="${i + 1}" width="${wd}" customWidth="1"/>`).join('')}</cols><sheetData>` +
        `<row r="1">${o.header.map((h, i) => `<c r="${cols[i]}1" s="1" t="inlineStr"><is><t>${esc(h)}</t></is></c>`).join('')}</row>`,
    )
    let r = 1
    for await (const batch of o.rows) {
      for (const row of batch) {
        r++
        let xml = `<row r="${r}">`
        for (let i = 0; i < row.length; i++) {
          const v = row[i]
          if (v === null || v === undefined || v === '') continue
          if (v instanceof Date) xml += `<c r="${cols[i]}${r}" s="2"><v>${(v.getTime() - EXCEL_EPOCH) / 86_400_000}</v></c>`
          else if (typeof v === 'number') xml += `<c r="${cols[i]}${r}"><v>${v}</v></c>`
          else xml += `<c r="${cols[i]}${r}" t="inlineStr"><is><t xml:space="preserve">${esc(v)}</t></is></c>`
        }
        await w(`${xml}</row>`)
      }
    }
    await w('</sheetData></worksheet>')
  })
  await zip.finish()
}
