import { BUILT_IN_ENTITIES } from '#entity-catalog'
import type { ResolvedEntity } from './define'
import type { FieldDef } from './types'

/** Every entity by key, so references can be resolved ("dept" → its table and label field) on both sides. */
const registry = new Map<string, ResolvedEntity>()

/**
 * Adds definitions beyond the built-in ones (a test's own entities; in the browser, an area's as it
 * loads: entities/catalog.browser.ts); a key names one definition.
 */
export function registerEntities(...entities: ResolvedEntity[]): void {
  for (const e of entities) {
    const prior = registry.get(e.key)
    if (prior && prior !== e) throw new Error(`entity ${e.key} is defined twice`)
    registry.set(e.key, e)
  }
}

registerEntities(...BUILT_IN_ENTITIES)

/** Whether a key's definition is registered (in the browser: whether its area has loaded). */
export function hasEntity(key: string): boolean {
  return registry.has(key)
}

export function entityByKey(key: string): ResolvedEntity {
  const e = registry.get(key)
  if (!e) throw new Error(`no entity ${key}`)
  return e
}

/** Every registered definition (in the browser, those of the areas loaded so far). */
export function allEntities(): ResolvedEntity[] {
  return [...registry.values()]
}

/** The entity whose generic page serves a menu component ('system/dict/index' → path '/system/dict'). */
export function entityForComponent(component: string): ResolvedEntity | undefined {
  const path = `/${component.replace(/^\/+/, '').replace(/\/index$/, '')}`
  return [...registry.values()].find((e) => e.path === path)
}

/**
 * The field a reference's choices are narrowed by (`within`), as the referenced entity has it:
 * checked to be a reference on both sides to the same rows, so a wrong definition fails at start.
 */
export function withinOf(owner: ResolvedEntity, f: FieldDef): { field: string; target: ResolvedEntity } | null {
  if (f.kind !== 'reference' || !f.within) return null
  const target = entityByKey(f.entity)
  const own = owner.fieldMap.get(f.within)
  const theirs = target.fieldMap.get(f.within)
  if (own?.kind !== 'reference' || theirs?.kind !== 'reference' || own.entity !== theirs.entity) {
    throw new Error(`${owner.key}: ${f.name} is within ${f.within}, which ${owner.key} and ${target.key} must both have as a reference to the same entity`)
  }
  return { field: f.within, target }
}
