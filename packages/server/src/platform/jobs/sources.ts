import { entityByKey, type Language, type ResolvedEntity } from '@velo/shared'
import type { EntityRepository } from '../crud/repository'
import type { Services } from '../services'

/** An entity a job kind works on, with the repository its routes use (and so its hooks). */
export interface EntitySource {
  entity: ResolvedEntity
  repo: EntityRepository
  /** The route's permission, checked again when the job runs: the starter may have lost it meanwhile. */
  permission: string
}

/**
 * The entities of each app a job kind may run for (exports, imports), registered where their
 * routes are: a job names the entity by key, and finds the same repository the routes use.
 */
export function entitySources() {
  const sources = new WeakMap<Services, Map<string, EntitySource>>()
  return {
    register(services: Services, source: EntitySource) {
      const map = sources.get(services) ?? new Map<string, EntitySource>()
      sources.set(services, map)
      map.set(source.entity.key, source)
    },
    get: (services: Services, key: string): EntitySource | undefined => sources.get(services)?.get(key),
  }
}

/** An entity's name in the language, for a job's title; an entity since removed keeps its key. */
export function entityName(key: string, lang: Language): string {
  try {
    return entityByKey(key).label[lang]
  } catch {
    return key
  }
}
