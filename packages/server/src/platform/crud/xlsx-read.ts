// Reads the first sheet of an uploaded .xlsx for import. exceljs read a whole shared-strings table
// into memory whatever its size: an 8 MB upload inflating to gigabytes of strings took the server
// down (penetration test, finding 8). This reader inflates only the parts it needs, as streams, and
// counts what comes out instead of trusting the sizes the zip declares; it checks the header row
// before reading further and refuses a file as soon as it passes any of the limits below, so the
// memory an import takes is bounded by them, whatever the file says.
import { posix } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { createInflateRaw } from 'node:zlib'
import { SaxesParser, type SaxesTagPlain } from 'saxes'
import { AppError, badRequest } from '../errors'
import { EXCEL_EPOCH } from './xlsx-stream'

const MB = 1024 * 1024

/** Rows in one import: a 100,000-row file is fine; a runaway one is refused before it is read whole. */
export const IMPORT_MAX_ROWS = 200_000
/** Columns A to IV: the old Excel's width, far wider than any entity's import template. */
export const IMPORT_MAX_COLUMNS = 256
/** Excel's own limit for the text of one cell. */
export const IMPORT_MAX_CELL_CHARS = 32_767
/**
 * Cells kept in memory (each row up to its last value under a header): every row is read before
 * any is written, and a cell may cost ~120 bytes (a date). Ten columns at the row limit.
 */
export const IMPORT_MAX_CELLS = 2_000_000
/** Characters of text read from the sheet itself (inline strings, formula results) and kept: 64–128 MB. */
export const IMPORT_MAX_TEXT = 64 * MB
/** Entries of the shared-strings table: all of it is held while the sheet is read. */
export const IMPORT_MAX_SHARED_STRINGS = 2_000_000
/**
 * Bytes a part may inflate to. The sheet's limit fits the row limit even with inline strings
 * (~1 KB a row); the shared strings are held whole, so they get less; the rest are a few KB in real
 * workbooks (styles.xml grows to a few MB in style-bloated ones).
 */
export const IMPORT_MAX_PART = { sheet: 256 * MB, sharedStrings: 64 * MB, other: 32 * MB } as const

/** SpreadsheetML nests a handful of levels; the parser keeps a frame per open element. */
const MAX_DEPTH = 64
/**
 * Characters the parser may take in without reporting anything: it holds a text, tag or comment
 * whole until it ends, so one endless text would otherwise grow up to the part's limit. A cell at
 * Excel's limit, every character escaped, stays well under it.
 */
const MAX_TOKEN = 1 * MB
/** Excel's last row: a row number past it is no workbook Excel wrote. */
const EXCEL_MAX_ROW = 1_048_576

export type Cell = string | number | boolean | Date | null

export interface SheetRow {
  /** The spreadsheet's row number (the header is row 1 in a file made from the template). */
  number: number
  cells: Cell[]
}

const tooLarge = () => new AppError(413, 'import.tooLarge')
const cellTooLong = () => badRequest('import.cellTooLong', { max: IMPORT_MAX_CELL_CHARS })

/**
 * The first sheet's header row (cells as trimmed text) and every non-empty row after it, each cut to
 * the header's width. `onHeader` sees the header before any other row is read and may refuse it by
 * throwing; what it answers comes back as `columns`.
 */
export async function readFirstSheet<T>(bytes: Buffer, onHeader: (header: string[]) => T): Promise<{ header: string[]; columns: T; rows: SheetRow[] }> {
  try {
    const zip = new ZipParts(bytes)
    const book = await readWorkbook(zip)
    const rels = await readRelationships(zip, book.sheetRelId)
    if (!rels.sheet) throw new Error('no first sheet')
    const dateStyles = rels.styles ? await readDateStyles(zip, rels.styles) : new Set<number>()
    const strings = rels.sharedStrings ? await readSharedStrings(zip, rels.sharedStrings) : []
    return await readSheet(zip, rels.sheet, { strings, dateStyles, date1904: book.date1904 }, onHeader)
  } catch (err) {
    if (err instanceof AppError) throw err
    throw badRequest('import.unreadable')
  }
}

interface ZipEntry {
  method: number
  flags: number
  compressedSize: number
  localOffset: number
}

/** The entries of a zip held in memory, found through its central directory. */
class ZipParts {
  private readonly entries = new Map<string, ZipEntry>()

