import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/**
 * mem_feedback.language: the app language the member wrote in (POST /app/v1/feedback), so staff
 * reply in it. Feedback sent before keeps '' (not known): no language is guessed for it.
 */
export function feedbackLanguage(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // mem_feedback (definition feedback).
      await db.schema.alterTable('mem_feedback').addColumn('language', 'varchar(5)', (c) => c.notNull().defaultTo('')).execute()
    },
  }
}
