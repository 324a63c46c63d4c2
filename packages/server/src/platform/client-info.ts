import type { FastifyRequest } from 'fastify'
import { lazyRequire } from '../lib/lazy-require'

const uaParser = lazyRequire<typeof import('ua-parser-js')>('ua-parser-js')

export interface ClientInfo {
  ipaddr: string
  browser: string
  os: string
}

export function clientInfo(req: FastifyRequest): ClientInfo {
  const ua = new (uaParser().UAParser)(req.headers['user-agent'] ?? '').getResult()
  const join = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(' ').slice(0, 64)
  return {
    ipaddr: req.ip,
    browser: join(ua.browser.name, ua.browser.major) || 'Unknown',
    os: join(ua.os.name, ua.os.version) || 'Unknown',
  }
}
