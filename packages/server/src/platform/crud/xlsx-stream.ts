// A minimal streaming .xlsx writer for exports. exceljs's streaming writer has no backpressure: on a
// million rows it buffered ~470 MB and, on SQLite, starved every other request for ~20 s while it ran
// (npm run bench). This one deflates the sheet as it is produced and waits for the client to take
// each chunk, so memory stays flat and other requests get their turns. exceljs still writes the
// (small) templates; imports are read by xlsx-read.ts.
//
// At a million rows every step per cell counts (issue 43): each column's value is taken by a
// function made once per export, each row's XML goes as bytes into a chunk of 256 KB, and chunks are
// compressed at level 1 on the thread pool while the next ones are written: level 6 cost four times
// the CPU for a file 15 % smaller (the rides: 67 MB, not 79), and a writer that waited for each chunk to be compressed
// before writing the next left the event loop idle much of the time.
import type { Writable } from 'node:stream'
import { crc32, createDeflateRaw, type ZlibOptions } from 'node:zlib'

export type XlsxCell = string | number | Date | null | undefined

/**
 * Characters XML 1.0 does not allow even as references: C0 controls but tab, LF and CR; U+FFFE and
 * U+FFFF; and surrogates not in a pair. One of them in any text makes the whole sheet unreadable.
 */
const NOT_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
export const xmlSafe = (s: string) => s.replace(NOT_XML, '')
const escapeSlowly = (s: string) => xmlSafe(s).replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
/** Anything escapeSlowly would change (a surrogate pair too, which it keeps): most texts have none. */
const NEEDS_ESCAPE = /[&<>"\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]/
const esc = (s: string) => (NEEDS_ESCAPE.test(s) ? escapeSlowly(s) : s)
const colName = (i: number) => {
  let s = ''
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s
  return s
}
/**
 * A number as String() writes it (the shortest text that reads back as the same number), faster for
 * those with at most two decimals (distances, speeds, money): String() costs three times as much
 * for a fraction as for a whole number. k / 100 === v says the two-decimal text reads back as v; below
 * 1e13 the spacing of numbers is finer than 0.01, so no shorter text does, and String() writes it too.
 */
export function numberText(v: number): string {
  const k = Math.round(v * 100)
  if (k / 100 !== v || !(k > -1e15 && k < 1e15) || k % 100 === 0) return String(v)
  const digits = String(k < 0 ? -k : k)
  const whole = digits.length > 2 ? digits.slice(0, -2) : '0'
  const cents = digits.length > 1 ? digits.slice(-2) : `0${digits}`
  return `${k < 0 ? '-' : ''}${whole}.${k % 10 === 0 ? cents[0] : cents}`
}

/** A text cell's type and value after its address. Spaces at either end are kept only when marked so (most texts have none). */
function inlineText(s: string): string {
  const text = esc(s)
  const preserve = text.charCodeAt(0) <= 32 || text.charCodeAt(text.length - 1) <= 32
  return (preserve ? '" t="inlineStr"><is><t xml:space="preserve">' : '" t="inlineStr"><is><t>') + text + '</t></is></c>'
}

/** Day 0 of Excel's 1900 date system for dates from March 1900 on (it counts a 29 February 1900 that never was). */
export const EXCEL_EPOCH = Date.UTC(1899, 11, 30)
const DAY_MS = 86_400_000
/** Bytes of XML handed to the compressor at once. */
const CHUNK_BYTES = 256 * 1024
/** Chunk buffers kept for the next chunks: what the compressor holds at most (BUFFERED), and one. */
const SPARE_BUFFERS = 5
/** Bytes the compressor and the output may hold before the writer waits for them. */
const BUFFERED = 1024 * 1024
/** Level 1: see the header. */
const DEFLATE_LEVEL = 1

/**
 * Until the stream takes more: its 'drain', or a failure when it is closed first (a client gone
 * mid-download, a cancelled job), which would otherwise leave the export waiting for ever.
 */
function drained(s: Writable): Promise<void> {
  if (s.destroyed) return Promise.reject(new Error('the output was closed'))
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      s.off('drain', onDrain)
      s.off('close', onClose)
      s.off('error', settle)
      if (err) reject(err)
      else resolve()
    }
    const onDrain = () => settle()
    const onClose = () => settle(new Error('the output was closed'))
    s.on('drain', onDrain)
    s.on('close', onClose)
    s.on('error', settle)
  })
}

/**
 * The buffer an entry's bytes are put in, handed to the compressor a chunk at a time. Each text goes
 * in as it comes (a row's few hundred bytes): a chunk built as one long string of a million pieces
 * cost more to flatten into bytes than to build, and the pieces, alive until then, were most of the
 * garbage the collector moved and the memory the export grew by. Buffers the compressor is done with
 * are used again: a fresh one per chunk left hundreds of MB for the collector to find.
 */
