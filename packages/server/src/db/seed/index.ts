import { randomBytes } from 'node:crypto'
import { MENU_CATALOGUE, type MenuSeed, STANDARD_ACTIONS } from '@velo/shared'
import type { Transaction } from 'kysely'
import { newUserRow } from '../../platform/auth/new-user'
import { hashPassword } from '../../platform/auth/passwords'
import type { Services } from '../../platform/services'
import type { Database } from '../schema'
import { SEED_CONFIGS, SEED_DICTIONARIES } from './dictionaries'

const SEED_MARKER = 'sys.seed.version'
const SEED_VERSION = '1'

export interface SeedResult {
  seeded: boolean
  /** Set only when the admin password was generated (no ADMIN_PASSWORD): print it once. */
  generatedAdminPassword?: string
}

type Tx = Transaction<Database>

function generatePassword(): string {
  // 16 characters from an alphabet without look-alikes, plus a digit and a sign to meet any rule.
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'
  const bytes = randomBytes(14)
  return `${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')}7!`
}

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
    const actions = [...STANDARD_ACTIONS, ...(seed.imports ? ['import'] : [])]
    const buttons = [...actions.map((a) => `${seed.permission}:${a}`), ...(seed.extra ?? [])]
    for (const [i, perms] of buttons.entries()) {
      const action = perms.split(':').at(-1)!
      const id = await insert({ menuName: `button.${action}`, parentId: menuId, orderNum: i + 1, path: '', component: null, menuType: 'F', perms, icon: '#' })
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

/** Applies the first-start data once: departments, menus, roles, the admin user, dictionaries, configuration. */
export async function seed(services: Services): Promise<SeedResult> {
  const { db, config } = services
  const marker = await db.selectFrom('sysConfig').select('configValue').where('configKey', '=', SEED_MARKER).executeTakeFirst()
  if (marker) return { seeded: false }

  const generated = config.adminPassword ? undefined : generatePassword()
  const adminHash = await hashPassword(config.adminPassword ?? generated!)

  await db.transaction().execute(async (tx) => {
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
          createBy: 'system',
          remark: 'Built-in administrator',
        }),
      )
      .returning('userId')
      .executeTakeFirstOrThrow()
    await tx.insertInto('sysUserRole').values({ userId: admin.userId, roleId: adminRole.roleId }).execute()

    for (const [dictType, dictName, items] of SEED_DICTIONARIES) {
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
    await tx
      .insertInto('sysConfig')
      .values([
        ...SEED_CONFIGS.map(([configKey, configName, configValue, remark]) => ({ ...audit(), configKey, configName, configValue, configType: 'Y', remark })),
        { ...audit(), configKey: SEED_MARKER, configName: 'Seed data version', configValue: SEED_VERSION, configType: 'Y', remark: 'Set once the first-start data is in' },
      ])
      .execute()
  })
  return { seeded: true, generatedAdminPassword: generated }
}
