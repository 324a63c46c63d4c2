// Frame-number labels for a production order: A4 sheets of Avery Zweckform 3474 stock (70 × 37 mm,
// 3 × 8 = 24 labels, edge to edge with no gaps; not L7159, whose 63.5 × 33.9 mm labels have gaps and
// margins). Each label carries the number as text, a Code 128 barcode for the line's hand scanners
// and a QR code for phones.
//
// Encoders: bwip-js for the Code 128, node-qrcode for the QR code. bwip-js's QR encoder took 1.5 ms a
// symbol (four fifths of the sheet's time); node-qrcode encodes the same symbol, with the standard's
// mask scoring, in 0.12 ms. Measured with both in `npm run bench` (BENCH_ONLY=orders).

import { Readable } from 'node:stream'

/**
 * The PDF writer and the encoders, loaded when the first sheet is written: together 30 MB of memory
 * and 150 ms at start for a server that may never print a label.
 */
const encoders = async () => {
  const [pdfkit, bwip, qr] = await Promise.all([
    import('pdfkit'),
    // The Node entry by name: TypeScript's bundler resolution does not pick bwip-js's root export by its 'node' condition.
    import('bwip-js/node'),
    import('qrcode'),
  ])
  return { PDFDocument: pdfkit.default, bwipjs: bwip.default, QRCode: qr.default }
}
type Encoders = Awaited<ReturnType<typeof encoders>>
let loaded: Promise<Encoders> | undefined
import { yieldWhenDue } from '../../lib/event-loop'

export interface FrameLabel {
  /** Upper-case letters and digits, at most 32: more would not fit the barcode at a width scanners read. */
  frameNumber: string
  /** A short second line. Drawn in the PDF's built-in Helvetica, which has only the WinAnsi characters:
   *  any other (Chinese, emoji) prints as '?', since embedding a CJK font would weigh megabytes. */
  caption: string
}

const COLUMNS = 3
const ROWS = 8
export const LABELS_PER_SHEET = COLUMNS * ROWS

const MM = 72 / 25.4
const A4_HEIGHT = 297 * MM
const LABEL_WIDTH = 70 * MM
const LABEL_HEIGHT = 37 * MM
/** Eight rows take 296 of A4's 297 mm: the sheet leaves half a millimetre above and below. */
const SHEET_TOP = (A4_HEIGHT - ROWS * LABEL_HEIGHT) / 2
/** Die-cut labels shift by a millimetre or so in a printer: nothing is drawn this close to an edge. */
const PADDING = 3 * MM
const QR_SIZE = 16 * MM
/** Between the text and the QR code, and between the QR code and the barcode below it. */
const GAP = 3 * MM
const BARCODE_HEIGHT = LABEL_HEIGHT - 2 * PADDING - QR_SIZE - GAP
const TEXT_WIDTH = LABEL_WIDTH - 2 * PADDING - QR_SIZE - GAP
const NUMBER_FONT = 'Courier-Bold'
const NUMBER_SIZE = 13
const CAPTION_FONT = 'Helvetica'
const CAPTION_SIZE = 7
/** Code 128 wants ten modules of white either side of its bars (ISO/IEC 15417). */
const CODE128_QUIET_MODULES = 10

const FRAME_NUMBER = /^[A-Z0-9]{1,32}$/

/** PDF 32000 annex D: beyond Latin-1, the only characters WinAnsiEncoding gives the built-in fonts. */
const WIN_ANSI_BEYOND_LATIN1 = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ')
const drawable = (c: string) => (c >= ' ' && c <= '~') || (c >= '\u00a0' && c <= '\u00ff') || WIN_ANSI_BEYOND_LATIN1.has(c)
/** NFC first, so an accent typed as a combining mark joins its letter instead of becoming a '?'. */
const winAnsi = (text: string) => Array.from(text.normalize('NFC'), (c) => (drawable(c) ? c : '?')).join('')

/**
 * Writes the labels as an A4 PDF to a stream it answers at once. Labels are read as the stream is
 * read: a page at a time, and no further while the reader has a full buffer, so a sheet of 100,000
 * labels is never held whole. `onLabel(done)` is called after each label is drawn. An abort of
 * `signal` errors the stream with the signal's reason and stops reading `labels`; so does a
 * malformed frame number. No labels make one blank page: the document stays valid, and a caller that
 * would rather refuse knows its count before it starts.
 */
