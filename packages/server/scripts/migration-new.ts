import { fileURLToPath } from 'node:url'
import { relative } from 'node:path'
import { allEntities } from '@velo/shared'
import { generateMigration } from '../src/db/schema-gen/generate'

// npm run migration:new <name> [-- --snapshot-only]
// Compares the entity definitions with the last snapshot (src/db/migrations/snapshot.json) and
// writes a dated migration for the difference, lists it in src/db/migrate.ts and updates the
// snapshot. Review the migration, run the tests (schema-agreement checks the result on both
// databases), and commit the three files together. See docs/entity-engine.md › Table shape.

const args = process.argv.slice(2)
const snapshotOnly = args.includes('--snapshot-only')
const name = args.find((a) => !a.startsWith('-'))
if (!name || args.includes('--help')) {
  console.error('usage: npm run migration:new <name>            e.g. npm run migration:new service-orders')
  console.error('       npm run migration:new <name> -- --snapshot-only   record the definitions without a migration (a hand-written one made the change)')
  process.exit(name ? 0 : 1)
}

const migrationsDir = fileURLToPath(new URL('../src/db/migrations/', import.meta.url))
const migrateFile = fileURLToPath(new URL('../src/db/migrate.ts', import.meta.url))
const cwd = process.cwd()

try {
  const result = generateMigration({ name, entities: allEntities(), migrationsDir, migrateFile, snapshotOnly })
  if (!result.changes.length) {
    console.log('No changes: the definitions match the snapshot. Nothing written.')
    process.exit(0)
  }
  for (const c of result.changes) {
    const what = !c.before ? 'new table' : !c.after ? 'table dropped' : [
      c.added.length && `+${c.added.map((x) => x.name).join(', +')}`,
      c.dropped.length && `-${c.dropped.map((x) => x.name).join(', -')}`,
      c.altered.length && `~${c.altered.map((x) => x.to.name).join(', ~')}`,
      (c.createdIndexes.length || c.droppedIndexes.length) && `indexes +${c.createdIndexes.length} -${c.droppedIndexes.length}`,
    ].filter(Boolean).join(' ')
    console.log(`  ${c.table}: ${what}`)
  }
  if (snapshotOnly) {
    console.log(`Snapshot updated (no migration): ${relative(cwd, migrationsDir)}/snapshot.json`)
    process.exit(0)
  }
  console.log(`Wrote ${relative(cwd, result.migration!.file)}, listed it in ${relative(cwd, migrateFile)} and updated the snapshot.`)
  for (const w of result.warnings) console.warn(`WARNING: ${w}`)
  for (const t of result.todos) console.warn(`TODO: ${t}`)
  if (result.todos.length) console.warn('The migration throws until these TODOs are resolved by hand.')
  console.log('Review the migration, run the server tests (test/schema-agreement.test.ts on both databases), and commit it with the snapshot.')
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err))
  process.exit(1)
}
