import { deflateSync } from 'node:zlib'
import type { Category } from './vocabulary'

// Small PNG placeholders the demo stores for its bike pictures and static images, so the console
// shows a drawing in the model's colour instead of a broken image. Drawn here, byte for byte the
// same on every run: no image library, no network.

/** Stored name (under STORAGE_DIR) of a bike model's picture: its colour and the picture's number. */
export const pictureName = (model: string, colour: string, n: number) => `demo/bike/${model}-${colour}-${n}.png`

const WIDTH = 320
const HEIGHT = 200

type Rgb = readonly [number, number, number]

export function hexColour(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

type Shape =
  | { kind: 'segment'; ax: number; ay: number; bx: number; by: number; width: number; colour: Rgb }
  | { kind: 'ring'; cx: number; cy: number; r: number; width: number; colour: Rgb }
  | { kind: 'disc'; cx: number; cy: number; r: number; colour: Rgb }
  | { kind: 'box'; x0: number; y0: number; x1: number; y1: number; colour: Rgb }

function covers(s: Shape, x: number, y: number): boolean {
  switch (s.kind) {
    case 'segment': {
      const dx = s.bx - s.ax
      const dy = s.by - s.ay
      const t = Math.max(0, Math.min(1, ((x - s.ax) * dx + (y - s.ay) * dy) / (dx * dx + dy * dy)))
      const px = s.ax + t * dx - x
      const py = s.ay + t * dy - y
      return px * px + py * py <= (s.width / 2) ** 2
    }
    case 'ring': {
      const d = Math.hypot(x - s.cx, y - s.cy)
      return d <= s.r + s.width / 2 && d >= s.r - s.width / 2
    }
    case 'disc':
      return (x - s.cx) ** 2 + (y - s.cy) ** 2 <= s.r * s.r
    case 'box':
      return x >= s.x0 && x <= s.x1 && y >= s.y0 && y <= s.y1
  }
}

/** A side view of a bike of the category, its frame in the colour, on the background. */
export function bikeDrawing(category: Category, frame: Rgb, background: Rgb, tyres: Rgb = [43, 43, 43]): Buffer {
  const small = category === 'folding'
  const r = small ? 34 : 46
  const wheelY = small ? 150 : 136
  const rear = { x: category === 'cargo' ? 70 : 88, y: wheelY }
  const front = { x: small ? 228 : 238, y: wheelY }
  const bb = { x: small ? 158 : 152, y: wheelY + 4 }
  const seat = { x: bb.x - 16, y: small ? 92 : 72 }
  const head = { x: front.x - 22, y: small ? 88 : 76 }
  const headLow = { x: front.x - 16, y: head.y + 20 }
  const dark: Rgb = [55, 55, 55]
  const shapes: Shape[] = [
    { kind: 'ring', cx: rear.x, cy: rear.y, r, width: category === 'mountain' ? 10 : 6, colour: tyres },
    { kind: 'ring', cx: front.x, cy: front.y, r, width: category === 'mountain' ? 10 : 6, colour: tyres },
    { kind: 'disc', cx: rear.x, cy: rear.y, r: 6, colour: dark },
    { kind: 'disc', cx: front.x, cy: front.y, r: 5, colour: dark },
    { kind: 'segment', ax: rear.x, ay: rear.y, bx: bb.x, by: bb.y, width: 6, colour: frame },
    { kind: 'segment', ax: rear.x, ay: rear.y, bx: seat.x, by: seat.y + 6, width: 5, colour: frame },
    { kind: 'segment', ax: bb.x, ay: bb.y, bx: seat.x, by: seat.y, width: 8, colour: frame },
    { kind: 'segment', ax: headLow.x, ay: headLow.y, bx: front.x, by: front.y, width: category === 'mountain' ? 8 : 5, colour: dark },
    { kind: 'segment', ax: head.x, ay: head.y, bx: headLow.x, by: headLow.y, width: 9, colour: frame },
  ]
  if (category === 'city' || category === 'cargo') {
    // A low step-through tube and the battery on it.
    shapes.push({ kind: 'segment', ax: bb.x, ay: bb.y, bx: headLow.x, by: headLow.y + 4, width: 10, colour: frame })
    shapes.push({ kind: 'segment', ax: bb.x + 14, ay: bb.y - 8, bx: headLow.x - 14, by: headLow.y + 2, width: 6, colour: dark })
  } else {
    shapes.push({ kind: 'segment', ax: seat.x, ay: seat.y, bx: head.x, by: head.y, width: 7, colour: frame })
    shapes.push({ kind: 'segment', ax: bb.x, ay: bb.y, bx: headLow.x, by: headLow.y, width: 11, colour: frame })
    shapes.push({ kind: 'segment', ax: bb.x + 12, ay: bb.y - 12, bx: headLow.x - 12, by: headLow.y + 6, width: 5, colour: dark })
  }
  if (category === 'cargo') shapes.push({ kind: 'box', x0: rear.x - 30, y0: seat.y + 22, x1: seat.x + 4, y1: seat.y + 30, colour: dark })
  if (category === 'trekking') shapes.push({ kind: 'segment', ax: rear.x - 6, ay: seat.y + 16, bx: seat.x, by: seat.y + 16, width: 4, colour: dark })
  // Seat post and saddle, stem and handlebar.
  shapes.push({ kind: 'segment', ax: seat.x, ay: seat.y, bx: seat.x - 3, by: seat.y - 12, width: 4, colour: dark })
  shapes.push({ kind: 'segment', ax: seat.x - 18, ay: seat.y - 13, bx: seat.x + 10, by: seat.y - 13, width: 7, colour: dark })
  shapes.push({ kind: 'segment', ax: head.x, ay: head.y, bx: head.x - 6, by: head.y - 16, width: 5, colour: dark })
  shapes.push({ kind: 'segment', ax: head.x - 6, ay: head.y - 16, bx: head.x - 22, by: head.y - 14, width: 5, colour: dark })
  return png(WIDTH, HEIGHT, (x, y) => {
    let colour = background
    for (const s of shapes) if (covers(s, x, y)) colour = s.colour
    return colour
  })
}

/** A medal of the colour on a ribbon: an achievement's picture (grey while it is not reached). */
export function badge(colour: Rgb, background: Rgb): Buffer {
  const darker: Rgb = [Math.round(colour[0] * 0.7), Math.round(colour[1] * 0.7), Math.round(colour[2] * 0.7)]
  const ribbon: Rgb = [55, 65, 81]
  const shapes: Shape[] = [
    { kind: 'segment', ax: 128, ay: 8, bx: 152, by: 92, width: 22, colour: ribbon },
    { kind: 'segment', ax: 192, ay: 8, bx: 168, by: 92, width: 22, colour: ribbon },
    { kind: 'disc', cx: 160, cy: 122, r: 62, colour },
    { kind: 'ring', cx: 160, cy: 122, r: 48, width: 6, colour: darker },
    { kind: 'disc', cx: 160, cy: 122, r: 14, colour: darker },
  ]
  return png(WIDTH, HEIGHT, (x, y) => {
    let c = background
    for (const s of shapes) if (covers(s, x, y)) c = s.colour
    return c
  })
}

/** The colour itself, with a strip of the background below. */
export function swatch(colour: Rgb, background: Rgb): Buffer {
  return png(WIDTH, HEIGHT, (_x, y) => (y < HEIGHT - 36 ? colour : background))
}

function png(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height)
  let o = 0
  for (let y = 0; y < height; y++) {
    raw[o++] = 0 // filter: none
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x + 0.5, y + 0.5)
      raw[o++] = r
      raw[o++] = g
      raw[o++] = b
    }
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  data.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
