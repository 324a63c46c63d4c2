import { lazyRequire } from '../lib/lazy-require'

const pretty = lazyRequire<typeof import('pino-pretty')>('pino-pretty')
import type { AppConfig } from '../config'

/**
 * The server's log: JSON lines for a log collector, readable lines for a person at a terminal
 * (LOG_FORMAT=auto: pretty when stdout is a terminal, as under `npm run quickstart`; json when it is
 * piped, as under systemd, Docker or CI). pino-pretty runs in this thread, synchronously: a worker
 * transport would have to be resolved beside the bundle and could lose the last lines at a crash.
 */
export function loggerOptions(
  config: Pick<AppConfig, 'logLevel' | 'logFormat'>,
  isTerminal = Boolean(process.stdout.isTTY),
  destination: number | NodeJS.WritableStream = 1,
): object {
  const prettyLines = config.logFormat === 'pretty' || (config.logFormat === 'auto' && isTerminal)
  if (!prettyLines) return { level: config.logLevel }
  return {
    level: config.logLevel,
    stream: pretty()({ destination, sync: true, colorize: isTerminal, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true }),
  }
}
