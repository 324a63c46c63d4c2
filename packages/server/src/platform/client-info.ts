import type { FastifyRequest } from 'fastify'
import { UAParser } from 'ua-parser-js'

export interface ClientInfo {
  ipaddr: string
  browser: string
  os: string
}

export function clientInfo(req: FastifyRequest): ClientInfo {
  const ua = new UAParser(req.headers['user-agent'] ?? '').getResult()
  const join = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(' ').slice(0, 64)
  return {
    ipaddr: req.ip,
    browser: join(ua.browser.name, ua.browser.major) || 'Unknown',
    os: join(ua.os.name, ua.os.version) || 'Unknown',
  }
}
