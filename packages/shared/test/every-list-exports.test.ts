import { describe, expect, it } from 'vitest'
import { allEntities, onlineSession } from '../src'

// SPEC §1: each module list page offers export. A definition that lists but does not export fails
// here, before any page shows a list without the button (the server's list-export test checks the
// seeded button of the one that lacked it, the menu).
describe('every list exports', () => {
  it('offers export wherever a definition offers a list', () => {
    // The online users are a list of the session store's, with a definition of its own (not registered).
    const without = [...allEntities(), onlineSession].filter((e) => e.operations.includes('list') && !e.operations.includes('export'))
    expect(without.map((e) => e.key)).toEqual([])
  })
})
