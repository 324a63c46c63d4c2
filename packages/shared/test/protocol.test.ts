import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { COMMAND_PARAMS, COMMANDS, CONFIG_VALUES } from '../src'

describe('the command catalogue', () => {
  it('gives every command a parameters schema its own example passes, and no schema to a command it does not name', () => {
    expect(Object.keys(COMMAND_PARAMS).sort()).toEqual(COMMANDS.map((c) => c.name).sort())
    for (const c of COMMANDS) expect(COMMAND_PARAMS[c.name]!.safeParse(c.example).success, c.name).toBe(true)
  })
})

describe('the protocol document’s setConfig catalogue', () => {
  // Device makers build from docs/iot-protocol.md alone: its table must name every key the server
  // pushes, with the range the console enforces, or a device refuses a push the server thinks valid.
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/iot-protocol.md', import.meta.url)), 'utf8')
  const section = doc.slice(doc.indexOf('#### setConfig values'), doc.indexOf('Which function commands a device supports'))
  const rows = new Map([...section.matchAll(/^\| `(\w+)` \| [^|]+ \| [^|]+ \| (\d+)–(\d+) \| (\d+) \|$/gm)].map((m) => [m[1], { min: Number(m[2]), max: Number(m[3]), default: Number(m[4]) }]))

  it('lists every configuration value with its range and default, and nothing else', () => {
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(CONFIG_VALUES.map((v) => [v.key, { min: v.min, max: v.max, default: v.default }])))
  })
})
