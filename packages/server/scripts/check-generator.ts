import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { GenTableConfig, Label, Paged } from '@velo/shared'
import type { FastifyInstance } from 'fastify'
import { unzipSync } from 'fflate'
import { sql } from 'kysely'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import { productTables } from '../src/db/tables'

// npm run check:generator -w packages/server   (CI: .ci/run)
// Tool system › Code generation end to end: a module generated from a table of a running app,
// dropped into a temporary copy of this checkout, records its snapshot, type-checks, and gives a
// working page both on a new database and on the database the table came from. Each step prints;
// the first failure exits 1 with its reason. The temporary directory is removed (KEEP_GEN_CHECK=1
// keeps it). `--files <dir>` takes the module's files from a directory laid out as the checkout
// instead of the generator's download (to try a hand-written module); `--no-typecheck` skips the
// slowest step while working on the later ones.

const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD ?? 'admin123!'
const TABLE = 'crm_warranty_claim'
const ENTITY_KEY = 'warrantyClaim'
const AREA = 'service'

/** Labels the generator must write as text, never as code: each would break out of a comment or a string. */
const HOSTILE = {
  entity: { en_US: 'Warranty claims */ process.exit() /*', zh_CN: "保修申请 ' \" ` ${x}" },
  columns: {
    title: { en_US: 'Title "quoted" \'single\' `tick`', zh_CN: '标题 \\ \\n \\u0041 ${process.exit()}' },
    description: { en_US: '*/ process.exit() /* </script>', zh_CN: '// process.exit()\u2028说明' },
    amount: { en_US: "Amount'); process.exit(); ('", zh_CN: '金额 */' },
  } as Record<string, Label>,
}

class CheckFailed extends Error {}
const fail = (reason: string): never => {
  throw new CheckFailed(reason)
}

let stepNo = 0
async function step<T>(title: string, run: () => Promise<T> | T): Promise<T> {
  stepNo++
  const started = Date.now()
  process.stdout.write(`[${stepNo}] ${title} …\n`)
  const out = await run()
  process.stdout.write(`[${stepNo}] ok (${((Date.now() - started) / 1000).toFixed(1)} s)\n`)
  return out
}

