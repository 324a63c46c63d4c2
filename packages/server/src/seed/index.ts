import { allEntities, definedButtons, definedPageButtons, entityForComponent, MENU_CATALOGUE, type MenuSeed, STANDARD_ACTIONS } from '@velo/shared'
import type { Transaction } from 'kysely'
import { newRegistrationKey } from '../gateway/device-auth'
import { seedMessageConfigs } from '../modules/iot/warnings/defaults'
import { newUserRow } from '../platform/auth/new-user'
import { generatePassword, hashPassword } from '../platform/auth/passwords'
import type { Services } from '../platform/services'
import type { Database } from '../db/schema'
import { SEED_CONFIGS, SEED_DICTIONARIES } from './dictionaries'
import { SEED_COUNTRIES, SEED_I18N } from './system-data'

const SEED_MARKER = 'sys.seed.version'
/** The built-in administrator's phone until they enter their own (a placeholder, valid by PHONE_PATTERN). */
export const ADMIN_PHONE = '+86 158 8888 8888'

export interface SeedResult {
  seeded: boolean
  /** Set only when the admin password was generated (no ADMIN_PASSWORD): print it once. */
  generatedAdminPassword?: string
  /** Set when the demo IoT model was created: the key the device simulator registers with (README). */
  demoRegistrationKey?: string
}

type Tx = Transaction<Database>

const audit = () => ({ createBy: 'system', createTime: new Date().toISOString(), updateBy: '', updateTime: null, remark: '' })

async function seedDepartments(tx: Tx) {
  const add = async (parentId: number, ancestors: string, deptName: string, orderNum: number) =>
    (
      await tx
        .insertInto('sysDept')
        .values({ ...audit(), parentId, ancestors, deptName, orderNum, leader: '', phone: '', email: '', status: '0', delFlag: '0' })
        .returning('deptId')
        .executeTakeFirstOrThrow()
    ).deptId
  const hq = await add(0, '0', 'Velo HQ', 0)
  const rd = await add(hq, `0,${hq}`, 'Research & Development', 1)
  const sales = await add(hq, `0,${hq}`, 'Sales', 2)
  await add(sales, `0,${hq},${sales}`, 'Sales Europe', 1)
  await add(sales, `0,${hq},${sales}`, 'Sales China', 2)
  await add(hq, `0,${hq}`, 'After-sales Service', 3)
  return { hq, rd }
}

/**
 * The buttons of a catalogue page: from its definition where the page has one (its operations,
 * steps and actions: a log gets no add), else the standard set and the steps and actions of the
 * definitions that share its permission (an OTA part's page, whose tabs are its suppliers, products,
 * firmware and upgrades); with the catalogue's extras.
 */
function pageButtons(seed: MenuSeed): [perms: string, name: string][] {
  const entity = seed.component ? entityForComponent(seed.component) : undefined
  const standard = [...STANDARD_ACTIONS, ...(seed.imports ? ['import'] : [])].map((a): [string, string] => [`${seed.permission}:${a}`, `button.${a}`])
  const own = seed.buttons?.map(([perms, name]): [string, string] => [perms, name])
  const buttons = new Map(own ?? (entity ? definedPageButtons(entity) : standard))
  if (!own && !entity && seed.permission) {
    for (const e of allEntities()) if (e.permission === seed.permission) for (const [perms, name] of definedButtons(e)) if (!buttons.has(perms)) buttons.set(perms, name)
  }
  for (const extra of seed.extra ?? []) {
    const [perms, name] = typeof extra === 'string' ? [extra, `button.${extra.split(':').at(-1)}`] : extra
    if (!buttons.has(perms)) buttons.set(perms, name)
  }
  return [...buttons]
}

