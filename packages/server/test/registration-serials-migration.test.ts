import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { emptyDatabase, migrateProduct, migrationDialects } from './migration-helpers'

// Announced serials (issue 39, Device identity): the models there before the rule keep letting every
// SN of their prefix register itself, written out where staff narrow it; a model made later announces
// none. On SQLite, and on PostgreSQL with TEST_DATABASE_URL.

const MIGRATION = '2026-11-30T05-iot-registration-serials'
describe.each(migrationDialects)('the registration-serials migration on %s', (dialect) => {
  it('announces the whole prefix of each model already there, and none of a model added after', async () => {
    const db = await emptyDatabase(dialect)
    await migrateProduct(db, dialect, MIGRATION)
    const raw = dynamicDb(db.withoutPlugins())
    const now = new Date().toISOString()
    const model = (id: number, prefix: string) =>
      sql`insert into iot_model (model_id, product_id, name, product_code, sn_prefix, registration_key, create_time) values (${id}, ${`P${id}`}, ${`M${id}`}, 'T', ${prefix}, 'key', ${now})`.execute(raw)
    await model(1, 'VL')
    await model(2, 'QX9')

    await migrateProduct(db, dialect)
    await model(3, 'NW')
    const rows = await raw.selectFrom('iot_model').select(['model_id', 'registration_serials']).orderBy('model_id').execute()
    expect(rows.map((r) => [Number(r.model_id), r.registration_serials])).toEqual([
      [1, 'VL*'],
      [2, 'QX9*'],
      [3, ''],
    ])
  })
})
