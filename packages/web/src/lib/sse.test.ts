import { describe, expect, it } from 'vitest'
import { createSseParser, readEventStream, type SseEvent } from './sse'

function parse(pieces: string[]) {
  const events: SseEvent[] = []
  const retries: number[] = []
  const parser = createSseParser((e) => events.push(e), (ms) => retries.push(ms))
  for (const piece of pieces) parser.feed(piece)
  return { events, retries }
}

describe('server-sent event parser', () => {
  it('joins lines and events split anywhere between pieces', () => {
    const text = 'event: device\ndata: {"deviceId":7,"state":"online"}\n\nevent: command\ndata: {"commandId":1}\n\n'
    const whole = parse([text]).events
    expect(whole).toEqual([
      { event: 'device', data: '{"deviceId":7,"state":"online"}', id: '' },
      { event: 'command', data: '{"commandId":1}', id: '' },
    ])
    // Every split point, including inside a field name, a value and the blank line.
    for (let i = 1; i < text.length; i++) expect(parse([text.slice(0, i), text.slice(i)]).events).toEqual(whole)
    // One character at a time.
    expect(parse([...text]).events).toEqual(whole)
  })

  it('joins multi-line data with newlines and takes one space after the colon', () => {
    const { events } = parse(['data: first\ndata:second\ndata:  third\ndata\n\n'])
    expect(events).toEqual([{ event: 'message', data: 'first\nsecond\n third\n', id: '' }])
  })

  it('accepts CRLF and CR line ends, also a CRLF split between pieces', () => {
    expect(parse(['event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r']).events.map((e) => [e.event, e.data])).toEqual([
      ['a', '1'],
      ['b', '2'],
    ])
    // The LF after a piece ending in CR belongs to it: no extra blank line, no lost event.
    const split = parse(['data: x\r', '\n', 'data: y\r', '\n\r', '\n'])
    expect(split.events).toEqual([{ event: 'message', data: 'x\ny', id: '' }])
  })

  it('skips comments (keep-alives), events without data and unknown fields; keeps id and retry', () => {
    const { events, retries } = parse([': connected\n\n', ': keepalive\n\nevent: lonely\n\n', 'id: 41\nfoo: bar\nretry: 2500\nretry: soon\ndata: hi\n\n', 'data: again\n\n'])
    expect(events).toEqual([
      { event: 'message', data: 'hi', id: '41' },
      { event: 'message', data: 'again', id: '41' },
    ])
    expect(retries).toEqual([2500])
  })

  it('holds an unfinished event until its blank line arrives', () => {
    const events: SseEvent[] = []
    const parser = createSseParser((e) => events.push(e))
    parser.feed('event: device\ndata: {}')
    expect(events).toEqual([])
    parser.feed('\n')
    expect(events).toEqual([])
    parser.feed('\n')
    expect(events).toHaveLength(1)
  })

  it('decodes UTF-8 characters split between network chunks', async () => {
    const bytes = new TextEncoder().encode('event: message\ndata: {"kind":"设备"}\n\n')
    const cut = bytes.indexOf(0xe8) + 1 // inside the first Chinese character
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut))
        c.enqueue(bytes.slice(cut))
        c.close()
      },
    })
    const events: SseEvent[] = []
    await readEventStream(body, createSseParser((e) => events.push(e)))
    expect(events).toEqual([{ event: 'message', data: '{"kind":"设备"}', id: '' }])
  })
})
