import { describe, expect, it } from 'vitest'
import { COMMAND_PARAMS, COMMANDS } from '../src'

describe('the command catalogue', () => {
  it('gives every command a parameters schema its own example passes, and no schema to a command it does not name', () => {
    expect(Object.keys(COMMAND_PARAMS).sort()).toEqual(COMMANDS.map((c) => c.name).sort())
    for (const c of COMMANDS) expect(COMMAND_PARAMS[c.name]!.safeParse(c.example).success, c.name).toBe(true)
  })
})