  constructor(private readonly bytes: Buffer) {
    // The end record closes the file, followed at most by a comment of up to 65,535 bytes.
    let end = -1
    for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
      if (bytes.readUInt32LE(i) === 0x06054b50) {
        end = i
        break
      }
    }
    if (end < 0) throw new Error('no zip end record')
    const count = bytes.readUInt16LE(end + 10)
    let p = bytes.readUInt32LE(end + 16)
    for (let n = 0; n < count; n++) {
      if (bytes.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory')
      const nameLength = bytes.readUInt16LE(p + 28)
      const extraLength = bytes.readUInt16LE(p + 30)
      const entry = { flags: bytes.readUInt16LE(p + 8), method: bytes.readUInt16LE(p + 10), compressedSize: bytes.readUInt32LE(p + 20), localOffset: bytes.readUInt32LE(p + 42) }
      const name = bytes.toString('utf8', p + 46, p + 46 + nameLength)
      zip64Sizes(bytes.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength), bytes.readUInt32LE(p + 24), entry)
      // Part names are case-insensitive (OPC).
      this.entries.set(name.toLowerCase(), entry)
      p += 46 + nameLength + extraLength + bytes.readUInt16LE(p + 32)
    }
  }

  /** The inflated bytes of a part, chunk by chunk; refused as soon as they pass `max`. */
  async *read(name: string, max: number): AsyncGenerator<Buffer> {
    const entry = this.entries.get(name.toLowerCase())
    if (!entry) throw new Error(`no part ${name}`)
    const { bytes } = this
    const p = entry.localOffset
    if (bytes.readUInt32LE(p) !== 0x04034b50 || entry.flags & 1) throw new Error(`unreadable part ${name}`)
    const start = p + 30 + bytes.readUInt16LE(p + 26) + bytes.readUInt16LE(p + 28)
    const data = bytes.subarray(start, start + entry.compressedSize)
    if (data.length !== entry.compressedSize) throw new Error(`truncated part ${name}`)
    let source: AsyncIterable<Buffer> | Iterable<Buffer>
    if (entry.method === 0) source = slices(data)
    else if (entry.method === 8) {
      // zlib inflates only as fast as the chunks are taken, so a bomb is stopped with one chunk out.
      const inflate = createInflateRaw({ chunkSize: 64 * 1024 })
      inflate.end(data)
      source = inflate
    } else throw new Error(`compression method ${entry.method}`)
    let total = 0
    for await (const chunk of source) {
      total += chunk.length
      if (total > max) throw tooLarge()
      yield chunk
    }
  }
}

function* slices(data: Buffer) {
  for (let i = 0; i < data.length; i += 64 * 1024) yield data.subarray(i, i + 64 * 1024)
}

/** Sizes and offset too large for the classic fields are in the zip64 extra field (id 1), in this order. */
function zip64Sizes(extra: Buffer, size: number, entry: ZipEntry) {
  for (let i = 0; i + 4 <= extra.length; i += 4 + extra.readUInt16LE(i + 2)) {
    if (extra.readUInt16LE(i) !== 1) continue
    let at = i + 4
    const next = () => {
      const v = Number(extra.readBigUInt64LE(at))
      at += 8
      return v
    }
    if (size === 0xffffffff) next()
    if (entry.compressedSize === 0xffffffff) entry.compressedSize = next()
    if (entry.localOffset === 0xffffffff) entry.localOffset = next()
  }
}

interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void
  close(name: string): void
  text?(text: string): void
  /** True once the part has given what is wanted: the rest is not inflated. */
  done?(): boolean
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1)

/** Parses a part with `on`, element names without their namespace prefix. */
async function parsePart(zip: ZipParts, name: string, max: number, on: XmlHandlers) {
  const parser = new SaxesParser({ position: false })
  let depth = 0
  let sinceEvent = 0
  parser.on('opentag', (tag) => {
    sinceEvent = 0
    if (++depth > MAX_DEPTH) throw new Error('nested too deeply')
    on.open(localName(tag.name), (tag as SaxesTagPlain).attributes)
  })
  parser.on('closetag', (tag) => {
    sinceEvent = 0
    depth--
    on.close(localName(tag.name))
  })
  const text = (t: string) => {
    sinceEvent = 0
    on.text?.(t)
  }
  parser.on('text', text)
  parser.on('cdata', text)
  const decoder = new StringDecoder('utf8')
  for await (const chunk of zip.read(name, max)) {
    const s = decoder.write(chunk)
    parser.write(s)
    sinceEvent += s.length
    if (sinceEvent > MAX_TOKEN) throw cellTooLong()
    if (on.done?.()) return
  }
  parser.write(decoder.end())
  parser.close()
}

/**
 * A copy of a string that shares no memory with the chunk it was cut from: V8 keeps a whole 64 KB
 * chunk alive for a slice of it, which would make every kept cell cost its chunk.
 */
const detached = (s: string) => (' ' + s).slice(1)

