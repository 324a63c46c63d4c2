import { parseArgs, type ParseArgsConfig } from 'node:util'
import { type AppConfig, ConfigError, loadConfig } from '../src/config'

// What the product's commands (npm run backup, restore, demo) share: their failure and their options.

/** Prints the message to stderr and ends the command with `code`. */
export function fail(message: string, code = 1): never {
  console.error(message)
  process.exit(code)
}

/**
 * The command's options, strictly: an unknown or malformed one ends it with the error and `usage`,
 * and --help (which every command's `options` declares) prints `usage` and ends it.
 */
export function commandLine<T extends Omit<ParseArgsConfig, 'args' | 'strict'> & { options: { help: { type: 'boolean' } } }>(usage: string, config: T) {
  let parsed: ReturnType<typeof parseArgs<T & { args: string[]; strict: true }>>
  try {
    parsed = parseArgs({ ...config, args: process.argv.slice(2), strict: true as const })
  } catch (e) {
    fail(`${e instanceof Error ? e.message : String(e)}\n${usage}`)
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage)
    process.exit(0)
  }
  return parsed
}

/**
 * The server's configuration as a command reads it: relative paths are the repository's
 * (src/config.ts) and the working directory is where the command was typed (npm runs a
 * workspace's script in the workspace's folder); a bad setting ends the command with its message.
 */
export function commandConfig(): AppConfig {
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD)
  try {
    return loadConfig()
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message)
    throw e
  }
}

/** Where the configured database is, for a message: a SQLite file, or a PostgreSQL URL without its password. */
export const databaseWhere = (config: AppConfig) => (config.database.dialect === 'sqlite' ? config.database.file : config.database.url.replace(/\/\/[^@/]*@/, '//…@'))
