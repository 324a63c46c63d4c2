import { setTimeout as sleep } from 'node:timers/promises'
import { inflateSync } from 'node:zlib'
import bwipjs from 'bwip-js/node'
import QRCode from 'qrcode'
import { describe, expect, it } from 'vitest'
import { type FrameLabel, labelSheet, LABELS_PER_SHEET } from '../src/modules/order/labels'

// The printable frame-number labels: pages, text, the barcodes bwip-js encodes, and a stream that
// reads its labels only as fast as it is read, and stops on an abort.

const frameNumber = (serial: number) => `VLATMET${String(serial).padStart(6, '0')}X`

async function* numbered(count: number, caption = 'PO-2026-0001 · Metro', read = { labels: 0, closed: false }): AsyncGenerator<FrameLabel> {
  try {
    for (let serial = 1; serial <= count; serial++) {
      read.labels++
      yield { frameNumber: frameNumber(serial), caption }
    }
  } finally {
    read.closed = true
  }
}

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The file as text, and the content of its streams, inflated where pdfkit compressed them. */
function parsePdf(pdf: Buffer) {
  const text = pdf.toString('latin1')
  const contents: string[] = []
  const streamStart = /<<([^]*?)>>\s*stream\r?\n/g
  for (let m = streamStart.exec(text); m; m = streamStart.exec(text)) {
    const data = pdf.subarray(streamStart.lastIndex, streamStart.lastIndex + Number(/\/Length (\d+)/.exec(m[1]!)![1]))
    contents.push((m[1]!.includes('/FlateDecode') ? inflateSync(data) : data).toString('latin1'))
  }
  const content = contents.join('\n')
  // Text shows are hex strings of WinAnsi codes, split where kerning moves a glyph.
  const shownText = [...content.matchAll(/\[(.*?)\] TJ/g)].map(([, shown]) =>
    [...shown!.matchAll(/<([0-9a-f]*)>/g)].map(([, hex]) => Buffer.from(hex!, 'hex').toString('latin1')).join(''),
  )
  // Barcodes are drawn as rectangles in a coordinate system of one unit per module.
  const barcodes = [...content.matchAll(/q\n\S+ 0 0 \S+ \S+ \S+ cm\n((?:\S+ \S+ \S+ \S+ re\n)+)/g)].map(([, rects]) =>
    [...rects!.matchAll(/(\S+) (\S+) (\S+) (\S+) re/g)].map((r) => r.slice(1, 5).map(Number) as [number, number, number, number]),
  )
  return { text, content, shownText, barcodes, pages: text.match(/\/Type \/Page(?![A-Za-z])/g)?.length ?? 0 }
}

describe('frame-number label sheets', () => {
  it('puts 106 labels on 5 pages of 24, each number readable, with the title given', async () => {
    const progress: number[] = []
    const pdf = await bytesOf(labelSheet(numbered(106), { title: 'PO-2026-0001 labels', onLabel: (done) => progress.push(done) }))
    const { text, shownText, pages } = parsePdf(pdf)
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    expect(LABELS_PER_SHEET).toBe(24)
    expect(pages).toBe(Math.ceil(106 / LABELS_PER_SHEET))
    expect(text).toMatch(/\/Type \/Pages\n\/Count 5\n/)
    expect(shownText).toContain(frameNumber(1))
    expect(shownText).toContain(frameNumber(106))
    expect(shownText.filter((s) => s.startsWith('VLATMET'))).toHaveLength(106)
    expect(progress).toEqual(Array.from({ length: 106 }, (_, i) => i + 1))
    const titleObject = /\/Title (\d+) 0 R/.exec(text)![1]
    expect(text).toContain(`\n${titleObject} 0 obj\n(PO-2026-0001 labels)\n`)
  })

  it('draws the Code 128 bars bwip-js encodes and the QR code modules node-qrcode encodes', async () => {
    const { barcodes } = parsePdf(await bytesOf(labelSheet(numbered(1))))
    const [qrRects, barRects] = barcodes
    const [bars] = bwipjs.raw('code128', frameNumber(1), {})
    if (!bars || !('sbs' in bars)) throw new Error('no Code 128 from bwip-js')
    const expectedBars: number[][] = []
    bars.sbs.reduce((x, width, i) => {
      if (i % 2 === 0) expectedBars.push([x, 0, width, 1])
      return x + width
    }, 0)
    expect(barRects).toEqual(expectedBars)

    const qr = QRCode.create(frameNumber(1), { errorCorrectionLevel: 'M' }).modules
    const drawn = new Array<number>(qr.size * qr.size).fill(0)
    for (const [x, y, width] of qrRects!) drawn.fill(1, y * qr.size + x, y * qr.size + x + width)
    expect(drawn).toEqual([...qr.data])
  })

  it('makes one blank page of no labels', async () => {
    const pdf = await bytesOf(labelSheet(numbered(0)))
    const { pages, shownText, barcodes } = parsePdf(pdf)
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    expect(pdf.subarray(-6).toString()).toMatch(/%%EOF\n?$/)
    expect(pages).toBe(1)
    expect(shownText).toEqual([])
    expect(barcodes).toEqual([])
  })

  it('prints what Helvetica cannot draw as ?, and refuses a malformed frame number', async () => {
    const { shownText } = parsePdf(await bytesOf(labelSheet(numbered(1, 'Metro 中文 · Zürich'))))
    expect(shownText).toContain('Metro ?? · Zürich')

    async function* bad() {
      yield { frameNumber: frameNumber(1), caption: '' }
      yield { frameNumber: 'vlatmet000002x', caption: '' }
    }
    await expect(bytesOf(labelSheet(bad()))).rejects.toThrow(/1 to 32 upper-case letters and digits, not "vlatmet000002x"/)
  })

  it('reads labels only as the stream is read', async () => {
    const read = { labels: 0, closed: false }
    const stream = labelSheet(numbered(Infinity, 'PO', read))
    let before = -1
    for (let waited = 0; read.labels !== before && waited < 3000; waited += 100) {
      before = read.labels
      await sleep(100)
    }
    // A buffer's worth of pages (16 KB on Node 20, 64 KB from 22 on), not the endless source.
    expect(read.labels).toBeGreaterThan(0)
    expect(read.labels).toBeLessThan(40 * LABELS_PER_SHEET)
    stream.destroy()
    await sleep(10)
    expect(read.closed).toBe(true)
  })

  it('errors with the reason of an abort and stops reading', async () => {
    const controller = new AbortController()
    const read = { labels: 0, closed: false }
    const reason = new Error('order cancelled')
    const stream = labelSheet(numbered(Infinity, 'PO', read), { signal: controller.signal, onLabel: (done) => done === 30 && controller.abort(reason) })
    await expect(bytesOf(stream)).rejects.toBe(reason)
    await sleep(10)
    expect(read.closed).toBe(true)
    expect(read.labels).toBeLessThan(35)

    const unread = { labels: 0, closed: false }
    const aborted = AbortSignal.abort(reason)
    await expect(bytesOf(labelSheet(numbered(10, 'PO', unread), { signal: aborted }))).rejects.toBe(reason)
    expect(unread.labels).toBe(0)
  })
})
