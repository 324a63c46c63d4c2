import * as bikeEntities from '../entities/bike'
import * as contentEntities from '../entities/content'
import * as dashboardEntities from '../entities/dashboard'
import { GENERATED_MODULES } from '../entities/generated'
import * as iotEntities from '../entities/iot'
import * as iotConfigEntities from '../entities/iot-config'
import * as iotSimEntities from '../entities/iot-sim'
import * as iotTelemetryEntities from '../entities/iot-telemetry'
import * as iotWarningEntities from '../entities/iot-warnings'
import * as memberEntities from '../entities/member'
import * as orderEntities from '../entities/order'
import * as otaEntities from '../entities/ota'
import * as serviceEntities from '../entities/service'
import * as systemEntities from '../entities/system'
import * as toolEntities from '../entities/tool'
import type { ResolvedEntity } from './define'
import type { FieldDef } from './types'

/**
 * Every built-in definition, named module by module. Definitions used to register themselves when
 * their module loaded; the package is side-effect free, so a bundler dropped a module nobody named
 * and its entity with it (the production server lost the FAQ). A list read by the lookups below
 * cannot be dropped without them. A new area's module of definitions is added here; generated
 * modules (Tool system › Code generation) come from their own list.
 */
const BUILT_IN_ENTITIES: readonly ResolvedEntity[] = [
  ...Object.values(systemEntities),
  ...Object.values(contentEntities),
  ...Object.values(iotEntities),
  ...Object.values(iotConfigEntities),
  ...Object.values(iotSimEntities),
  ...Object.values(iotWarningEntities),
  ...Object.values(iotTelemetryEntities),
  ...Object.values(otaEntities),
  ...Object.values(serviceEntities),
  ...Object.values(memberEntities),
  ...Object.values(bikeEntities),
  ...Object.values(orderEntities),
  ...Object.values(toolEntities),
  ...Object.values(dashboardEntities),
  ...GENERATED_MODULES.map((m) => m.entity),
]

/** Every entity by key, so references can be resolved ("dept" → its table and label field) on both sides. */
const registry = new Map<string, ResolvedEntity>()

/** Adds definitions beyond the built-in ones (a test's own entities); a key names one definition. */
export function registerEntities(...entities: ResolvedEntity[]): void {
  for (const e of entities) {
    const prior = registry.get(e.key)
    if (prior && prior !== e) throw new Error(`entity ${e.key} is defined twice`)
    registry.set(e.key, e)
  }
}

registerEntities(...BUILT_IN_ENTITIES)

export function entityByKey(key: string): ResolvedEntity {
  const e = registry.get(key)
  if (!e) throw new Error(`no entity ${key}`)
  return e
}

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
