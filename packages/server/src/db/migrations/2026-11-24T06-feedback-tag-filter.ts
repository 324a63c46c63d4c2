import type { Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** mem_feedback_tag_link. */
export function feedbackTagFilter(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // mem_feedback_tag_link (definition feedback.tagIds).
      await db.schema.createIndex('mem_feedback_tag_link_tag_id_feedback_id').on('mem_feedback_tag_link').columns(['tag_id', 'feedback_id']).execute()
    },
  }
}
