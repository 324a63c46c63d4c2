import type { Kysely } from 'kysely'
import type { Dialect } from '../database'
import { id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Hand-written for the service tables (no entity definition owns them): staff's second factors
// (platform/auth/factors). The role's second_factor column belongs to the role definition.

/**
 * sys_user_factor: a staff user's second factors, an authenticator app (TOTP: its seed sealed with
 * the identity key, and the last time step it signed in with) or a passkey (its credential). Secret
 * tables: never readable through SQL execution, never listed.
 * sys_user_recovery_code: the user's one-time recovery codes, each kept as a hash only.
 * sys_role.second_factor: whether the role's users must hold a second factor (auto: when the role
 * holds a right that asks for a second proof). sys_user.second_factor_due: when that becomes a must
 * for the user (the grace period, from the first sign-in that needed it).
 */
export function secondFactors(dialect: Dialect) {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer'
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await id(db.schema.createTable('sys_user_factor'), dialect, 'factor_id')
        .addColumn('user_id', bigint, (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('last_step', bigint)
        .addColumn('credential_id', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .addColumn('public_key', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('sign_count', bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('transports', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', datetime, (c) => c.notNull())
        .addColumn('last_used_time', datetime)
        .execute()
      await db.schema.createIndex('sys_user_factor_user_id').on('sys_user_factor').column('user_id').execute()
      await db.schema
        .createTable('sys_user_recovery_code')
        .addColumn('user_id', bigint, (c) => c.notNull())
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('used_time', datetime)
        .addPrimaryKeyConstraint('sys_user_recovery_code_pk', ['user_id', 'code_hash'])
        .execute()
      await db.schema.alterTable('sys_role').addColumn('second_factor', 'varchar(8)', (c) => c.notNull().defaultTo('auto')).execute()
      await db.schema.alterTable('sys_user').addColumn('second_factor_due', datetime).execute()
    },
  }
}
