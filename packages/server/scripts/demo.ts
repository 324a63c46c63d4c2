import { createDatabase } from '../src/db/database'
import { checkDemo, DEFAULT_SEED, DemoRefused, runDemo } from '../src/demo'
import { commandConfig, commandLine, databaseWhere, fail } from './cli'

// npm run demo [-- --force] [-- --seed N] [-- --scale 0.1] [-- --end 2026-11-24]
// Fills the configured database (DATABASE_URL; the quick start's DATA_DIR/velo.db by default) with
// demo members, bikes, rides, feedback and App content. Migrates and seeds first, so an empty data folder works.
// What it replaces and what it refuses: src/demo/index.ts and the README (Demo data).

const USAGE = `usage: npm run demo [-- options]
  --seed N      the data of seed N (default ${DEFAULT_SEED}): the same seed and end give the same data
  --scale X     a share of the full size (10,000 members, 12,000 bikes, 1,000,000 rides,
                3,000 feedback): 0.1 for a quick small set (default 1)
  --end DATE    the data ends at this UTC date, YYYY-MM-DD (default today)
  --check       only check whether the database would be refused (exit code 2), changing nothing
  --force       also replace a database whose demo tables (members, bikes, bike orders, app
                content, app events, IoT devices and warnings, service orders) hold data the
                demo did not write: every row of those tables is deleted
  --help        this text
DATABASE_URL, STORAGE_DIR and ADMIN_PASSWORD are read as the server reads them.`

const args = commandLine(USAGE, {
  options: {
    seed: { type: 'string' },
    scale: { type: 'string' },
    end: { type: 'string' },
    force: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
}).values
const seed = args.seed === undefined ? DEFAULT_SEED : Number(args.seed)
if (!/^\d+$/.test(args.seed ?? '0') || !Number.isSafeInteger(seed) || seed > 0xffffffff) fail(`--seed must be a whole number from 0 to 4294967295, not ${args.seed}`)
const scale = args.scale === undefined ? 1 : Number(args.scale)
if (!(scale > 0 && scale <= 5)) fail(`--scale must be a number above 0, at most 5, not ${args.scale}`)
let end: Date | undefined
if (args.end !== undefined) {
  end = new Date(`${args.end}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(args.end) || Number.isNaN(end.getTime())) fail(`--end must be a date as YYYY-MM-DD, not ${args.end}`)
}

// Read as the server reads it; a relative path in an option is where the command was typed.
const config = commandConfig()
const where = databaseWhere(config)
console.log(args.check ? `Checking ${where}` : `Demo data into ${where}`)

const { db, dialect } = createDatabase(config.database)
try {
  if (args.check) {
    // The quick start asks this before its install and build, so a refusal costs seconds, not minutes.
    await checkDemo({ db, dialect }, { force: args.force })
    console.log('  The demo data may be filled in.')
    process.exit(0)
  }
  const result = await runDemo({ db, dialect, config }, { seed, scale, force: args.force, end, log: (line) => console.log(line) })
  if (result.replacedForeign.length) console.log(`--force: replaced ${result.replacedForeign.map((f) => `${f.rows} ${f.table}`).join(', ')} rows the demo had not written`)
  console.log('')
  const width = Math.max(...Object.keys(result.rows).map((t) => t.length))
  for (const [table, n] of Object.entries(result.rows)) console.log(`  ${table.padEnd(width)}  ${n.toLocaleString('en-US').padStart(9)}`)
  console.log(`\nDone in ${result.seconds.toFixed(1)} s (seed ${result.seed}, scale ${result.scale}, data up to ${result.end.slice(0, 10)}).`)
  if (result.seedResult.generatedAdminPassword) {
    // The server prints it at its first start; this run was the first, so it is printed here, once.
    console.log(`\n  Initial administrator: admin / ${result.seedResult.generatedAdminPassword}\n  (set ADMIN_PASSWORD before the first start to choose it)`)
  }
  if (result.seedResult.demoRegistrationKey) {
    console.log(`  Demo IoT model VELO-4G registration key: ${result.seedResult.demoRegistrationKey}\n  (simulated bikes: npm run sim -- --devices 20 --key <this key>)`)
  }
  console.log(`  App API demo rider: ${result.rider.email} / ${result.rider.password} (member ${result.rider.memberId})`)
  console.log('\nStart the server with npm start (after npm run build) and sign in.')
} catch (e) {
  if (e instanceof DemoRefused) {
    await db.destroy()
    fail(`${e.message}\nNothing was changed.`, 2)
  }
  throw e
} finally {
  await db.destroy().catch(() => {})
}
