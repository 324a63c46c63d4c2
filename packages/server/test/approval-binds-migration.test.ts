import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { emptyDatabase, migrateProduct, migrationDialects } from './migration-helpers'

// Approval binds (issue 35 §1): campaigns already past draft when the server is upgraded bind the
// digests their image was uploaded with (what their offers carried until now), so the block server,
// which serves only a campaign's approved image, goes on serving them; a draft binds nothing yet. An
// audio's next version may then share its IoT name. On SQLite, and on PostgreSQL with TEST_DATABASE_URL.

const MIGRATION = '2026-11-28T20-approval-binds'
describe.each(migrationDialects)('the approval-binds migration on %s', (dialect) => {
  it('binds the uploaded digests of the image of each campaign past draft, none of a draft', async () => {
    const db = await emptyDatabase(dialect)
    await migrateProduct(db, dialect, MIGRATION)
    const raw = dynamicDb(db.withoutPlugins())
    const now = new Date().toISOString()
    const run = (q: ReturnType<typeof sql>) => q.execute(raw)
    const file = (name: string, sha: string, size: number) =>
      run(sql`insert into sys_file (file_name, original_name, size, content_type, sha256, md5, crc8, crc8_variant, entity, field, create_time)
              values (${name}, ${name}, ${size}, 'application/octet-stream', ${sha}, ${'0'.repeat(32)}, '00', 'CRC-8/SMBUS', 'iotFirmware', 'file', ${now})`)
    await file('file/fw-a.bin', 'a'.repeat(64), 1000)
    await file('file/bell.mp3', 'b'.repeat(64), 300)
    await run(sql`insert into ota_firmware (firmware_id, name, code, supplier_id, product_id, custom_version, file, part_kind, create_time) values (1, 'EC200', 'ec200', 1, 1, '2.0.0', 'file/fw-a.bin', 'iot', ${now})`)
    await run(sql`insert into iot_audio (audio_id, app_name, iot_name, version, file, create_time) values (1, 'Bell', 'bell', '1.0.0', 'file/bell.mp3', ${now})`)
    const campaign = (id: number, status: string, payload: string, part = 'iot') =>
      run(sql`insert into ota_campaign (campaign_id, name, status, payload, firmware_id, audio_id, part_kind, create_time)
              values (${id}, ${`C${id}`}, ${status}, ${payload}, ${payload === 'audio' ? null : 1}, ${payload === 'audio' ? 1 : null}, ${part}, ${now})`)
    await campaign(1, 'running', 'firmware')
    await campaign(2, 'draft', 'firmware')
    await campaign(3, 'finished', 'audio')
    await campaign(4, 'awaitingApproval', 'firmware')

    await migrateProduct(db, dialect)
    const rows = await raw.selectFrom('ota_campaign').select(['campaign_id', 'image_sha256', 'image_size', 'revision', 'approved_at']).orderBy('campaign_id').execute()
    expect(rows.map((r) => [Number(r.campaign_id), r.image_sha256, r.image_size === null ? null : Number(r.image_size), Number(r.revision), r.approved_at])).toEqual([
      [1, 'a'.repeat(64), 1000, 1, null],
      [2, '', null, 1, null],
      [3, 'b'.repeat(64), 300, 1, null],
      [4, 'a'.repeat(64), 1000, 1, null],
    ])
    // One IoT name, each version once.
    await run(sql`insert into iot_audio (audio_id, app_name, iot_name, version, file, create_time) values (2, 'Bell', 'bell', '1.0.1', 'file/bell.mp3', ${now})`)
    await expect(run(sql`insert into iot_audio (audio_id, app_name, iot_name, version, file, create_time) values (3, 'Bell', 'bell', '1.0.1', 'file/bell.mp3', ${now})`)).rejects.toThrow(/unique|UNIQUE/)
    expect((await raw.selectFrom('iot_audio').select('app_name').where('audio_id', '=', 1).executeTakeFirstOrThrow()).app_name).toBe('Bell')
  })
})
