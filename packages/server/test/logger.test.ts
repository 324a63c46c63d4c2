import { describe, expect, it } from 'vitest'
import { Writable } from 'node:stream'
import pino from 'pino'
import { loggerOptions } from '../src/platform/logger'

describe('the server log (LOG_FORMAT)', () => {
  it('writes JSON lines when the output is not a terminal, readable lines at one or when asked', () => {
    expect(loggerOptions({ logLevel: 'info', logFormat: 'auto' }, false)).toEqual({ level: 'info' })
    expect(loggerOptions({ logLevel: 'warn', logFormat: 'json' }, true)).toEqual({ level: 'warn' })
    expect(loggerOptions({ logLevel: 'info', logFormat: 'auto' }, true)).toHaveProperty('stream')
    expect(loggerOptions({ logLevel: 'info', logFormat: 'pretty' }, false)).toHaveProperty('stream')
  })

  it('a pretty line reads as time, level and message, with the fields on the same line', async () => {
    const written: string[] = []
    const sink = new Writable({ write: (chunk, _encoding, done) => (written.push(String(chunk)), done()) })
    const { stream, level } = loggerOptions({ logLevel: 'info', logFormat: 'pretty' }, false, sink) as { stream: NodeJS.WritableStream; level: string }
    pino({ level }, stream).info({ jobId: 7 }, 'retention done')
    await new Promise((r) => setImmediate(r))
    expect(written.join('')).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: retention done \{"jobId":7\}\n$/)
  })
})
