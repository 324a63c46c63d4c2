import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions, and sys_user_sso_role by hand (a
// service table: no definition owns it).

/**
 * sys_sso_group_role: single sign-on's mappings of an identity provider's groups to roles (definition
 * ssoGroup). sys_user_sso_role: which of a user's roles a mapping gave (platform/auth/sso), so a
 * later sign-in takes back exactly those when the user's groups no longer map to them, and never a
 * role someone granted by hand.
 */
export function ssoGroupRoles(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // sys_sso_group_role: new (definition ssoGroup).
      await audited(
        id(db.schema.createTable('sys_sso_group_role'), dialect, 'mapping_id')
          .addColumn('group_name', 'varchar(128)', (c) => c.notNull())
          .addColumn('role_id', bigint, (c) => c.notNull()),
        dialect,
      ).execute()
      await db.schema.createIndex('sys_sso_group_role_group_name_role_id').on('sys_sso_group_role').columns(['group_name', 'role_id']).unique().execute()
      await db.schema
        .createTable('sys_user_sso_role')
        .addColumn('user_id', bigint, (c) => c.notNull())
        .addColumn('role_id', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('sys_user_sso_role_pk', ['user_id', 'role_id'])
        .execute()
    },
  }
}
