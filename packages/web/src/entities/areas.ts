import { entityByKey, hasEntity, registerEntities, type ResolvedEntity } from '@velo/shared'
import { AREA_OF_KEY, KEY_OF_PATH, LOAD_AREA } from 'virtual:velo-entity-areas'

// The browser's registry starts empty (shared/src/entities/catalog.browser.ts): a page loads the areas
// of definitions it shows, with everything they name, before it renders. A user who opens one list
// downloads that area's definitions, not every area's. Under tests (Node) the registry holds
// every definition from the start and all of this finds them there.

const areas = new Map<string, Promise<void>>()

function loadArea(area: string): Promise<void> {
  let loading = areas.get(area)
  if (!loading) {
    const load = LOAD_AREA[area]
    if (!load) return Promise.reject(new Error(`no entity area ${area}`))
    loading = load().then((definitions) => registerEntities(...(Object.values(definitions) as ResolvedEntity[])))
    // A failed download may be tried again by the next page that needs the area.
    loading.catch(() => areas.delete(area))
    areas.set(area, loading)
  }
  return loading
}

/** The entities a definition's list, form and details resolve: those its references and related lists name. */
function named(e: ResolvedEntity): string[] {
  return [...e.fields.flatMap((f) => (f.kind === 'reference' || f.kind === 'referenceMany' ? [f.entity] : [])), ...e.related.map((r) => r.entity)]
}

/** The keys not yet registered among these and every entity they name, transitively (empty: all there). */
function missingOf(keys: Iterable<string>): string[] {
  const seen = new Set<string>()
  const missing: string[] = []
  const todo = [...keys]
  while (todo.length > 0) {
    const key = todo.pop()!
    if (seen.has(key)) continue
    seen.add(key)
    if (!hasEntity(key)) missing.push(key)
    else todo.push(...named(entityByKey(key)))
  }
  return missing
}

/** Loads the areas of these entities and of every entity they name, so entityByKey finds them all. */
export async function loadEntities(keys: Iterable<string>): Promise<void> {
  for (let missing = missingOf(keys); missing.length > 0; missing = missingOf(keys)) {
    const wanted = new Set(missing.map((key) => AREA_OF_KEY[key] ?? ''))
    if (wanted.has('')) throw new Error(`no entity ${missing.find((key) => !AREA_OF_KEY[key])}`)
    await Promise.all([...wanted].map(loadArea))
  }
}

/** Every area (the pages that list all definitions: a role's data scope, the menus' button titles). */
export function loadAllEntities(): Promise<void> {
  return Promise.all(Object.keys(LOAD_AREA).map(loadArea)).then(() => undefined)
}

const pathOf = (component: string) => `/${component.replace(/^\/+/, '').replace(/\/index$/, '')}`

/** The key of the entity at a menu component's path (its generic list page), known before its area loads. */
export const entityKeyAt = (component: string): string | undefined => KEY_OF_PATH[pathOf(component)]

/** The entity at a menu component's path if it and everything it names are registered already. */
export function loadedEntityAt(component: string): ResolvedEntity | undefined {
  const key = entityKeyAt(component)
  return key && missingOf([key]).length === 0 ? entityByKey(key) : undefined
}

/** The entity at a menu component's path, with its area (and what it names) loaded; undefined if none. */
export async function loadEntityAt(component: string): Promise<ResolvedEntity | undefined> {
  const loaded = loadedEntityAt(component)
  if (loaded) return loaded
  const key = entityKeyAt(component)
  if (!key) return undefined
  await loadEntities([key])
  return entityByKey(key)
}

/** A wait for a set of keys' areas, and how it failed if it did. */
interface Wait {
  promise: Promise<void>
  failed?: { error: unknown }
}

const waits = new Map<string, Wait>()

/**
 * Suspends the rendering component until these keys' areas are in, by throwing the wait to the nearest
 * Suspense boundary, which renders the component again from its start (as TanStack Query's suspense
 * does); one wait per set, so the components that need it share one download. A download that failed
 * is thrown as the error it was, to the page's error boundary (its Reload tries again), rather than
 * waited for anew at every render. Not React's `use`: called only while something is missing, `use`
 * would be skipped by the render React replays once the areas are in, and the hooks after it fail
 * ("update hook called on initial render"); called always, it marks every render of every list as
 * having awaited a promise.
 */
function suspendUntilLoaded(id: string, load: () => Promise<void>): never {
  const known = waits.get(id)
  if (known?.failed) {
    waits.delete(id)
    throw known.failed.error
  }
  if (known) throw known.promise
  const wait: Wait = {
    promise: load().then(
      () => void waits.delete(id),
      (error: unknown) => void (wait.failed = { error }),
    ),
  }
  waits.set(id, wait)
  throw wait.promise
}

/**
 * Suspends a component until these entities, and everything they name, are registered: for a page
 * that reaches for definitions by key (entityByKey) outside the list kit, which does this itself.
 */
export function useEntities(...keys: string[]): void {
  if (missingOf(keys).length > 0) suspendUntilLoaded(keys.join(','), () => loadEntities(keys))
}

/**
 * Suspends the list, form or details of a definition until what it names is registered. The
 * definition itself is at hand (a page may show one the registry does not hold: the online sessions).
 */
export function useEntitiesNamedBy(entity: ResolvedEntity): void {
  useEntities(...named(entity))
}

/** Suspends a component until every area is registered (it lists all definitions: allEntities). */
export function useAllEntities(): void {
  if (Object.keys(AREA_OF_KEY).some((key) => !hasEntity(key))) suspendUntilLoaded('*', loadAllEntities)
}
