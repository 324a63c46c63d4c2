// Server-sent events read from a fetch body (the WHATWG "event stream" format), for streams that need
// the Authorization header, which EventSource cannot send. Pure: no app imports, no network.

export interface SseEvent {
  /** The `event:` field, 'message' when the event has none. */
  event: string
  /** The `data:` lines joined with '\n'. */
  data: string
  /** The last `id:` seen (it carries over to later events, as in EventSource). */
  id: string
}

export interface SseParser {
  /** Takes the next piece of decoded text; lines and events may be split anywhere between pieces. */
  feed(text: string): void
}

/**
 * Turns text into events: `field: value` lines, a blank line ends an event, lines starting with ':'
 * are comments (keep-alives). Lines end with LF, CRLF or CR, also when a CRLF is split between
 * pieces. `retry:` (milliseconds) goes to `onRetry`.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, onRetry?: (ms: number) => void): SseParser {
  let buffer = ''
  let data: string[] = []
  let type = ''
  let lastId = ''
  /** The previous piece ended with CR: a LF starting this one belongs to it. */
  let afterCR = false

  const dispatch = () => {
    if (data.length) onEvent({ event: type || 'message', data: data.join('\n'), id: lastId })
    data = []
    type = ''
  }

  const line = (text: string) => {
    if (text === '') return dispatch()
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'event':
        type = value
        break
      case 'data':
        data.push(value)
        break
      case 'id':
        if (!value.includes('\0')) lastId = value
        break
      case 'retry':
        if (/^\d+$/.test(value)) onRetry?.(Number(value))
        break
      default:
      // Unknown fields are ignored.
    }
  }

  return {
    feed(text) {
      if (afterCR && text.startsWith('\n')) text = text.slice(1)
      afterCR = false
      buffer += text
      let start = 0
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i)
        if (c !== 10 && c !== 13) continue
        line(buffer.slice(start, i))
        if (c === 13) {
          if (i + 1 === buffer.length) afterCR = true
          else if (buffer.charCodeAt(i + 1) === 10) i++
        }
        start = i + 1
      }
      buffer = buffer.slice(start)
    },
  }
}

/**
 * Reads a response body to its end, feeding the parser; resolves when the server closes the stream,
 * rejects when the read fails (including an abort).
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, parser: SseParser): Promise<void> {
  const reader = body.getReader()
  const decoder = new TextDecoder('utf-8')
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
    }
    const rest = decoder.decode()
    if (rest) parser.feed(rest)
  } finally {
    reader.releaseLock()
  }
}
