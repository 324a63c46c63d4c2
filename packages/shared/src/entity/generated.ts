import type { ResolvedEntity } from './define'

/**
 * A module written by Tool system › Code generation (packages/shared/src/entities/generated/): its
 * definition, and where its page goes in the menu. The registry takes its entity as a built-in one
 * and the menu catalogue gets its page under the area, so it is served and seeded like any other.
 */
export interface GeneratedModule {
  entity: ResolvedEntity
  /** `area`: a key of MENU_CATALOGUE ('service'); `icon`: the page's menu icon. */
  menu: { area: string; icon: string }
}