/** Runs a command; its output is shown only when it fails. */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new CheckFailed(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}:\n${output.trim()}`))))
  })
}

function appConfig(databaseFile: string, dir: string) {
  return loadConfig({
    DATABASE_URL: `sqlite:${databaseFile}`,
    STORAGE_DIR: join(dir, 'files'),
    MAIL_DIR: join(dir, 'mail'),
    ADMIN_PASSWORD,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    RESPONSE_CHECK: 'true',
    MQTT_PORT: '0',
  })
}

/**
 * Closes an app outside a test runner: some of its shutdown waits on unref'd timers, so with nothing
 * else holding the process it would exit in the middle with the promise unsettled.
 */
async function closeApp(app: { close: () => PromiseLike<unknown> }) {
  const holdOpen = setInterval(() => {}, 1000)
  try {
    await app.close()
  } finally {
    clearInterval(holdOpen)
  }
}

/** An answer: the envelope's fields, its bytes and content type; `T` is what the caller reads of the data. */
interface Answer<T = unknown> {
  status: number
  code: number
  msg: string
  data: T
  raw: Buffer
  type: string
}

interface Client {
  call: <T = unknown>(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => Promise<Answer<T>>
}

async function signedIn(app: FastifyInstance): Promise<Client> {
  let token = ''
  const call: Client['call'] = async <T>(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
    const res = await app.inject({ method, url: `/api${url}`, headers: token ? { authorization: token } : {}, ...(body !== undefined ? { payload: body as object } : {}) })
    const type = String(res.headers['content-type'] ?? '')
    const parsed = type.includes('json') ? (res.json() as { code?: number; msg?: string; data?: unknown }) : {}
    return { status: res.statusCode, code: parsed.code ?? res.statusCode, msg: parsed.msg ?? '', data: parsed.data as T, raw: res.rawPayload, type }
  }
  const login = await call<{ token: string }>('POST', '/login', { username: 'admin', password: ADMIN_PASSWORD })
  if (login.code !== 200) fail(`sign-in as admin failed: ${login.status} ${login.msg}`)
  token = login.data.token
  return { call }
}

const expectOk = <T>(what: string, res: Answer<T>) => {
  if (res.status !== 200 || res.code !== 200) fail(`${what}: HTTP ${res.status}, code ${res.code}: ${res.msg || res.raw.toString('utf8').slice(0, 500)}`)
  return res
}

/**
 * The table a module is generated from, made by SQL as someone would add it to the database: most
 * kinds of column, nullable ones, a tree parent and the five audit columns; with one row.
 */
async function createTestTable(app: FastifyInstance) {
  const db = app.services.db.withoutPlugins()
  await sql`create table ${sql.table(TABLE)} (
    claim_id integer primary key autoincrement,
    parent_id integer not null default 0,
    claim_no varchar(32),
    title varchar(100) not null,
    description text,
    quantity integer not null,
    amount decimal(12, 2),
    approved boolean,
    purchase_date date,
    resolved_at timestamp,
    create_by varchar(64) not null default '',
    create_time text not null,
    update_by varchar(64) not null default '',
    update_time text,
    remark varchar(500) not null default ''
  )`.execute(db)
  await sql`insert into ${sql.table(TABLE)} (claim_no, title, quantity, amount, approved, purchase_date, create_time)
    values ('WC-1', 'Existing claim', 2, 10.5, 1, '2026-11-01', ${new Date().toISOString()})`.execute(db)
}

/** The module's files from the generator: imported, edited, downloaded. */
async function generate(client: Client): Promise<{ files: Record<string, Uint8Array>; labels: { entity: Label; fields: Record<string, Label> } }> {
  await step('GET /tool/gen/tables offers the test table and no table of the product', async () => {
    const res = expectOk('GET /tool/gen/tables', await client.call('GET', '/tool/gen/tables'))
    const names = (res.data as { tableName: string }[]).map((t) => t.tableName)
    if (!names.includes(TABLE)) fail(`${TABLE} is not offered: ${names.join(', ') || '(none)'}`)
    const product = names.filter((n) => productTables().has(n))
    if (product.length) fail(`product tables are offered for import: ${product.join(', ')}`)
  })
  const tableId = await step('POST /tool/gen/import', async () => {
    const res = expectOk('POST /tool/gen/import', await client.call<{ imported: number } | null>('POST', '/tool/gen/import', { tables: [TABLE] }))
    if (res.data?.imported !== 1) fail(`imported ${JSON.stringify(res.data)}, expected {imported: 1}`)
    const list = expectOk('POST /tool/gen/list', await client.call<Paged<{ tableId: number; tableName: string }>>('POST', '/tool/gen/list', { tableName: TABLE }))
    const row = list.data.rows.find((r) => r.tableName === TABLE)
    if (!row) fail(`${TABLE} is not in the imported list`)
    return row!.tableId
  })
  const labels = await step('GET and PUT the config, with hostile labels', async () => {
    const got = expectOk('GET config', await client.call<{ config: GenTableConfig }>('GET', `/tool/gen/${tableId}/config`))
    const config = got.data.config
    const edited: GenTableConfig = {
      ...config,
      entityKey: ENTITY_KEY,
      area: AREA,
      path: `/${AREA}/${ENTITY_KEY}`,
      permission: `${AREA}:${ENTITY_KEY}`,
      label: HOSTILE.entity,
      columns: config.columns.map((c) => (HOSTILE.columns[c.column] ? { ...c, label: HOSTILE.columns[c.column]! } : c)),
    }
    for (const column of Object.keys(HOSTILE.columns)) if (!config.columns.some((c) => c.column === column)) fail(`the config has no column ${column}`)
    expectOk('PUT config', await client.call('PUT', `/tool/gen/${tableId}/config`, edited))
    const saved = expectOk('GET config again', await client.call<{ config: GenTableConfig }>('GET', `/tool/gen/${tableId}/config`)).data.config
    if (JSON.stringify(saved.label) !== JSON.stringify(HOSTILE.entity)) fail(`the saved label is ${JSON.stringify(saved.label)}`)
    const fields: Record<string, Label> = {}
    for (const c of saved.columns) if (HOSTILE.columns[c.column]) fields[c.name] = HOSTILE.columns[c.column]!
    return { entity: HOSTILE.entity, fields }
  })
  const files = await step('GET /tool/gen/{id}/download: a zip', async () => {
    const res = await client.call('GET', `/tool/gen/${tableId}/download`)
    if (res.status !== 200 || !res.type.includes('zip')) fail(`download: HTTP ${res.status} ${res.type}: ${res.raw.toString('utf8').slice(0, 500)}`)
    return unzipSync(new Uint8Array(res.raw))
  })
  return { files, labels }
}

/** The module's files from a directory laid out as the checkout (a hand-written module). */
function filesFrom(dir: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {}
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else out[relative(dir, path).split(sep).join('/')] = readFileSync(path)
    }
  }
  walk(dir)
  return out
}

/** Where the module's files may go, and only there: a generator writing elsewhere fails the check. */
const ALLOWED = [/^packages\/shared\/src\/entities\/generated\/[A-Za-z0-9-]+\.ts$/, /^packages\/server\/src\/db\/migrations\/generated\/[A-Za-z0-9-]+\.ts$/, /^GENERATED-[A-Za-z0-9]+\.md$/]

/** A copy of the checkout (tracked and new files, as they are now) sharing its installed packages. */
function copyCheckout(to: string) {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 })
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
  let copied = 0
  for (const file of new Set(listed)) {
    const from = join(REPO, file)
    // Deleted in the working tree but still in the index; or a symlink (none expected) copied as one.
    if (!existsSync(from) || !lstatSync(from).isFile()) continue
    mkdirSync(dirname(join(to, file)), { recursive: true })
    copyFileSync(from, join(to, file))
    copied++
  }
  // Installed packages are shared, except the workspace links, which must point into the copy.
  mkdirSync(join(to, 'node_modules'))
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === '@velo') continue
    symlinkSync(join(REPO, 'node_modules', entry), join(to, 'node_modules', entry))
  }
  mkdirSync(join(to, 'node_modules', '@velo'))
  for (const pkg of readdirSync(join(REPO, 'node_modules', '@velo'))) symlinkSync(join('..', '..', 'packages', pkg), join(to, 'node_modules', '@velo', pkg))
  for (const pkg of readdirSync(join(REPO, 'packages'))) {
    const modules = join(REPO, 'packages', pkg, 'node_modules')
    if (existsSync(modules) && existsSync(join(to, 'packages', pkg))) symlinkSync(modules, join(to, 'packages', pkg, 'node_modules'))
  }
  return copied
}

/** What the probe checks in the copy, against one database. */
interface ProbeInput {
  databaseFile: string
  dir: string
  entityKey: string
  area: string
  table: string
  /** Rows the table holds before the probe adds one. */
  rowsBefore: number
  /** Labels as they were entered (absent for a hand-written module). */
  labels?: { entity: Label; fields: Record<string, Label> }
}

const PROBE_PASSED = 'generated module probe: passed'

/**
 * Runs inside the copy (packages/server/scripts/), where the generated module is part of the
 * product: written there before the type-check, so the type-check covers it too.
 */
const PROBE = `import { join } from 'node:path'
import { entityByKey, type Label } from '@velo/shared'
import { sql } from 'kysely'
import { buildApp } from '../src/app'
import { loadConfig } from '../src/config'
import { checkAgreement } from '../src/db/schema-gen/agreement'
import { snakeCase, snapshotOf } from '../src/db/schema-gen/shape'
import { generatedMigrations } from '../src/db/migrations/generated'

