import type { DashboardDef, DashboardQuery, FigureData, Language } from '@velo/shared'
import type { Db, Dialect } from '../../db/database'
import type { AuthContext } from '../../platform/rbac/auth-context'
import { hasPermission } from '../../platform/rbac/auth-context'
import type { Services } from '../../platform/services'
import type { RowScope } from '../../platform/rbac/data-scope'
import type { CountryScope } from './scope'

/** What a dashboard's figures are computed from: one caller, one query. */
export interface DashboardContext {
  services: Services
  /** Untyped: the rollup tables and raw aggregates are written in SQL the types do not follow. */
  db: Db
  dialect: Dialect
  def: DashboardDef
  query: DashboardQuery
  scope: CountryScope
  /** The caller's data scope as the lists apply it: a card counts what the list it opens shows. */
  rows: RowScope
  auth: AuthContext
  /** The caller's language (currentLanguage): names the server words itself (a country, a part). */
  lang: Language
  /** The time the answer is for ("now" of "devices online now"); tests pin it. */
  now: Date
  /** Whether the caller holds a permission (a card whose right is missing is not computed). */
  may(permission: string): boolean
}

export interface ComputedDashboard {
  /** Rows per figure key; a figure the caller may not see is left out. */
  figures: FigureData[]
  /** When the rollups read were brought up to date; null when every figure was read live. */
  refreshedAt: string | null
}

export type DashboardCompute = (ctx: DashboardContext) => Promise<ComputedDashboard>

export const mayOf = (auth: AuthContext) => (permission: string) => hasPermission(auth, permission)
