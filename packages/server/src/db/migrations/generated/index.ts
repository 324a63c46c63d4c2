import type { Migration } from 'kysely'
import type { Dialect } from '../../database'

// Rewritten by Tool system › Code generation: each downloaded module adds its migration beside this
// one and its entry here. migrate.ts runs them after the listed migrations.
export function generatedMigrations(_dialect: Dialect): Record<string, Migration> {
  return {}
}
