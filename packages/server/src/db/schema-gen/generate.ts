import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { EntityDef } from '@velo/shared'
import { diffSnapshots, type TableChanges } from './diff'
import { renderMigration } from './render'
import { type Snapshot, snapshotOf } from './shape'

// `npm run migration:new <name>`: compares the definitions with the last snapshot and writes a
// dated migration for the difference, registers it in migrate.ts and records the new snapshot.

export const SNAPSHOT_FILE = 'snapshot.json'

export interface GenerateOptions {
  /** Lower-case words joined by '-' ('service-orders'). */
  name: string
  entities: readonly EntityDef[]
  /** Where migrations are written and the snapshot is kept. */
  migrationsDir: string
  /** migrate.ts, to list the new migration in; absent: not listed. */
  migrateFile?: string
  now?: Date
  /** Record the definitions in the snapshot without writing a migration (a hand-written one made the change). */
  snapshotOnly?: boolean
  /** Import paths of the generated file (tests write it elsewhere). */
  foundationImport?: string
  databaseImport?: string
}

export interface GenerateResult {
  changes: TableChanges[]
  /** The migration written, if there were changes. */
  migration?: { name: string; file: string; functionName: string }
  warnings: string[]
  todos: string[]
}

const MIGRATION_FILE = /^(\d{4}-\d{2}-\d{2}T\d{2})-.+\.ts$/

export function readSnapshot(migrationsDir: string): Snapshot {
  const file = join(migrationsDir, SNAPSHOT_FILE)
  if (!existsSync(file)) return { version: 1, tables: {} }
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Snapshot
  if (parsed.version !== 1) throw new Error(`${file}: unknown snapshot version ${String(parsed.version)}`)
  return { version: 1, tables: parsed.tables }
}

/** One column or index per line: a change reads as one line in a review. */
export function formatSnapshot(snapshot: Snapshot): string {
  const line = (v: unknown) => JSON.stringify(v)
  const tables = Object.keys(snapshot.tables)
    .sort()
    .map((name) => {
      const t = snapshot.tables[name]!
      const list = (items: unknown[]) => (items.length ? `[\n${items.map((i) => `        ${line(i)}`).join(',\n')}\n      ]` : '[]')
      const key = t.primaryKey ? `,\n      "primaryKey": ${line(t.primaryKey)}` : ''
      return `    ${line(name)}: {\n      "entity": ${line(t.entity)},\n      "columns": ${list(t.columns)},\n      "indexes": ${list(t.indexes)}${key}\n    }`
    })
  return `{\n  "version": 1,\n  "tables": {\n${tables.join(',\n')}\n  }\n}\n`
}

const hourStamp = (d: Date) => d.toISOString().slice(0, 13)

/** The new migration's date and hour: now, or an hour after the latest one, so names keep their order. */
export function nextStamp(migrationsDir: string, now: Date): string {
  const stamps = readdirSync(migrationsDir)
    .map((f) => MIGRATION_FILE.exec(f)?.[1])
    .filter((s): s is string => !!s)
    .sort()
  const latest = stamps.at(-1)
  const candidate = new Date(`${hourStamp(now)}:00:00Z`)
  if (!latest) return hourStamp(candidate)
  const after = new Date(new Date(`${latest}:00:00Z`).getTime() + 3_600_000)
  return hourStamp(candidate > after ? candidate : after)
}

const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** Lists the migration in migrate.ts: its import after the last migration's, its entry after the last entry. */
export function registerMigration(migrateFile: string, name: string, functionName: string) {
  const source = readFileSync(migrateFile, 'utf8')
  const imports = [...source.matchAll(/^import \{ \w+ \} from '\.\/migrations\/[^']+'\n/gm)]
  const entries = [...source.matchAll(/^ {2}'\d{4}-\d{2}-\d{2}T\d{2}-[^']+': \w+\(dialect\),\n/gm)]
  const lastImport = imports.at(-1)
  const lastEntry = entries.at(-1)
  if (!lastImport || !lastEntry) throw new Error(`${migrateFile}: cannot find where migrations are listed; add ${name} by hand`)
  const importAt = lastImport.index + lastImport[0].length
  const entryAt = lastEntry.index + lastEntry[0].length
  const next =
    source.slice(0, importAt) +
    `import { ${functionName} } from './migrations/${name}'\n` +
    source.slice(importAt, entryAt) +
    `  '${name}': ${functionName}(dialect),\n` +
    source.slice(entryAt)
  writeFileSync(migrateFile, next)
}

/** A function name no other migration in migrate.ts exports. */
function functionNameFor(name: string, migrateFile: string | undefined): string {
  let base = camel(name)
  if (!/^[a-z]/.test(base)) base = `migration${base.charAt(0).toUpperCase()}${base.slice(1)}`
  const taken = migrateFile && existsSync(migrateFile) ? readFileSync(migrateFile, 'utf8') : ''
  const reserved = new Set(['id', 'audited', 'sql', 'dialect', 'db'])
  let fn = base
  for (let i = 2; reserved.has(fn) || new RegExp(`\\b${fn}\\b`).test(taken); i++) fn = `${base}${i}`
  return fn
}

export function generateMigration(o: GenerateOptions): GenerateResult {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(o.name)) throw new Error(`migration name ${JSON.stringify(o.name)}: use lower-case words joined by '-', e.g. service-orders`)
  const before = readSnapshot(o.migrationsDir)
  const after = snapshotOf(o.entities)
  const changes = diffSnapshots(before, after)
  if (!changes.length) return { changes, warnings: [], todos: [] }
  if (o.snapshotOnly) {
    writeFileSync(join(o.migrationsDir, SNAPSHOT_FILE), formatSnapshot(after))
    return { changes, warnings: [], todos: [] }
  }
  const name = `${nextStamp(o.migrationsDir, o.now ?? new Date())}-${o.name}`
  const functionName = functionNameFor(o.name, o.migrateFile)
  const rendered = renderMigration({ name, functionName, changes, foundationImport: o.foundationImport, databaseImport: o.databaseImport })
  const file = join(o.migrationsDir, `${name}.ts`)
  if (existsSync(file)) throw new Error(`${file} exists already`)
  writeFileSync(file, rendered.source)
  if (o.migrateFile) registerMigration(o.migrateFile, name, functionName)
  writeFileSync(join(o.migrationsDir, SNAPSHOT_FILE), formatSnapshot(after))
  return { changes, migration: { name, file, functionName }, warnings: rendered.warnings, todos: rendered.todos }
}