class Chunks {
  private readonly spare: Buffer[] = []
  /** Where bytes go, from `used` on: at least CHUNK_BYTES are free after `full()`. */
  buffer: Buffer
  used = 0
  constructor(private readonly push: (b: Buffer, done?: () => void) => Promise<void>) {
    this.buffer = this.fresh()
  }

  private fresh() {
    return this.spare.pop() ?? Buffer.allocUnsafe(2 * CHUNK_BYTES)
  }

  private flush() {
    const full = this.buffer
    const b = full.subarray(0, this.used)
    this.buffer = this.fresh()
    this.used = 0
    return this.push(b, () => void (this.spare.length < SPARE_BUFFERS && this.spare.push(full)))
  }

  /** After bytes were put in `buffer`: a chunk's worth goes to the compressor. */
  full(): Promise<void> | undefined {
    return this.used >= CHUNK_BYTES ? this.flush() : undefined
  }

  /** A text too long for what is left of the buffer: the buffer goes first, then the text, alone if it is longer than a buffer. */
  private async writeLong(s: string) {
    if (this.used) await this.flush()
    if (s.length * 3 > this.buffer.length) await this.push(Buffer.from(s))
    else this.used += this.buffer.write(s, this.used)
  }

  write(s: string): Promise<void> | undefined {
    // UTF-8 takes at most three bytes for each UTF-16 unit.
    if (s.length * 3 > this.buffer.length - this.used) return this.writeLong(s)
    this.used += this.buffer.write(s, this.used)
    return this.full()
  }

  async end() {
    if (this.used) await this.flush()
  }
}

/** Zip entries written one after another, each deflated as it streams, sizes in data descriptors. */
class ZipWriter {
  private offset = 0
  private readonly central: Buffer[] = []
  constructor(private readonly out: Writable) {}

  private async raw(b: Buffer) {
    this.offset += b.length
    if (!this.out.write(b)) await drained(this.out)
  }

