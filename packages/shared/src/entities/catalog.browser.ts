import type { ResolvedEntity } from '../entity/define'

/**
 * In the browser the registry starts empty: each area's definitions load with the first page that
 * needs them (web/src/entities/areas.ts), so the console does not carry every area's definitions to
 * a user who opens one list. package.json's `imports` picks this module for the `browser` condition.
 */
export const BUILT_IN_ENTITIES: readonly ResolvedEntity[] = []
