import type { Socket } from 'node:net'
import { Duplex } from 'node:stream'

export interface PacketLimits {
  /** The most the first packet, the CONNECT, may take (fixed header included). */
  connectBytes: number
  /** The most any later packet may take. */
  packetBytes: number
}

/**
 * Follows the MQTT framing of a byte stream by the fixed headers alone (type byte, remaining-length
 * varint), so a packet's announced size is known from its first 5 bytes, before its body arrives.
 */
export class PacketScanner {
  private packets = 0
  /** Body bytes of the current packet still to come. */
  private skip = 0
  private inLength = false
  private length = 0
  private lengthBytes = 0

  constructor(private readonly limits: PacketLimits) {}

  /** Null while the stream keeps to the limits, else why it does not. */
  scan(chunk: Buffer): string | null {
    let i = 0
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i)
        this.skip -= n
        i += n
        continue
      }
      const byte = chunk[i++]!
      if (!this.inLength) {
        // [MQTT-3.1.0-1]; anything else first is refused by aedes too, but only once it has all arrived.
        if (this.packets === 0 && byte >> 4 !== 1) return 'the first packet is not a CONNECT'
        this.inLength = true
        this.length = 0
        this.lengthBytes = 0
        continue
      }
      this.length += (byte & 0x7f) * 128 ** this.lengthBytes++
      if (byte & 0x80) {
        if (this.lengthBytes === 4) return 'malformed remaining length'
        continue
      }
      const size = 1 + this.lengthBytes + this.length
      const limit = this.packets === 0 ? this.limits.connectBytes : this.limits.packetBytes
      if (size > limit) return `a ${this.packets === 0 ? 'CONNECT' : 'packet'} of ${size} bytes (at most ${limit})`
      this.packets++
      this.inLength = false
      this.skip = this.length
    }
    return null
  }
}

/** The most of one device's bytes aedes is handed at a time: about a dozen telemetry reports. */
export const HAND_BYTES = 2048

/**
 * A client's socket as aedes sees it: the bytes pass through unchanged, but a packet announcing more
 * than its limit ends the connection at its header. aedes's parser (mqtt-packet) takes no size limit
 * and would otherwise buffer whatever a remaining length announces, before any authentication.
 */
export class GuardedSocket extends Duplex {
  /** Bytes read from the socket and not yet handed to aedes. */
  private held: Buffer[] = []
  private heldBytes = 0
  /** aedes asked for more (_read) and has not been handed any since. */
  private wanted = false
  private ended = false

  constructor(
    private readonly socket: Socket,
    limits: PacketLimits,
    /** The most aedes is handed at once (see HAND_BYTES). */
    private readonly handBytes = HAND_BYTES,
  ) {
    super({ allowHalfOpen: false, readableHighWaterMark: handBytes })
    const scanner = new PacketScanner(limits)
    socket.on('data', (chunk: Buffer) => {
      const refused = scanner.scan(chunk)
      if (refused) {
        this.destroy(new Error(`MQTT connection from ${socket.remoteAddress} closed: ${refused}`))
        return
      }
      this.held.push(chunk)
      this.heldBytes += chunk.length
      // The rest stays in the kernel (and then with the device) until aedes has taken what is here.
      if (this.heldBytes >= this.handBytes) socket.pause()
      if (this.wanted) this.hand()
    })
    socket.on('end', () => {
      this.ended = true
      if (this.wanted) this.hand()
    })
    socket.on('error', (err) => this.destroy(err))
    socket.on('close', () => this.destroy())
  }

  override _read() {
    this.wanted = true
    this.hand()
  }

  /**
   * aedes reads everything buffered at once and parses it into packets it handles side by side: a
   * device that sent a thousand reports while the ingest was full would bring them all in at once.
   * Handed a few kB at a time, a device brings in a few reports, and the rest wait unacknowledged.
   */
  private hand() {
    while (this.wanted && this.heldBytes > 0) {
      let slice = this.held[0]!
      if (slice.length > this.handBytes) {
        this.held[0] = slice.subarray(this.handBytes)
        slice = slice.subarray(0, this.handBytes)
      } else this.held.shift()
      this.heldBytes -= slice.length
      this.wanted = this.push(slice)
    }
    if (this.heldBytes === 0 && this.ended) {
      this.ended = false
      this.push(null)
      return
    }
    if (this.heldBytes < this.handBytes && this.socket.isPaused()) this.socket.resume()
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (err?: Error | null) => void) {
    this.socket.write(chunk, encoding, callback)
  }

  // mqtt-packet writes a packet in several pieces: one syscall for them all.
  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void) {
    this.socket.cork()
    chunks.forEach(({ chunk }, i) => this.socket.write(chunk, i === chunks.length - 1 ? callback : undefined))
    this.socket.uncork()
  }

  override _final(callback: (err?: Error | null) => void) {
    this.socket.end(callback)
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void) {
    this.socket.destroy()
    callback(err)
  }
}
