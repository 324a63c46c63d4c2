import type { ResolvedEntity } from '../entity/define'
import * as bike from './bike'
import * as content from './content'
import * as dashboard from './dashboard'
import { GENERATED_MODULES } from './generated'
import * as iot from './iot'
import * as iotConfig from './iot-config'
import * as iotGeofence from './iot-geofence'
import * as iotSim from './iot-sim'
import * as iotTelemetry from './iot-telemetry'
import * as iotWarnings from './iot-warnings'
import * as member from './member'
import * as order from './order'
import * as ota from './ota'
import * as service from './service'
import * as sso from './sso'
import * as system from './system'
import * as tool from './tool'

/**
 * The modules of definitions by area, named as their files are (the web app loads an area's file when
 * a page needs it: web/build/entityAreas.ts). A new area's module is added here.
 */
export const ENTITY_AREAS = {
  system,
  sso,
  content,
  iot,
  'iot-config': iotConfig,
  'iot-sim': iotSim,
  'iot-warnings': iotWarnings,
  'iot-telemetry': iotTelemetry,
  'iot-geofence': iotGeofence,
  ota,
  service,
  member,
  bike,
  order,
  tool,
  dashboard,
} as const satisfies Record<string, Record<string, ResolvedEntity>>

/**
 * Every built-in definition, named module by module. Definitions used to register themselves when
 * their module loaded; the package is side-effect free, so a bundler dropped a module nobody named
 * and its entity with it (the production server lost the FAQ). A list read by the registry cannot be
 * dropped without it. Generated modules (Tool system › Code generation) come from their own list.
 */
export const BUILT_IN_ENTITIES: readonly ResolvedEntity[] = [
  ...Object.values(ENTITY_AREAS).flatMap((area) => Object.values(area) as ResolvedEntity[]),
  ...GENERATED_MODULES.map((m) => m.entity),
]
