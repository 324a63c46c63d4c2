import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../database'
import { audited, id } from './2026-11-20T00-foundation'

// Frozen in time: never edit a migration that has shipped; add a new one.
// Written by `npm run migration:new` from the entity definitions: review it before committing.

/** iot_audio, ota_campaign. */
export function approvalBinds(dialect: Dialect) {
  const datetime = dialect === 'postgres' ? 'timestamptz' : 'text'
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // iot_audio (definition iotAudio).
      if (dialect === 'sqlite') {
        // SQLite changes no column in place: the table is made anew in its new shape and its rows copied over.
        await db.schema.dropTable('iot_audio__new').ifExists().execute()
        await audited(
          id(db.schema.createTable('iot_audio__new'), dialect, 'audio_id')
            .addColumn('app_name', 'varchar(100)', (c) => c.notNull())
            .addColumn('iot_name', 'varchar(64)', (c) => c.notNull())
            .addColumn('version', 'varchar(11)', (c) => c.notNull().defaultTo('1.0.0'))
            .addColumn('file', 'varchar(255)', (c) => c.notNull())
            .addColumn('size', 'integer')
            .addColumn('built_in', 'boolean', (c) => c.notNull().defaultTo(false))
            .addColumn('deploy_status', 'varchar(11)', (c) => c.notNull().defaultTo('notDeployed'))
            .addColumn('md5', 'varchar(32)', (c) => c.notNull().defaultTo(''))
            .addColumn('sha256', 'varchar(64)', (c) => c.notNull().defaultTo(''))
            .addColumn('crc8', 'varchar(2)', (c) => c.notNull().defaultTo('')),
          dialect,
        ).execute()
        // The columns both shapes have.
        const copied = ['audio_id', 'app_name', 'iot_name', 'version', 'file', 'size', 'built_in', 'deploy_status', 'md5', 'sha256', 'crc8', 'remark', 'create_time', 'create_by', 'update_by', 'update_time']
        const values = copied.map((c) => sql.ref(c))
        await sql`insert into ${sql.table('iot_audio__new')} (${sql.join(copied.map((c) => sql.ref(c)))}) select ${sql.join(values)} from ${sql.table('iot_audio')}`.execute(db)
        await db.schema.dropTable('iot_audio').execute()
        await db.schema.alterTable('iot_audio__new').renameTo('iot_audio').execute()
        await db.schema.createIndex('iot_audio_iot_name_version').on('iot_audio').columns(['iot_name', 'version']).unique().execute()
      } else {
        await sql`alter table ${sql.table('iot_audio')} drop constraint if exists ${sql.ref('iot_audio_iot_name_key')}`.execute(db)
        await db.schema.dropIndex('iot_audio_iot_name_key').ifExists().execute()
        await db.schema.createIndex('iot_audio_iot_name_version').on('iot_audio').columns(['iot_name', 'version']).unique().execute()
      }

      // ota_campaign (definition bmsUpgrade).
      await db.schema.alterTable('ota_campaign').addColumn('approved_at', datetime).execute()
      await db.schema.alterTable('ota_campaign').addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1)).execute()
      await db.schema.alterTable('ota_campaign').addColumn('image_sha256', 'varchar(64)', (c) => c.notNull().defaultTo('')).execute()
      await db.schema.alterTable('ota_campaign').addColumn('image_size', 'integer').execute()
      // Campaigns already past draft were offered their file's digests as uploaded (sys_file): those are
      // what they approved. Written by hand: the block server serves only a campaign's approved image.
      for (const [table, key, payload] of [
        ['ota_firmware', 'firmware_id', 'firmware'],
        ['iot_audio', 'audio_id', 'audio'],
      ] as const) {
        const file = sql`select f.sha256, f.size from sys_file f join ${sql.table(table)} i on i.file = f.file_name where i.${sql.ref(key)} = ota_campaign.${sql.ref(key)}`
        await sql`update ota_campaign set image_sha256 = coalesce((select x.sha256 from (${file}) x), ''), image_size = (select x.size from (${file}) x)
          where status <> 'draft' and ${payload === 'audio' ? sql`payload = 'audio'` : sql`payload <> 'audio'`}`.execute(db)
      }
    },
  }
}
