import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serverPortOf } from '../../playwright.config'

/** The port of this worker's server: each worker has one of its own (playwright.config.ts). */
export const SERVER_PORT = serverPortOf(Number(process.env.TEST_PARALLEL_INDEX ?? 0))

/** Where this worker's server writes its mails (start-server.mjs › mailDirOf). */
export const MAIL_DIR = join(tmpdir(), `velo-e2e-mail-${SERVER_PORT}`)

/** The SQLite file of this worker's server (start-server.mjs › databaseNoteOf): specs compare pages with their own queries on it. */
export const databaseFile = (): string => readFileSync(join(tmpdir(), `velo-e2e-database-${SERVER_PORT}`), 'utf8')
