import { Component, Suspense, type ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { allEntities } from '@velo/shared'
import { AREA_OF_KEY, KEY_OF_PATH, LOAD_AREA } from 'virtual:velo-entity-areas'
import { entityKeyAt, loadedEntityAt, loadEntities, useEntities } from './areas'

// Tests run in Node, where the registry holds every definition (shared/src/entities/catalog.ts); the
// browser's starts empty and loads areas by this index. So the index is checked against the registry:
// a definition the server registers that the browser could not find would be a page that never opens.
describe('the index the browser loads definitions by', () => {
  it('names the area of every registered definition, and that area brings it', async () => {
    for (const e of allEntities()) {
      const area = AREA_OF_KEY[e.key]
      expect(area, `${e.key} has an area`).toBeDefined()
      expect(Object.values(await LOAD_AREA[area!]!()), `area ${area} brings ${e.key}`).toContain(e)
    }
  })

  it('finds the definition at each page path, as the menus name pages', () => {
    for (const e of allEntities()) expect(KEY_OF_PATH[e.path], e.path).toBe(e.key)
    expect(entityKeyAt('system/dept/index')).toBe('dept')
    expect(entityKeyAt('/system/dept')).toBe('dept')
    expect(entityKeyAt('iot/nothingHere/index')).toBeUndefined()
  })

  it('answers at once for definitions already in, and refuses a key no area has', async () => {
    expect(loadedEntityAt('system/user/index')?.key).toBe('user')
    await expect(loadEntities(['user', 'dept'])).resolves.toBeUndefined()
    await expect(loadEntities(['noSuchEntity'])).rejects.toThrow('no entity noSuchEntity')
  })
})

class Caught extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: undefined as unknown }
  static getDerivedStateFromError(error: unknown) {
    return { error }
  }
  override render() {
    return this.state.error ? <p>{String(this.state.error)}</p> : this.props.children
  }
}

function NeedsMissing() {
  useEntities('noSuchEntity')
  return <p>shown</p>
}

describe('a page waiting for definitions', () => {
  it('gets the failed download as an error for its boundary, not a wait begun again at every render', async () => {
    render(
      <Caught>
        <Suspense fallback={<p>waiting</p>}>
          <NeedsMissing />
        </Suspense>
      </Caught>,
    )
    expect(await screen.findByText('Error: no entity noSuchEntity')).toBeTruthy()
    expect(screen.queryByText('shown')).toBeNull()
  })
})
