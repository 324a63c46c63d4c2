import { parseArgs, type ParseArgsConfig } from 'node:util'

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
