import type { CreateTableBuilder, Kysely } from 'kysely'
import type { Dialect } from '../database'

// Frozen in time: never edit a migration that has shipped; add a new one.

export type Table = CreateTableBuilder<string, never>

/** Auto-increment integer primary key that both dialects accept (later migrations use it too). */
export function id(t: Table, dialect: Dialect, name: string): Table {
  return dialect === 'postgres'
    ? t.addColumn(name, 'bigserial', (c) => c.primaryKey())
    : t.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement())
}

export function audited(t: Table, dialect: Dialect): Table {
  return t
    .addColumn('create_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('create_time', dateTime(dialect), (c) => c.notNull())
    .addColumn('update_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('update_time', dateTime(dialect))
    .addColumn('remark', 'varchar(500)', (c) => c.notNull().defaultTo(''))
}

const dateTime = (dialect: Dialect) => (dialect === 'postgres' ? 'timestamptz' : 'text')
const bigint = (dialect: Dialect) => (dialect === 'postgres' ? 'bigint' : 'integer')

export function foundation(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const ref = bigint(dialect)
      const dt = dateTime(dialect)
      await audited(
        id(db.schema.createTable('sys_dept'), dialect, 'dept_id')
          .addColumn('parent_id', ref, (c) => c.notNull().defaultTo(0))
          .addColumn('ancestors', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('dept_name', 'varchar(64)', (c) => c.notNull())
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('leader', 'varchar(64)', (c) => c.notNull().defaultTo(''))
          .addColumn('phone', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('email', 'varchar(128)', (c) => c.notNull().defaultTo(''))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('del_flag', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      await audited(
        id(db.schema.createTable('sys_user'), dialect, 'user_id')
          .addColumn('dept_id', ref)
          .addColumn('user_name', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('nick_name', 'varchar(64)', (c) => c.notNull())
          .addColumn('user_type', 'varchar(2)', (c) => c.notNull().defaultTo('00'))
          .addColumn('email', 'varchar(128)', (c) => c.notNull().defaultTo(''))
          .addColumn('phonenumber', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('sex', 'varchar(1)', (c) => c.notNull().defaultTo('2'))
          .addColumn('avatar', 'varchar(255)', (c) => c.notNull().defaultTo(''))
          .addColumn('password', 'varchar(255)', (c) => c.notNull())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('del_flag', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('login_ip', 'varchar(128)')
          .addColumn('login_date', dt)
          .addColumn('failed_logins', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('locked_until', dt),
        dialect,
      ).execute()
      await db.schema.createIndex('sys_user_email').on('sys_user').column('email').execute()

      await audited(
        id(db.schema.createTable('sys_role'), dialect, 'role_id')
          .addColumn('role_name', 'varchar(64)', (c) => c.notNull())
          .addColumn('role_key', 'varchar(100)', (c) => c.notNull().unique())
          .addColumn('role_sort', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('data_scope', 'varchar(1)', (c) => c.notNull().defaultTo('1'))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('del_flag', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      await audited(
        id(db.schema.createTable('sys_menu'), dialect, 'menu_id')
          .addColumn('menu_name', 'varchar(64)', (c) => c.notNull())
          .addColumn('parent_id', ref, (c) => c.notNull().defaultTo(0))
          .addColumn('order_num', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('path', 'varchar(200)', (c) => c.notNull().defaultTo(''))
          .addColumn('component', 'varchar(255)')
          .addColumn('query', 'varchar(255)')
          .addColumn('is_frame', 'varchar(1)', (c) => c.notNull().defaultTo('1'))
          .addColumn('is_cache', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('menu_type', 'varchar(1)', (c) => c.notNull())
          .addColumn('visible', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addColumn('perms', 'varchar(100)')
          .addColumn('icon', 'varchar(100)', (c) => c.notNull().defaultTo('#'))
          .addColumn('no_close', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      for (const [table, a, b] of [
        ['sys_user_role', 'user_id', 'role_id'],
        ['sys_role_menu', 'role_id', 'menu_id'],
        ['sys_role_dept', 'role_id', 'dept_id'],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn(a, ref, (c) => c.notNull())
          .addColumn(b, ref, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, [a, b])
          .execute()
      }

      await audited(
        id(db.schema.createTable('sys_dict_type'), dialect, 'dict_id')
          .addColumn('dict_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('dict_type', 'varchar(100)', (c) => c.notNull().unique())
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0')),
        dialect,
      ).execute()

      await audited(
        id(db.schema.createTable('sys_dict_data'), dialect, 'dict_code')
          .addColumn('dict_sort', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('dict_label', 'varchar(100)', (c) => c.notNull())
          .addColumn('dict_label_zh', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('dict_value', 'varchar(100)', (c) => c.notNull())
          .addColumn('dict_type', 'varchar(100)', (c) => c.notNull())
          .addColumn('css_class', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('list_class', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('is_default', 'varchar(1)', (c) => c.notNull().defaultTo('N'))
          .addColumn('status', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
          .addUniqueConstraint('sys_dict_data_type_value', ['dict_type', 'dict_value']),
        dialect,
      ).execute()

      await audited(
        id(db.schema.createTable('sys_config'), dialect, 'config_id')
          .addColumn('config_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('config_key', 'varchar(100)', (c) => c.notNull().unique())
          .addColumn('config_value', 'varchar(500)', (c) => c.notNull().defaultTo(''))
          .addColumn('config_type', 'varchar(1)', (c) => c.notNull().defaultTo('N')),
        dialect,
      ).execute()

      await id(db.schema.createTable('sys_login_log'), dialect, 'info_id')
        .addColumn('user_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('ipaddr', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('login_location', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('browser', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('os', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'varchar(1)', (c) => c.notNull())
        .addColumn('msg', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('login_time', dt, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('sys_login_log_time').on('sys_login_log').column('login_time').execute()

      await id(db.schema.createTable('sys_oper_log'), dialect, 'oper_id')
        .addColumn('title', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('business_type', 'varchar(16)', (c) => c.notNull().defaultTo(''))
        .addColumn('method', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .addColumn('request_method', 'varchar(10)', (c) => c.notNull().defaultTo(''))
        .addColumn('oper_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('dept_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('oper_url', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('oper_ip', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('oper_param', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('json_result', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'varchar(1)', (c) => c.notNull())
        .addColumn('error_msg', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('oper_time', dt, (c) => c.notNull())
        .addColumn('cost_time', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('request_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema.createIndex('sys_oper_log_time').on('sys_oper_log').column('oper_time').execute()

      await db.schema
        .createTable('sys_session')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', ref, (c) => c.notNull())
        .addColumn('user_name', 'varchar(64)', (c) => c.notNull())
        .addColumn('ipaddr', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('browser', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('os', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('login_time', dt, (c) => c.notNull())
        .addColumn('last_seen', dt, (c) => c.notNull())
        .addColumn('expires_at', dt, (c) => c.notNull())
        .addColumn('ended_reason', 'varchar(16)', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema.createIndex('sys_session_user').on('sys_session').column('user_id').execute()

      await db.schema
        .createTable('sys_cache')
        .addColumn('cache_key', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('cache_value', 'text', (c) => c.notNull())
        .addColumn('expires_at', dt, (c) => c.notNull())
        .execute()

      await id(db.schema.createTable('sys_mail_outbox'), dialect, 'mail_id')
        .addColumn('mail_to', 'varchar(255)', (c) => c.notNull())
        .addColumn('subject', 'varchar(255)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', dt, (c) => c.notNull())
        .execute()
    },
  }
}