// Written by scripts/check-generator.ts into a temporary copy of the checkout; never part of it.

interface ProbeInput {
  databaseFile: string
  dir: string
  entityKey: string
  area: string
  table: string
  rowsBefore: number
  labels?: { entity: Label; fields: Record<string, Label> }
}

const input = JSON.parse(process.env.GEN_CHECK_INPUT ?? '{}') as ProbeInput
const problems: string[] = []
const expect = (ok: boolean, problem: string) => {
  if (!ok) problems.push(problem)
}

const entity = entityByKey(input.entityKey)
const table = snakeCase(entity.table)
expect(table === input.table, \`the entity's table is \${table}, expected \${input.table}\`)
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
if (input.labels) {
  expect(same(entity.label, input.labels.entity), \`the entity's label is \${JSON.stringify(entity.label)}, entered \${JSON.stringify(input.labels.entity)}\`)
  for (const [name, label] of Object.entries(input.labels.fields)) {
    const field = entity.fieldMap.get(name)
    expect(!!field && same(field.label, label), \`field \${name}'s label is \${JSON.stringify(field?.label)}, entered \${JSON.stringify(label)}\`)
  }
}

const adminPassword = process.env.ADMIN_PASSWORD ?? 'admin123!'
const app = await buildApp(
  loadConfig({
    DATABASE_URL: \`sqlite:\${input.databaseFile}\`,
    STORAGE_DIR: join(input.dir, 'files'),
    MAIL_DIR: join(input.dir, 'mail'),
    ADMIN_PASSWORD: adminPassword,
    CAPTCHA_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    RESPONSE_CHECK: 'true',
    MQTT_PORT: '0',
  }),
  { logger: false },
)
try {
  await app.ready()
  const db = app.services.db
  const bare = db.withoutPlugins()

  const generated = Object.keys(generatedMigrations('sqlite'))
  expect(generated.length > 0, 'generatedMigrations lists no migration')
  const ran = new Set((await sql<{ name: string }>\`select name from kysely_migration_generated\`.execute(bare)).rows.map((r) => r.name))
  for (const name of generated) expect(ran.has(name), \`migration \${name} did not run\`)

  const shape = snapshotOf([entity]).tables[table]
  if (!shape) throw new Error(\`no table shape for \${table}\`)
  for (const p of await checkAgreement(db, 'sqlite', { [table]: shape })) problems.push(\`schema agreement: \${p.message}\`)

  const component = \`\${input.area}/\${input.entityKey}/index\`
  const areaRow = await db.selectFrom('sysMenu').select('menuId').where('menuName', '=', \`menu.\${input.area}\`).where('parentId', '=', 0).where('menuType', '=', 'M').executeTakeFirst()
  expect(!!areaRow, \`no menu directory menu.\${input.area}\`)
  const pages = await db.selectFrom('sysMenu').selectAll().where('component', '=', component).execute()
  expect(pages.length === 1, \`\${pages.length} menu pages have component \${component}, expected 1\`)
  const page = pages[0]
  if (page) {
    expect(page.parentId === areaRow?.menuId, \`the page is under menu \${page.parentId}, not the area's \${areaRow?.menuId}\`)
    expect(page.menuType === 'C' && page.menuName === \`menu.\${input.area}.\${input.entityKey}\` && page.perms === \`\${entity.permission}:list\`, \`the page row is \${JSON.stringify(page)}\`)
    const buttons = new Set((await db.selectFrom('sysMenu').select('perms').where('parentId', '=', page.menuId).where('menuType', '=', 'F').execute()).map((b) => b.perms))
    for (const action of ['list', 'query', 'add', 'edit', 'remove', 'export']) expect(buttons.has(\`\${entity.permission}:\${action}\`), \`the page has no button \${entity.permission}:\${action}\`)
  }

  const call = async (method: 'GET' | 'POST', url: string, token: string, body?: object) => {
    const res = await app.inject({ method, url: \`/api\${url}\`, headers: token ? { authorization: token } : {}, ...(body ? { payload: body } : {}) })
    const parsed = res.json() as { code: number; msg: string; data: any }
    return { status: res.statusCode, ...parsed }
  }
  const login = await call('POST', '/login', '', { username: 'admin', password: adminPassword })
  if (login.code !== 200) throw new Error(\`sign-in failed: \${login.msg}\`)
  const token = login.data.token as string

  const routers = await call('GET', '/getRouters', token)
  expect(JSON.stringify(routers.data).includes(JSON.stringify(component)), \`GET /getRouters does not offer \${component}\`)

  const list = async () => {
    const res = await call('POST', \`\${entity.path}/list\`, token, {})
    expect(res.status === 200 && res.code === 200, \`POST \${entity.path}/list answered \${res.status} \${res.code} \${res.msg}\`)
    return res.data as { total: number; rows: Record<string, unknown>[] }
  }
  const before = await list()
  expect(before?.total === input.rowsBefore, \`the list shows \${before?.total} rows, the table holds \${input.rowsBefore}\`)

  // A value of each kind for every field a client writes (the required ones must be given).
  const sample = (f: (typeof entity.writable)[number]): unknown => {
    switch (f.kind) {
      case 'number': return 3
      case 'money': return 12.5
      case 'boolean': return true
      case 'date': return '2026-11-25'
      case 'datetime': return '2026-11-25T10:00:00.000Z'
      case 'treeParent': return 0
      case 'email': return 'claim@example.com'
      case 'phone': return '+86 158 8888 8888'
      case 'image': return null
      case 'dict': return '0'
      default: return ('max' in f && f.max ? 'Probe row'.slice(0, f.max) : 'Probe row')
    }
  }
  const body = Object.fromEntries(entity.writable.map((f) => [f.name, sample(f)]).filter(([, v]) => v !== null))
  const added = await call('POST', entity.path, token, body)
  expect(added.status === 200 && added.code === 200, \`POST \${entity.path} \${JSON.stringify(body)} answered \${added.status} \${added.code} \${added.msg}\`)
  const after = await list()
  expect(after?.total === input.rowsBefore + 1, \`after an add the list shows \${after?.total} rows, expected \${input.rowsBefore + 1}\`)
  expect(!!after?.rows.some((r) => Object.entries(body).every(([k, v]) => typeof v !== 'string' || r[k] === v)), 'the added row is not in the list')
} finally {
  // Some of the app's shutdown waits on unref'd timers: hold the process open until it is done.
  const holdOpen = setInterval(() => {}, 1000)
  await app.close()
  clearInterval(holdOpen)
}

if (problems.length) {
  console.error(problems.map((p) => \`  - \${p}\`).join('\\n'))
  process.exit(1)
}
console.log(\`  \${input.entityKey}: table, migration, menu page and buttons, list, add and schema agreement are right\`)
console.log('${PROBE_PASSED}')
`

async function main() {
  const args = process.argv.slice(2)
  const filesDir = args.includes('--files') ? args[args.indexOf('--files') + 1] : undefined
  if (args.includes('--files') && !filesDir) fail('--files needs a directory')
  const temp = mkdtempSync(join(tmpdir(), 'velo-gen-check-'))
  const keep = !!process.env.KEEP_GEN_CHECK
  try {
    const originalDir = join(temp, 'original')
    mkdirSync(originalDir)
    const originalDb = join(originalDir, 'velo.db')
    let files: Record<string, Uint8Array>
    let labels: ProbeInput['labels']
    const app = await step('build the app on a new SQLite database (migrate, seed) and sign in as admin', async () => {
      const built = await buildApp(appConfig(originalDb, originalDir), { logger: false })
      await built.ready()
      return built
    })
    try {
      const client = await signedIn(app)
      await step(`create the test table ${TABLE} by SQL, with one row`, () => createTestTable(app))
      if (filesDir) {
        files = filesFrom(filesDir)
      } else {
        ;({ files, labels } = await generate(client))
      }
    } finally {
      await closeApp(app)
    }

    const copy = join(temp, 'checkout')
    await step('copy the checkout (git ls-files) and add the module’s files', () => {
      const copied = copyCheckout(copy)
      const names = Object.keys(files)
      if (!names.length) fail('the zip holds no files')
      for (const name of names) {
        const safe = normalize(name).split(sep).join('/')
        if (isAbsolute(name) || safe !== name || name.includes('..') || !ALLOWED.some((re) => re.test(name))) fail(`the zip holds a file where a module's files do not go: ${JSON.stringify(name)}`)
        writeFileSync(join(copy, name), files[name]!)
      }
      for (const must of [`packages/shared/src/entities/generated/${ENTITY_KEY}.ts`, 'packages/shared/src/entities/generated/index.ts', 'packages/server/src/db/migrations/generated/index.ts', `GENERATED-${ENTITY_KEY}.md`]) {
        if (!files[must]) fail(`the zip lacks ${must} (it holds ${names.join(', ')})`)
      }
      if (!names.some((n) => /^packages\/server\/src\/db\/migrations\/generated\/\d{4}-\d{2}-\d{2}T\d{2}-[a-z0-9-]+\.ts$/.test(n))) fail(`the zip holds no migration (it holds ${names.join(', ')})`)
      writeFileSync(join(copy, 'packages/server/scripts/check-generated-module.ts'), PROBE)
      process.stdout.write(`    ${copied} files copied; ${names.join(', ')}\n`)
    })

    const kebab = ENTITY_KEY.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
    await step(`npm run migration:new adopt-${kebab} -- --snapshot-only`, async () => {
      const out = await run('npm', ['run', 'migration:new', `adopt-${kebab}`, '--', '--snapshot-only'], copy)
      if (!out.includes(TABLE)) fail(`migration:new did not record ${TABLE}:\n${out.trim()}`)
    })
    if (args.includes('--no-typecheck')) process.stdout.write('type-check skipped (--no-typecheck)\n')
    else await step('type-check shared, server and web (tsc --noEmit)', async () => {
      // Two at a time: the server's and the web's checks take most of the time.
      await run('npx', ['tsc', '--noEmit', '-p', 'packages/shared'], copy)
      await Promise.all([run('npx', ['tsc', '--noEmit', '-p', 'packages/server'], copy), run('npx', ['tsc', '--noEmit', '-p', 'packages/web'], copy)])
    })

    await step("lint the module's files (npx eslint), as the project's own code", async () => {
      await run('npx', ['eslint', ...Object.keys(files).filter((name) => /\.tsx?$/.test(name))], copy)
    })

    const probe = async (input: ProbeInput) => {
      const out = await run('npx', ['tsx', 'scripts/check-generated-module.ts'], join(copy, 'packages/server'), { GEN_CHECK_INPUT: JSON.stringify(input), ADMIN_PASSWORD })
      // A module that ended the process early (an escaped process.exit()) exits 0 without its last line.
      if (!out.includes(PROBE_PASSED)) fail(`the probe stopped before its end:\n${out.trim()}`)
      return out
    }
    await step('the page works on a new database: migration, menus, list, add, schema agreement', async () => {
      const dir = join(temp, 'fresh')
      mkdirSync(dir)
      process.stdout.write(await probe({ databaseFile: join(dir, 'velo.db'), dir, entityKey: ENTITY_KEY, area: AREA, table: TABLE, rowsBefore: 0, labels }))
    })
    await step('the page works on the database the table came from: table kept, menu rows added', async () => {
      process.stdout.write(await probe({ databaseFile: originalDb, dir: originalDir, entityKey: ENTITY_KEY, area: AREA, table: TABLE, rowsBefore: 1, labels }))
    })
    process.stdout.write('check:generator passed\n')
  } finally {
    if (keep) process.stdout.write(`kept ${temp}\n`)
    else rmSync(temp, { recursive: true, force: true })
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`check:generator FAILED at step ${stepNo}: ${err instanceof CheckFailed ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exit(1)
  },
)