  /**
   * Writes one entry from what `fill` puts in its chunks: texts by `write`, or bytes straight into
   * `buffer` at `used` (rows, writeRows). Either answers a promise now and then, when a chunk goes to
   * the compressor, which `fill` awaits to respect backpressure.
   */
  async entry(name: string, fill: (chunks: Chunks) => Promise<void>) {
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
    // Node hands a zlib stream's options to its Transform, whose buffer this sets (ZlibOptions omits it).
    const deflate = createDeflateRaw({ level: DEFLATE_LEVEL, chunkSize: 64 * 1024, writableHighWaterMark: BUFFERED } as ZlibOptions)
    let failed: Error | undefined
    const pumped = (async () => {
      for await (const chunk of deflate as AsyncIterable<Buffer>) {
        compressed += chunk.length
        await this.raw(chunk)
      }
    })().catch((err: unknown) => {
      failed = err instanceof Error ? err : new Error(String(err))
      deflate.destroy(failed)
    })
    const push = async (b: Buffer, done?: () => void) => {
      if (failed) throw failed
      crc = crc32(b, crc)
      size += b.length
      // Waits only once a megabyte is queued: the next chunk is written while this one is compressed.
      if (!deflate.write(b, done)) await Promise.race([drained(deflate), pumped])
    }
    const chunks = new Chunks(push)
    await fill(chunks)
    await chunks.end()
    deflate.end()
    await pumped
    if (failed) throw failed
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

/**
 * A column of a sheet: its header, its width, and how a row gives its cell. `value` answers a
 * string (inline text; '' is an empty cell), a number, a Date, or null/undefined (no cell); in a
 * `date` column a number is milliseconds since 1970 (UTC), shown as yyyy-mm-dd hh:mm:ss.
 */
export interface XlsxColumn<R> {
  header: string
  width: number
  date?: boolean
  value: (row: R) => XlsxCell
}

/** One sheet of rows given as arrays of cells, each column's cells of any type (tests, small sheets). */
export function writeXlsx(out: Writable, o: { sheetName: string; header: string[]; widths: number[]; rows: AsyncIterable<XlsxCell[][]> }): Promise<void>
/** One sheet of rows of any shape, each column's cell taken by its `value`. */
export function writeXlsx<R>(out: Writable, o: { sheetName: string; columns: readonly XlsxColumn<R>[]; rows: AsyncIterable<readonly R[]> }): Promise<void>
export function writeXlsx(
  out: Writable,
  o: { sheetName: string; header: string[]; widths: number[]; rows: AsyncIterable<XlsxCell[][]> } | { sheetName: string; columns: readonly XlsxColumn<unknown>[]; rows: AsyncIterable<readonly unknown[]> },
): Promise<void> {
  if ('columns' in o) return writeSheet(out, o.sheetName, o.columns, o.rows)
  const columns = o.header.map((header, i): XlsxColumn<XlsxCell[]> => ({ header, width: o.widths[i] ?? 12, value: (row) => row[i] }))
  return writeSheet(out, o.sheetName, columns, o.rows)
}

const bytes = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'))
const ROW_OPEN = bytes('<row r="')
const ROW_OPENED = bytes('">')
const ROW_CLOSE = bytes('</row>')
const NUMBER_OPEN = bytes('"><v>')
const DATE_OPEN = bytes('" s="2"><v>')
const VALUE_CLOSE = bytes('</v></c>')
const TEXT_OPEN = bytes('" t="inlineStr"><is><t>')
const TEXT_OPEN_PRESERVE = bytes('" t="inlineStr"><is><t xml:space="preserve">')
const TEXT_CLOSE = bytes('</t></is></c>')
/** Bytes a cell takes at most besides its text: its address, tags, and a number as String() writes it (at most 24 characters). */
const CELL_BYTES = 128
/** What one UTF-16 unit of a text takes at most in the sheet: escaped, "&quot;". */
const TEXT_UNIT_BYTES = 6

// Short copies and digits by hand: Buffer's own calls cost more to enter than these take.
function put(buf: Buffer, at: number, b: Uint8Array): number {
  for (let i = 0; i < b.length; i++) buf[at + i] = b[i]!
  return at + b.length
}
/** A whole number from 0 to 1e15 as its digits. */
function putDigits(buf: Buffer, at: number, n: number): number {
  let len = 1
  for (let x = n; x >= 10; x = Math.floor(x / 10)) len++
  for (let i = at + len - 1; i >= at; i--) {
    const q = Math.floor(n / 10)
    buf[i] = 48 + n - q * 10
    n = q
  }
  return at + len
}
/** A text known to be ASCII (String() of a number). */
function putAscii(buf: Buffer, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) buf[at + i] = s.charCodeAt(i)
  return at + s.length
}
/** numberText(v), as bytes: whole numbers and those with at most two decimals by hand, the rest by String(). */
function putNumber(buf: Buffer, at: number, v: number): number {
  if (Number.isInteger(v)) {
    if (v >= 0 && v < 1e15) return putDigits(buf, at, v)
    if (v < 0 && v > -1e15) {
      buf[at] = 45
      return putDigits(buf, at + 1, -v)
    }
  } else {
    const k = Math.round(v * 100)
    if (k / 100 === v && k > -1e15 && k < 1e15) {
      if (k < 0) buf[at++] = 45
      const a = k < 0 ? -k : k
      const whole = Math.floor(a / 100)
      const cents = a - whole * 100
      at = putDigits(buf, at, whole)
      buf[at++] = 46
      const tens = Math.floor(cents / 10)
      buf[at++] = 48 + tens
      if (cents !== tens * 10) buf[at++] = 48 + cents - tens * 10
      return at
    }
  }
  return putAscii(buf, at, String(v))
}
/**
 * A text cell's type and value after its address, as inlineText writes it. Most texts are printable
 * ASCII with nothing to escape, put a character a byte; any other goes the way of inlineText.
 */
function putText(buf: Buffer, at: number, s: string): number {
  const n = s.length
  const start = at
  at = put(buf, at, s.charCodeAt(0) === 32 || s.charCodeAt(n - 1) === 32 ? TEXT_OPEN_PRESERVE : TEXT_OPEN)
  for (let i = 0; i < n; i++) {
    const ch = s.charCodeAt(i)
    // Printable ASCII but & < > ": 0x20–0x7e less 0x22, 0x26, 0x3c, 0x3e.
    if (ch < 0x20 || ch > 0x7e || ch === 0x22 || ch === 0x26 || ch === 0x3c || ch === 0x3e) return start + buf.write(inlineText(s), start)
    buf[at + i] = ch
  }
  return put(buf, at + n, TEXT_CLOSE)
}

/**
 * Puts rows into an entry's chunks as bytes, cell by cell, each column's value taken by its `value`:
 * rows built as strings, then written, left the collector a row's pieces and its flattened copy for
 * every row, and writing the string cost as much again (issue 43). The result is the same text.
 * A row that might not fit what is left of the chunk's buffer (a long text) goes as a string.
 */
class RowWriter<R> {
  private readonly n: number
  private readonly values: ((row: R) => XlsxCell)[]
  private readonly dates: boolean[]
  private readonly open: Uint8Array[]
  private readonly openText: string[]
  private readonly cells: XlsxCell[]
  private r = 1