/** The first sheet's relationship id, and whether dates count from 1904 (old Mac workbooks). */
async function readWorkbook(zip: ZipParts): Promise<{ sheetRelId: string; date1904: boolean }> {
  let sheetRelId: string | null = null
  let date1904 = false
  await parsePart(zip, 'xl/workbook.xml', IMPORT_MAX_PART.other, {
    open(name, a) {
      if (name === 'workbookPr') date1904 = a.date1904 === '1' || a.date1904 === 'true'
      // The relationship id is r:id, whatever the prefix bound to the relationships namespace.
      else if (name === 'sheet') sheetRelId ??= Object.entries(a).find(([k]) => k.includes(':') && localName(k) === 'id')?.[1] ?? null
    },
    close() {},
    done: () => sheetRelId !== null,
  })
  if (sheetRelId === null) throw new Error('no sheet')
  return { sheetRelId, date1904 }
}

/** Part names of the first sheet, the shared strings and the styles, from the workbook's relationships. */
async function readRelationships(zip: ZipParts, sheetRelId: string) {
  const found: { sheet?: string; sharedStrings?: string; styles?: string } = {}
  await parsePart(zip, 'xl/_rels/workbook.xml.rels', IMPORT_MAX_PART.other, {
    open(name, a) {
      if (name !== 'Relationship' || !a.Target || a.TargetMode === 'External') return
      // Targets are relative to xl/, or absolute from the package root.
      const part = a.Target.startsWith('/') ? a.Target.slice(1) : posix.normalize(posix.join('xl', a.Target))
      const type = a.Type?.slice(a.Type.lastIndexOf('/') + 1)
      if (a.Id === sheetRelId) found.sheet = part
      else if (type === 'sharedStrings' || type === 'styles') found[type] ??= part
    },
    close() {},
  })
  return found
}

/** Built-in number formats that show dates or times: 14–22 and 45–47, and 27–36, 50–58 in East Asian locales (ECMA-376 18.8.30). */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58])

