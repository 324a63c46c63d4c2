import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { dynamicDb } from '../src/db/database'
import { emptyDatabase, migrateProduct, migrationDialects } from './migration-helpers'

// A service order's bike became a reference to a registered bike (issue 34): the orders stored
// before, with a typed frame number, keep their bike when one is registered with that number (or had
// it before its frame was replaced), and have none otherwise. On SQLite, and on PostgreSQL with
// TEST_DATABASE_URL.

const MIGRATION = '2026-11-28T19-service-order-bike'
describe.each(migrationDialects)('the service order bike migration on %s', (dialect) => {
  it('maps a typed frame number to the bike with it (or had it before a replacement), else to none', async () => {
    const db = await emptyDatabase(dialect)
    await migrateProduct(db, dialect, MIGRATION)
    const raw = dynamicDb(db.withoutPlugins())
    const now = new Date().toISOString()
    const run = (q: ReturnType<typeof sql>) => q.execute(raw)
    await run(sql`insert into bike_model (model_id, category, name, code, create_time) values (1, 'city', 'Metro', 'MET', ${now})`)
    await run(sql`insert into bike_model_colour (colour_id, model_id, name, code, create_time) values (1, 1, 'Black', 'BK', ${now})`)
    await run(sql`insert into bike_model_size (size_id, model_id, name, code, create_time) values (1, 1, 'M', 'M', ${now})`)
    await run(sql`insert into bike_bike (bike_id, frame_number, category, model_id, colour_id, size_id, create_time) values (7, 'VL24A000123', 'city', 1, 1, 1, ${now}), (8, 'VL24A000999', 'city', 1, 1, 1, ${now})`)
    // Bike 8 carried VL24A000500 until its frame was replaced: the old number stays bound to it, voided.
    await run(sql`insert into ord_frame_number (number_id, order_id, frame_number, serial, status, bike_id, create_time) values (1, 1, 'VL24A000500', 500, 'voided', 8, ${now})`)
    const order = (id: number, bike: string) =>
      sql`insert into service_repair_order (repair_order_id, order_no, status, service_type, contact_email, bike_id, first_name, last_name, issue_description, create_time)
          values (${id}, ${`RS-${id}`}, 'finished', 'repair', 'rider@example.com', ${bike}, 'Ada', 'Rider', 'Noise', ${now})`
    await run(order(1, 'VL24A000123'))
    await run(order(2, ' vl24a000123 '))
    await run(order(3, 'VL24A000500'))
    await run(order(4, 'NOTAREALBIKE1'))

    await migrateProduct(db, dialect)
    const rows = await raw.selectFrom('service_repair_order').select(['repair_order_id', 'bike_id', 'order_no', 'status']).orderBy('repair_order_id').execute()
    expect(rows.map((r) => [Number(r.repair_order_id), r.bike_id === null ? null : Number(r.bike_id)])).toEqual([
      [1, 7],
      [2, 7],
      [3, 8],
      [4, null],
    ])
    // The rest of the row is as it was.
    expect(rows.map((r) => [r.order_no, r.status])).toEqual([1, 2, 3, 4].map((id) => [`RS-${id}`, 'finished']))
  })
})