  constructor(columns: readonly XlsxColumn<R>[], cols: readonly string[]) {
    this.n = columns.length
    this.values = columns.map((c) => c.value)
    this.dates = columns.map((c) => !!c.date)
    this.openText = cols.map((c) => `<c r="${c}`)
    this.open = this.openText.map(bytes)
    this.cells = columns.map(() => null)
  }

  /** Puts one row in `c`; answers what c.full() does. */
  put(c: Chunks, row: R): Promise<void> | undefined {
    const { n, values, cells } = this
    // The cells first, to know the row fits: what no number or date outgrows, and texts at their longest.
    let most = 32
    for (let i = 0; i < n; i++) {
      const v = values[i]!(row)
      if (typeof v === 'string') most += CELL_BYTES + TEXT_UNIT_BYTES * v.length
      else if (v !== null && v !== undefined && typeof v !== 'number' && !(v instanceof Date)) {
        const s = String(v)
        cells[i] = s
        most += CELL_BYTES + TEXT_UNIT_BYTES * s.length
        continue
      } else most += CELL_BYTES
      cells[i] = v
    }
    const rn = ++this.r
    const buf = c.buffer
    if (c.used + most > buf.length) return c.write(this.text(rn))
    const { dates, open } = this
    let at = put(buf, c.used, ROW_OPEN)
    // The row's number once, copied after each cell's column.
    const rnAt = at
    at = putDigits(buf, at, rn)
    const rnEnd = at
    at = put(buf, at, ROW_OPENED)
    for (let i = 0; i < n; i++) {
      const v = cells[i]
      if (v === null || v === undefined || v === '') continue
      at = put(buf, at, open[i]!)
      for (let k = rnAt; k < rnEnd; k++) buf[at++] = buf[k]!
      if (typeof v === 'number') {
        if (dates[i]) {
          at = put(buf, at, DATE_OPEN)
          at = putAscii(buf, at, String((v - EXCEL_EPOCH) / DAY_MS))
        } else {
          at = put(buf, at, NUMBER_OPEN)
          at = putNumber(buf, at, v)
        }
        at = put(buf, at, VALUE_CLOSE)
      } else if (typeof v === 'string') at = putText(buf, at, v)
      else {
        at = put(buf, at, DATE_OPEN)
        at = putAscii(buf, at, String(((v as Date).getTime() - EXCEL_EPOCH) / DAY_MS))
        at = put(buf, at, VALUE_CLOSE)
      }
    }
    c.used = put(buf, at, ROW_CLOSE)
    return c.full()
  }

  /** The row of the cells taken, as text. */
  private text(rn: number): string {
    const r = String(rn)
    let xml = '<row r="' + r + '">'
    for (let i = 0; i < this.n; i++) {
      const v = this.cells[i]
      const at = this.openText[i]!
      if (typeof v === 'number') {
        if (this.dates[i]) xml += at + r + '" s="2"><v>' + (v - EXCEL_EPOCH) / DAY_MS + '</v></c>'
        else xml += at + r + '"><v>' + numberText(v) + '</v></c>'
      } else if (typeof v === 'string') {
        if (v !== '') xml += at + r + inlineText(v)
      } else if (v instanceof Date) xml += at + r + '" s="2"><v>' + (v.getTime() - EXCEL_EPOCH) / DAY_MS + '</v></c>'
    }
    return xml + '</row>'
  }
}

/** One sheet: a bold header row, then rows; Date cells as real dates (yyyy-mm-dd hh:mm:ss). */
async function writeSheet<R>(out: Writable, sheetName: string, columns: readonly XlsxColumn<R>[], rows: AsyncIterable<readonly R[]>) {
  const o = { sheetName, header: columns.map((c) => c.header), widths: columns.map((c) => c.width) }
  const zip = new ZipWriter(out)
  const fixed = (name: string, xml: string) => zip.entry(name, async (c) => await c.write(xml))
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
  await zip.entry('xl/worksheets/sheet1.xml', async (c) => {
    await c.write(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cols>${o.widths.map((wd, i) => `<col min="${i + 1}" max="${i + 1}" width="${wd}" customWidth="1"/>`).join('')}</cols><sheetData>` +
        `<row r="1">${o.header.map((h, i) => `<c r="${cols[i]}1" s="1" t="inlineStr"><is><t>${esc(h)}</t></is></c>`).join('')}</row>`,
    )
    const rowWriter = new RowWriter(columns, cols)
    for await (const batch of rows) {
      for (const row of batch) {
        const full = rowWriter.put(c, row)
        if (full) await full
      }
    }
    await c.write('</sheetData></worksheet>')
  })
  await zip.finish()
}