export function labelSheet(
  labels: AsyncIterable<FrameLabel>,
  options: { onLabel?: (done: number) => void; signal?: AbortSignal; title?: string } = {},
): Readable {
  const { onLabel, signal, title } = options
  let wake: (() => void) | undefined
  const out = new Readable({
    read() {
      wake?.()
    },
    destroy(error, callback) {
      wake?.()
      callback(error)
    },
  })
  const demanded = () => new Promise<void>((resolve) => (wake = resolve)).finally(() => (wake = undefined))

  if (signal) {
    const abort = () => out.destroy(signal.reason)
    if (signal.aborted) abort()
    else {
      signal.addEventListener('abort', abort, { once: true })
      out.once('close', () => signal.removeEventListener('abort', abort))
    }
  }

  async function write() {
    const lib = await (loaded ??= encoders())
    if (out.destroyed) return
    const doc = new lib.PDFDocument({ autoFirstPage: false, size: 'A4', margin: 0, info: title === undefined ? {} : { Title: title } })
    doc.on('data', (chunk: Buffer) => {
      if (!out.destroyed) out.push(chunk)
    })
    doc.on('end', () => {
      if (!out.destroyed) out.push(null)
    })
    const source = labels[Symbol.asyncIterator]()
    let next: IteratorResult<FrameLabel> | undefined
    try {
      next = await source.next()
      doc.addPage()
      let slot = 0
      let done = 0
      while (!next.done && !out.destroyed) {
        if (slot === LABELS_PER_SHEET) {
          // The finished page went to the stream when this one began.
          if (out.readableLength >= out.readableHighWaterMark) await demanded()
          if (out.destroyed) break
          doc.addPage()
          slot = 0
        }
        drawLabel(lib, doc, next.value, slot++)
        onLabel?.(++done)
        // Labels from memory answer at once: requests get their turn between them.
        await yieldWhenDue()
        if (!out.destroyed) next = await source.next()
      }
      if (!out.destroyed) doc.end()
    } finally {
      if (!next?.done) await source.return?.()
    }
  }
  write().catch((error: unknown) => out.destroy(error as Error))
  return out
}

function drawLabel(lib: Encoders, doc: PDFKit.PDFDocument, label: FrameLabel, slot: number) {
  const { frameNumber } = label
  if (!FRAME_NUMBER.test(frameNumber)) throw new Error(`A frame number is 1 to 32 upper-case letters and digits, not ${JSON.stringify(frameNumber)}`)
  const left = (slot % COLUMNS) * LABEL_WIDTH
  const top = SHEET_TOP + Math.floor(slot / COLUMNS) * LABEL_HEIGHT

  doc.font(NUMBER_FONT).fontSize(NUMBER_SIZE)
  // 13 pt holds the 14 characters of today's numbers; longer ones shrink to the width there is.
  const numberSize = Math.min(NUMBER_SIZE, (NUMBER_SIZE * TEXT_WIDTH) / doc.widthOfString(frameNumber))
  doc.fontSize(numberSize).text(frameNumber, left + PADDING, top + PADDING, { lineBreak: false })
  const captionTop = top + PADDING + numberSize + 1.5 * MM
  doc
    .font(CAPTION_FONT)
    .fontSize(CAPTION_SIZE)
    .text(winAnsi(label.caption), left + PADDING, captionTop, { width: TEXT_WIDTH, height: top + PADDING + QR_SIZE - captionTop, ellipsis: true })

  drawQrCode(lib, doc, frameNumber, left + LABEL_WIDTH - PADDING - QR_SIZE, top + PADDING)
  drawCode128(lib, doc, frameNumber, left, top + LABEL_HEIGHT - PADDING - BARCODE_HEIGHT)
}

// The encoders answer modules; they are drawn here as filled rectangles, sharp at any printer's
// resolution. bwip-js's raw() rather than render() with a drawing of our own: BWIPP's renderer costs
// more than the encoding (0.7 ms against 0.05 ms per Code 128) only to hand back the same modules.

/** Each run of dark modules in a row is one rectangle, in a coordinate system of one unit per module. */
function drawQrCode({ QRCode }: Encoders, doc: PDFKit.PDFDocument, text: string, x: number, y: number) {
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules
  const module = QR_SIZE / size
  doc.save().transform(module, 0, 0, module, x, y)
  for (let row = 0; row < size; row++) {
    let column = 0
    while (column < size) {
      if (!data[row * size + column]) {
        column++
        continue
      }
      const start = column
      while (column < size && data[row * size + column]) column++
      doc.rect(start, row, column - start, 1)
    }
  }
  doc.fill('black').restore()
}

/**
 * The bars span the label's inner width, and no more than leaves the quiet zone to the label's edge:
 * for today's 14 characters a module of 0.39 mm; 32 characters still get 0.17 mm, which a 600 dpi
 * printer and a common scanner manage.
 */
function drawCode128({ bwipjs }: Encoders, doc: PDFKit.PDFDocument, text: string, labelLeft: number, y: number) {
  const [symbol] = bwipjs.raw('code128', text, {})
  if (!symbol || !('sbs' in symbol)) throw new Error('bwip-js answered no Code 128 bars')
  // sbs: the widths of bar, space, bar, … in modules.
  const { sbs } = symbol
  const modules = sbs.reduce((sum, width) => sum + width, 0)
  const module = Math.min((LABEL_WIDTH - 2 * PADDING) / modules, LABEL_WIDTH / (modules + 2 * CODE128_QUIET_MODULES))
  doc.save().transform(module, 0, 0, BARCODE_HEIGHT, labelLeft + (LABEL_WIDTH - modules * module) / 2, y)
  let at = 0
  sbs.forEach((width, i) => {
    if (i % 2 === 0) doc.rect(at, 0, width, 1)
    at += width
  })
  doc.fill('black').restore()
}