/** Inserts the menu tree; returns the ids of pages and buttons the common role gets. */
async function seedMenus(tx: Tx): Promise<number[]> {
  const common: number[] = []
  const insert = async (row: {
    menuName: string
    parentId: number
    orderNum: number
    path: string
    component: string | null
    menuType: 'M' | 'C' | 'F'
    perms: string | null
    icon: string
    visible?: string
    isCache?: string
    noClose?: string
  }) =>
    (
      await tx
        .insertInto('sysMenu')
        .values({ ...audit(), query: null, isFrame: '1', isCache: '0', visible: '0', status: '0', noClose: '0', ...row })
        .returning('menuId')
        .executeTakeFirstOrThrow()
    ).menuId

  const addPage = async (seed: MenuSeed, parentId: number, orderNum: number) => {
    const menuId = await insert({
      menuName: `menu.${seed.key}`,
      parentId,
      orderNum,
      path: seed.path,
      component: seed.component ?? null,
      menuType: 'C',
      perms: seed.permission ? `${seed.permission}:list` : null,
      icon: seed.icon,
      visible: seed.hidden ? '1' : '0',
      isCache: seed.noCache ? '1' : '0',
      noClose: seed.noClose ? '1' : '0',
    })
    // Staff with the common role see the dashboards and may read the dictionaries and configuration.
    const readable = seed.key.startsWith('dashboard.') || seed.key === 'system.dict' || seed.key === 'system.config'
    if (readable) common.push(menuId)
    if (!seed.permission) return
    for (const [i, [perms, menuName]] of pageButtons(seed).entries()) {
      const action = perms.split(':').at(-1)!
      const id = await insert({ menuName, parentId: menuId, orderNum: i + 1, path: '', component: null, menuType: 'F', perms, icon: '#' })
      if (readable && (action === 'query' || action === 'export')) common.push(id)
    }
  }

  for (const [i, area] of MENU_CATALOGUE.entries()) {
    const dirId = await insert({ menuName: `menu.${area.key}`, parentId: 0, orderNum: i + 1, path: area.path.replace(/^\//, ''), component: null, menuType: 'M', perms: null, icon: area.icon })
    if (area.key === 'dashboard' || area.key === 'system') common.push(dirId)
    for (const [j, child] of (area.children ?? []).entries()) await addPage(child, dirId, j + 1)
  }
  return common
}

/** The dictionaries of the list that the database does not have yet (by type), with their items. */
async function seedDictionaries(tx: Tx) {
  const present = new Set((await tx.selectFrom('sysDictType').select('dictType').execute()).map((r) => r.dictType))
  for (const [dictType, dictName, items] of SEED_DICTIONARIES) {
    if (present.has(dictType)) continue
    await tx.insertInto('sysDictType').values({ ...audit(), dictName, dictType, status: '0' }).execute()
    await tx
      .insertInto('sysDictData')
      .values(
        items.map(([dictValue, dictLabel, dictLabelZh, listClass], i) => ({
          ...audit(),
          dictType,
          dictValue,
          dictLabel,
          dictLabelZh,
          listClass,
          dictSort: i + 1,
          cssClass: '',
          isDefault: i === 0 ? 'Y' : 'N',
          status: '0',
        })),
      )
      .execute()
  }
}

/** Version 1: departments, menus, roles, the admin user, dictionaries and configuration. */
async function firstStart(tx: Tx, adminHash: string) {
  const { hq } = await seedDepartments(tx)
  const commonMenus = await seedMenus(tx)

  const adminRole = await tx
    .insertInto('sysRole')
    .values({ ...audit(), roleName: 'Administrator', roleKey: 'admin', roleSort: 1, dataScope: '1', status: '0', delFlag: '0', remark: 'Everything' })
    .returning('roleId')
    .executeTakeFirstOrThrow()
  const commonRole = await tx
    .insertInto('sysRole')
    .values({ ...audit(), roleName: 'Common staff', roleKey: 'common', roleSort: 2, dataScope: '4', status: '0', delFlag: '0', remark: 'Dashboards and read-only settings' })
    .returning('roleId')
    .executeTakeFirstOrThrow()
  if (commonMenus.length) await tx.insertInto('sysRoleMenu').values(commonMenus.map((menuId) => ({ roleId: commonRole.roleId, menuId }))).execute()

  const admin = await tx
    .insertInto('sysUser')
    .values(
      newUserRow({
        userName: 'admin',
        nickName: 'Administrator',
        passwordHash: adminHash,
        deptId: hq,
        email: 'admin@velo.local',
        // The user rules (SPEC §5) require a valid email and phone: the admin's profile saves as seeded.
        phonenumber: ADMIN_PHONE,
        createBy: 'system',
        remark: 'Built-in administrator',
      }),
    )
    .returning('userId')
    .executeTakeFirstOrThrow()
  await tx.insertInto('sysUserRole').values({ userId: admin.userId, roleId: adminRole.roleId }).execute()

  await seedDictionaries(tx)
  await tx
    .insertInto('sysConfig')
    .values(SEED_CONFIGS.map(([configKey, configName, configValue, remark]) => ({ ...audit(), configKey, configName, configValue, configType: 'Y', remark })))
    .execute()
}

/**
 * Version 2: the system area's dictionaries (i18n types, languages), countries and a few i18n texts.
 * Also runs on databases seeded by version 1, so it only adds what is missing.
 */
async function systemArea(tx: Tx) {
  await seedDictionaries(tx)
  const codes = new Set((await tx.selectFrom('sysCountry').select('code').execute()).map((r) => r.code))
  const countries = SEED_COUNTRIES.filter(([code]) => !codes.has(code))
  if (countries.length) {
    await tx
      .insertInto('sysCountry')
      .values(countries.map(([code, name, nameEn, timeZone]) => ({ ...audit(), code, name, nameEn, timeZone, status: '0' })))
      .execute()
  }
  const keys = new Set((await tx.selectFrom('sysI18n').select('sourceKey').execute()).map((r) => r.sourceKey))
  const texts = SEED_I18N.filter(([, sourceKey]) => !keys.has(sourceKey))
  if (texts.length) {
    await tx
      .insertInto('sysI18n')
      .values(
        texts.map(([type, sourceKey, name, valueEnUs, valueZhCn, valueDeDe, valueNlNl, valueFrFr]) => ({
          ...audit(),
          type,
          sourceKey,
          name,
          language: 'en_US',
          valueEnUs,
          valueZhCn,
          valueDeDe,
          valueNlNl,
          valueFrFr,
        })),
      )
      .execute()
  }
}

/** The demo model the simulator's bikes register as, with the functions that open its commands. */
export const DEMO_MODEL = { productId: 'VELO-4G', name: 'Velo 4G IoT module', provider: 'Velo', productCode: 'VL', snPrefix: 'VL' }
const DEMO_FUNCTIONS: [name: string, command: string, description: string][] = [
  ['Remote lock', 'lock', 'Lock the bike from the app'],
  ['Remote unlock', 'unlock', 'Unlock the bike from the app'],
  ['Find my bike', 'findBike', 'Beep and flash so the owner finds the bike'],
  ['Locate now', 'locate', 'Report the GPS position at once'],
  ['Anti-theft alarm', 'setAlarm', 'Turn the movement alarm on or off'],
  ['Transport mode', 'transportMode', 'Sleep deeply while shipped'],
]

/** Version 3: the IoT area's configuration keys and a demo model with its functions. */
/** The configuration keys of the list that the database does not have yet. */
async function missingConfigs(tx: Tx) {
  const keys = new Set((await tx.selectFrom('sysConfig').select('configKey').execute()).map((r) => r.configKey))
  const configs = SEED_CONFIGS.filter(([key]) => !keys.has(key))
  if (configs.length) {
    await tx
      .insertInto('sysConfig')
      .values(configs.map(([configKey, configName, configValue, remark]) => ({ ...audit(), configKey, configName, configValue, configType: 'Y', remark })))
      .execute()
  }
}

async function iotArea(tx: Tx, result: SeedResult) {
  await missingConfigs(tx)
  const existing = await tx.selectFrom('iotModel').select('modelId').where('productId', '=', DEMO_MODEL.productId).executeTakeFirst()
  if (existing) return
  const registrationKey = newRegistrationKey()
  const model = await tx
    .insertInto('iotModel')
    // Every SN of its prefix may register itself: the simulator's fleets number their own devices.
    .values({ ...audit(), ...DEMO_MODEL, tag: 'demo', supportsAudio: 0, bikeModels: '', registrationKey, registrationSerials: `${DEMO_MODEL.snPrefix}*`, status: '0' })
    .returning('modelId')
    .executeTakeFirstOrThrow()
  for (const [name, command, description] of DEMO_FUNCTIONS) {
    const fn = await tx
      .insertInto('iotFunction')
      .values({ ...audit(), name, command, description, firmwareVersions: '1.0.0 and later', minAppVersion: null, status: '0' })
      .returning('functionId')
      .executeTakeFirstOrThrow()
    await tx.insertInto('iotFunctionModel').values({ functionId: Number(fn.functionId), modelId: Number(model.modelId) }).execute()
  }
  result.demoRegistrationKey = registrationKey
}

/**
 * Version 4: the buttons definitions have gained since their page was seeded (steps and actions of
 * Engine 2, an export), and new configuration keys. Only adds: an admin's own buttons stay.
 */
async function definedButtonsArea(tx: Tx) {
  const pages = await tx.selectFrom('sysMenu').select(['menuId', 'component']).where('menuType', '=', 'C').where('component', 'is not', null).execute()
  const held = new Set((await tx.selectFrom('sysMenu').select('perms').where('menuType', '=', 'F').execute()).map((r) => r.perms))
  const catalogue = new Map(MENU_CATALOGUE.flatMap((a) => a.children ?? []).map((c) => [c.component, c]))
  for (const page of pages) {
    const seed = catalogue.get(page.component!)
    if (seed?.permission) await addMissingButtons(tx, page.menuId, seed, held)
  }
  await missingConfigs(tx)
}

/** Adds under a page, after its own, the catalogue's buttons whose permission no button has yet. */
async function addMissingButtons(tx: Tx, pageId: number, seed: MenuSeed, held: ReadonlySet<string | null>) {
  const missing = pageButtons(seed).filter(([perms]) => !held.has(perms))
  if (!missing.length) return
  const last = await tx.selectFrom('sysMenu').select((eb) => eb.fn.max('orderNum').as('n')).where('parentId', '=', pageId).executeTakeFirst()
  let order = Number(last?.n ?? 0)
  for (const [perms, menuName] of missing) {
    await tx
      .insertInto('sysMenu')
      .values({ ...audit(), menuName, parentId: pageId, orderNum: ++order, path: '', component: null, query: null, isFrame: '1', isCache: '0', menuType: 'F', visible: '0', status: '0', perms, icon: '#', noClose: '0' })
      .execute()
  }
}

/** A catalogue page and the area it is in. */
function cataloguePage(key: string): { area: MenuSeed; page: MenuSeed } {
  for (const area of MENU_CATALOGUE) {
    const page = area.children?.find((c) => c.key === key)
    if (page) return { area, page }
  }
  throw new Error(`no catalogue page ${key}`)
}

/**
 * A catalogue page and its buttons, for databases seeded before the page existed (version 5:
 * Monitoring › Jobs; version 12: Monitoring › Data and backups). Only adds what is missing: a page or
 * button already there (seeded fresh, or added by an admin) is left as it is, and where an admin
 * removed the page's directory nothing is added. The admin role holds every menu without rows of its
 * own; other roles get the page when an admin grants it.
 */
async function cataloguePageIfMissing(tx: Tx, key: string) {
  const { area, page: seed } = cataloguePage(key)
  const dir = await tx
    .selectFrom('sysMenu')
    .select('menuId')
    .where('menuName', '=', `menu.${area.key}`)
    .where('menuType', '=', 'M')
    .where('parentId', '=', 0)
    .orderBy('menuId')
    .executeTakeFirst()
  const present = await tx.selectFrom('sysMenu').select('menuId').where('menuType', '=', 'C').where('component', '=', seed.component!).orderBy('menuId').executeTakeFirst()
  let pageId = present?.menuId
  if (pageId === undefined) {
    if (!dir) return
    const last = await tx.selectFrom('sysMenu').select((eb) => eb.fn.max('orderNum').as('n')).where('parentId', '=', dir.menuId).executeTakeFirst()
    pageId = (
      await tx
        .insertInto('sysMenu')
        .values({
          ...audit(),
          menuName: `menu.${seed.key}`,
          parentId: dir.menuId,
          orderNum: Number(last?.n ?? 0) + 1,
          path: seed.path,
          component: seed.component!,
          query: null,
          isFrame: '1',
          isCache: '0',
          menuType: 'C',
          visible: '0',
          status: '0',
          perms: `${seed.permission}:list`,
          icon: seed.icon,
          noClose: '0',
        })
        .returning('menuId')
        .executeTakeFirstOrThrow()
    ).menuId
  }
  const held = new Set((await tx.selectFrom('sysMenu').select('perms').where('menuType', '=', 'F').execute()).map((r) => r.perms))
  await addMissingButtons(tx, pageId, seed, held)
}

/**
 * Version 6: the members and bikes areas' dictionary (bike_category) and the buttons their
 * definitions give beyond the standard ones seeded with the pages (Reply of feedback). Only adds:
 * a dictionary or button already there is left as it is.
 */
async function membersAndBikes(tx: Tx) {
  await seedDictionaries(tx)
  await definedButtonsArea(tx)
}

/**
 * Version 8: the IoT fleet's configuration keys and buttons, and the message configuration of each
 * device event (who is told of a warning, in which words). Only adds: rows already there stay.
 */
async function iotFleet(tx: Tx) {
  await definedButtonsArea(tx)
  await seedMessageConfigs(tx)
}

/**
 * The starter tracking tree (Dashboards › Tracking configuration): four groups and the codes the
 * app sends. `app.launch` and `app.crash` feed App performance; the others are features and screens.
 * [code, name, label, path, children].
 */
const TRACKING_TREE: [code: string, name: string, label: string, path: string, children: [string, string, string, string][]][] = [
  ['app', 'App', 'App lifecycle', '/', [
    ['app.launch', 'Launch', 'App started (value: cold start time in ms)', '/launch'],
    ['app.crash', 'Crash', 'A session crashed (sent on the next launch)', '/crash'],
  ]],
  ['ride', 'Ride', 'Riding', '/ride', [
    ['ride.start', 'Start ride', 'Ride started', '/ride/start'],
    ['ride.finish', 'Finish ride', 'Ride finished (value: distance in km)', '/ride/summary'],
    ['ride.share', 'Share ride', 'Ride shared', '/ride/share'],
  ]],
  ['bike', 'Bike', 'Bike control', '/bike', [
    ['bike.unlock', 'Unlock', 'Bike unlocked from the app', '/bike/unlock'],
    ['bike.lock', 'Lock', 'Bike locked from the app', '/bike/lock'],
    ['bike.find', 'Find my bike', 'Find my bike used', '/bike/find'],
  ]],
  ['screen', 'Screens', 'Screens viewed', '/screen', [
    ['screen.home', 'Home', 'Home screen', '/home'],
    ['screen.map', 'Map', 'Map screen', '/map'],
    ['screen.profile', 'Profile', 'Profile screen', '/profile'],
    ['screen.rides', 'Ride history', 'Ride history screen', '/rides'],
    ['screen.settings', 'Settings', 'Settings screen', '/settings'],
  ]],
]

/**
 * The seeded departments' regions (dept.countryIds: the countries their dashboards count), by
 * country code: the markets the demo's members come from (demo/vocabulary.ts MARKETS). Codes the
 * database has no country for are skipped.
 */
const EUROPE = ['NL', 'DE', 'BE', 'FR', 'GB', 'DK', 'AT', 'CH', 'LU', 'SE', 'NO', 'IE', 'IT', 'ES']
const DEPT_REGIONS: [deptName: string, codes: string[]][] = [
  ['Sales Europe', EUROPE],
  ['Sales China', ['CN']],
  // Service answers every market the bikes are sold in.
  ['After-sales Service', [...EUROPE, 'CN', 'US']],
]

/**
 * Version 10: the dashboards' starter tracking tree and the seeded departments' regions. Only adds:
 * a code already configured, or a department's country already in its region, is left as it is.
 */
async function dashboardsArea(tx: Tx) {
  const present = new Map((await tx.selectFrom('dashTrackingNode').select(['code', 'nodeId']).execute()).map((r) => [r.code as string, Number(r.nodeId)]))
  const add = async (parentId: number, code: string, name: string, label: string, path: string, orderNum: number) => {
    const id = present.get(code)
    if (id !== undefined) return id
    const row = await tx
      .insertInto('dashTrackingNode')
      .values({ ...audit(), parentId, code, name, label, path, orderNum, status: '0' })
      .returning('nodeId')
      .executeTakeFirstOrThrow()
    return Number(row.nodeId)
  }
  for (const [i, [code, name, label, path, children]] of TRACKING_TREE.entries()) {
    const parentId = await add(0, code, name, label, path, i + 1)
    for (const [j, [childCode, childName, childLabel, childPath]] of children.entries()) await add(parentId, childCode, childName, childLabel, childPath, j + 1)
  }

  const countries = new Map((await tx.selectFrom('sysCountry').select(['code', 'countryId']).execute()).map((r) => [r.code, Number(r.countryId)]))
  for (const [deptName, codes] of DEPT_REGIONS) {
    const dept = await tx.selectFrom('sysDept').select('deptId').where('deptName', '=', deptName).where('delFlag', '=', '0').orderBy('deptId').executeTakeFirst()
    if (!dept) continue
    const held = new Set((await tx.selectFrom('sysDeptCountry').select('countryId').where('deptId', '=', dept.deptId).execute()).map((r) => Number(r.countryId)))
    const missing = codes.flatMap((c) => (countries.has(c) && !held.has(countries.get(c)!) ? [countries.get(c)!] : []))
    if (missing.length) await tx.insertInto('sysDeptCountry').values(missing.map((countryId) => ({ deptId: dept.deptId, countryId }))).execute()
  }
}

/** Seed steps by version; the marker key holds the last one applied. */
const STEPS: { version: number; apply: (tx: Tx, adminHash: string, result: SeedResult) => Promise<void> }[] = [
  { version: 1, apply: firstStart },
  { version: 2, apply: (tx) => systemArea(tx) },
  { version: 3, apply: (tx, _hash, result) => iotArea(tx, result) },
  { version: 4, apply: (tx) => definedButtonsArea(tx) },
  { version: 5, apply: (tx) => cataloguePageIfMissing(tx, 'monitor.job') },
  { version: 6, apply: (tx) => membersAndBikes(tx) },
  // Bike orders: Generate and Print labels, and their frame numbers' Void and Replace.
  { version: 7, apply: (tx) => definedButtonsArea(tx) },
  // The IoT fleet: the new configuration keys and buttons (push, SIM steps, acknowledge and clear), and each warning's notification texts.
  { version: 8, apply: (tx) => iotFleet(tx) },
  // Firmware and OTA upgrades: the campaigns' steps and Retry the failed, and the approval configuration key.
  { version: 9, apply: (tx) => definedButtonsArea(tx) },
  // Dashboards: the starter tracking tree and the departments' regions.
  { version: 10, apply: (tx) => dashboardsArea(tx) },
  // Tools: SQL execution's Write button, code generation's Modify, Import, Preview and Generate code buttons, and the SQL limits' configuration keys.
  { version: 11, apply: (tx) => definedButtonsArea(tx) },
  // Monitoring › Data and backups (administrators only) and the maintenance schedules' configuration keys.
  {
    version: 12,
    apply: async (tx) => {
      await cataloguePageIfMissing(tx, 'monitor.data')
      await missingConfigs(tx)
    },
  },
  // SQL execution's caps on statements running at once (per user, in all).
  { version: 13, apply: (tx) => missingConfigs(tx) },
  // Upgrade campaigns' Revise step (issue 35: a change after submit is a new revision, approved again), and
  // the display, battery and controller parts' campaign steps and Retry the failed, which their pages lacked.
  { version: 14, apply: (tx) => definedButtonsArea(tx) },
  // Upgrade campaigns' Skip the held action (issue 35: a held device is skipped past its limit, or on request).
  { version: 15, apply: (tx) => definedButtonsArea(tx) },
  // How long a service order waits for the customer's bike before it closes by itself (a timed step).
  { version: 16, apply: (tx) => missingConfigs(tx) },
  // The IoT list's Conformance check (the device conformance kit, docs/iot-protocol.md › Checking a device).
  { version: 17, apply: (tx) => definedButtonsArea(tx) },
  // Staff identity: the second factor's grace period, and the users' Reset second factors button.
  { version: 18, apply: (tx) => missingConfigs(tx) },
  // Single sign-on (OpenID Connect): System › Single sign-on groups with its buttons, and the keys of the
  // department and role an account made at its first single sign-on gets.
  {
    version: 19,
    apply: async (tx) => {
      await cataloguePageIfMissing(tx, 'system.ssoGroup')
      await missingConfigs(tx)
    },
  },
  // Riders' privacy: the rights to see each category of personal data and to reveal one record's, under Members.
  { version: 20, apply: (tx) => definedButtonsArea(tx) },
  // Riders' requests: the members' Data package and Erase personal data buttons, and the retention of personal data by category.
  { version: 21, apply: (tx) => definedButtonsArea(tx) },
  // The fleet map (issue 42 §1): IoT › Map.
  { version: 22, apply: (tx) => cataloguePageIfMissing(tx, 'iot.map') },
  // Geofences and stolen mode (issue 42 §3, §4): their warnings' message configuration and the devices' new buttons.
  {
    version: 23,
    apply: async (tx) => {
      await seedMessageConfigs(tx)
      await definedButtonsArea(tx)
    },
  },
  // Geofences (issue 42 §3): IoT › Geofences.
  { version: 24, apply: (tx) => cataloguePageIfMissing(tx, 'iot.geofence') },
  // Telemetry under load (issue 45): how often the message log keeps a device's telemetry report.
  { version: 25, apply: (tx) => missingConfigs(tx) },
]

/** The version a database is at once seeded by this server. */
export const SEED_VERSION = STEPS.at(-1)!.version

/**
 * Applies each seed step once: a fresh database gets them all, one seeded by an older version only
 * the newer steps. The marker (config key sys.seed.version) records the version reached.
 */
export async function seed(services: Pick<Services, 'db' | 'config'>): Promise<SeedResult> {
  const { db, config } = services
  const marker = await db.selectFrom('sysConfig').select('configValue').where('configKey', '=', SEED_MARKER).executeTakeFirst()
  const current = marker ? Number(marker.configValue) || 1 : 0
  const pending = STEPS.filter((s) => s.version > current)
  if (pending.length === 0) return { seeded: false }

  const fresh = current === 0
  const generated = fresh && !config.adminPassword ? generatePassword() : undefined
  const adminHash = fresh ? await hashPassword(config.adminPassword ?? generated!) : ''
  const version = String(SEED_VERSION)

  const result: SeedResult = { seeded: true, generatedAdminPassword: generated }
  await db.transaction().execute(async (tx) => {
    for (const step of pending) await step.apply(tx, adminHash, result)
    if (marker) {
      await tx.updateTable('sysConfig').set({ configValue: version, updateBy: 'system', updateTime: new Date().toISOString() }).where('configKey', '=', SEED_MARKER).execute()
    } else {
      await tx
        .insertInto('sysConfig')
        .values({ ...audit(), configKey: SEED_MARKER, configName: 'Seed data version', configValue: version, configType: 'Y', remark: 'The version of the built-in data applied' })
        .execute()
    }
  })
  return result
}