/** A custom format shows a date when a date or time token is left once quoted text, [colours, locales], escapes and padding are removed. */
export function isDateFormat(code: string): boolean {
  return /[ymdhs]/i.test(code.replace(/"[^"]*"|\[[^\]]*\]|\\.|[_*]./g, ''))
}

/** Indexes of the cell styles (cellXfs) whose number format is a date. */
async function readDateStyles(zip: ZipParts, part: string): Promise<Set<number>> {
  const dateFormats = new Set(BUILT_IN_DATE_FORMATS)
  const dateStyles = new Set<number>()
  let inCellXfs = false
  let index = 0
  let done = false
  await parsePart(zip, part, IMPORT_MAX_PART.other, {
    open(name, a) {
      if (name === 'numFmt') {
        // A workbook's own format for an id wins over the built-in one.
        if (a.formatCode !== undefined && isDateFormat(a.formatCode)) dateFormats.add(Number(a.numFmtId))
        else dateFormats.delete(Number(a.numFmtId))
      } else if (name === 'cellXfs') inCellXfs = true
      else if (name === 'xf' && inCellXfs) {
        if (dateFormats.has(Number(a.numFmtId ?? 0))) dateStyles.add(index)
        index++
      }
    },
    close(name) {
      if (name === 'cellXfs') done = true
    },
    done: () => done,
  })
  return dateStyles
}

/** The shared-strings table: each entry's text, rich-text runs joined, phonetic guides (rPh) left out. */
async function readSharedStrings(zip: ZipParts, part: string): Promise<string[]> {
  const strings: string[] = []
  let text = ''
  let inText = false
  let inPhonetic = false
  await parsePart(zip, part, IMPORT_MAX_PART.sharedStrings, {
    open(name) {
      if (name === 'si') text = ''
      else if (name === 't') inText = !inPhonetic
      else if (name === 'rPh') inPhonetic = true
    },
    close(name) {
      if (name === 't') inText = false
      else if (name === 'rPh') inPhonetic = false
      else if (name === 'si') {
        if (strings.length >= IMPORT_MAX_SHARED_STRINGS) throw tooLarge()
        strings.push(detached(text))
      }
    },
    text(t) {
      if (!inText) return
      text += t
      if (text.length > IMPORT_MAX_CELL_CHARS) throw cellTooLong()
    },
  })
  return strings
}

/** "AB12" → 27; null when the reference has no column letters. Past four letters is past any limit. */
function columnOf(ref: string): number | null {
  let n = 0
  let i = 0
  for (; i < ref.length && i < 4; i++) {
    const c = ref.charCodeAt(i)
    if (c < 65 || c > 90) break
    n = n * 26 + c - 64
  }
  return i === 0 ? null : n - 1
}

const DAY_MS = 86_400_000
const EPOCH_1904 = Date.UTC(1904, 0, 1)

async function readSheet<T>(
  zip: ZipParts,
  part: string,
  book: { strings: string[]; dateStyles: Set<number>; date1904: boolean },
  onHeader: (header: string[]) => T,
): Promise<{ header: string[]; columns: T; rows: SheetRow[] }> {
  const epoch = book.date1904 ? EPOCH_1904 : EXCEL_EPOCH
  let header: { text: string[]; columns: T } | null = null
  const rows: SheetRow[] = []
  let cellsKept = 0
  let textKept = 0
  let inData = false
  let done = false
  // The row being read.
  let rowNumber = 0
  let cells: Cell[] = []
  let nonEmpty = false
  // The cell being read.
  let column = -1
  let type = 'n'
  let style = 0
  let value = ''
  let hasValue = false
  let collecting = false
  let inInline = false
  let inPhonetic = false

  const cellValue = (): Cell => {
    if (!hasValue) return null
    switch (type) {
      case 's':
        return book.strings[Number(value)] ?? null
      case 'inlineStr':
      case 'str':
        return value
      case 'b':
        return value.trim() === '1' || value.trim() === 'true'
      case 'e':
        return null
      case 'd': {
        const d = new Date(value)
        return Number.isNaN(d.getTime()) ? value : d
      }
      default: {
        if (value.trim() === '') return null
        const n = Number(value)
        if (!Number.isFinite(n)) return value
        return book.dateStyles.has(style) ? new Date(epoch + Math.round(n * DAY_MS)) : n
      }
    }
  }

  const endCell = () => {
    let v = cellValue()
    if (v === null || v === '') return
    nonEmpty = true
    if (header && column >= header.text.length) return
    if (typeof v === 'string' && type !== 's') {
      textKept += v.length
      if (textKept > IMPORT_MAX_TEXT) throw tooLarge()
      v = detached(v)
    }
    while (cells.length < column) cells.push(null)
    cells[column] = v
  }

  const endRow = () => {
    if (!header) {
      const text = cells.map((v) => (v === null ? '' : String(v).trim()))
      while (text.length && text[text.length - 1] === '') text.pop()
      if (text.length === 0) throw badRequest('import.noHeader')
      header = { text, columns: onHeader(text) }
      return
    }
    if (!nonEmpty) return
    if (rows.length >= IMPORT_MAX_ROWS) throw badRequest('import.tooMany', { max: IMPORT_MAX_ROWS })
    cellsKept += cells.length
    if (cellsKept > IMPORT_MAX_CELLS) throw tooLarge()
    rows.push({ number: rowNumber, cells })
  }

  await parsePart(zip, part, IMPORT_MAX_PART.sheet, {
    open(name, a) {
      if (name === 'sheetData') inData = true
      if (!inData) return
      switch (name) {
        case 'row': {
          // Rows without a number follow the one before.
          rowNumber = a.r === undefined ? rowNumber + 1 : Number(a.r)
          if (!Number.isInteger(rowNumber) || rowNumber < 1 || rowNumber > EXCEL_MAX_ROW) throw new Error(`row number ${a.r}`)
          cells = []
          nonEmpty = false
          column = -1
          break
        }
        case 'c':
          column = (a.r === undefined ? null : columnOf(a.r)) ?? column + 1
          if (column >= IMPORT_MAX_COLUMNS) throw badRequest('import.tooManyColumns', { row: rowNumber, max: IMPORT_MAX_COLUMNS })
          type = a.t ?? 'n'
          style = a.s === undefined ? 0 : Number(a.s)
          value = ''
          hasValue = false
          break
        case 'v':
          collecting = hasValue = true
          break
        case 'is':
          inInline = hasValue = true
          break
        case 't':
          collecting = inInline && !inPhonetic
          break
        case 'rPh':
          inPhonetic = true
          break
      }
    },
    close(name) {
      if (!inData) return
      switch (name) {
        case 'v':
        case 't':
          collecting = false
          break
        case 'rPh':
          inPhonetic = false
          break
        case 'is':
          inInline = false
          break
        case 'c':
          endCell()
          break
        case 'row':
          endRow()
          break
        case 'sheetData':
          done = true
          break
      }
    },
    text(t) {
      if (!collecting) return
      value += t
      if (value.length > IMPORT_MAX_CELL_CHARS) throw cellTooLong()
    },
    done: () => done,
  })
  if (!header) throw badRequest('import.noHeader')
  // Set in the handlers, which TypeScript's narrowing does not follow.
  const { text, columns } = header as { text: string[]; columns: T }
  return { header: text, columns, rows }
}
