import { afterEach, describe, expect, it, vi } from 'vitest'
import type { GeneratedModule } from '../src/entity/generated'

// A module written by the code generator is a built-in definition with a page in the catalogue:
// the list of generated modules is replaced here by a test module, as a downloaded one would fill it.

const GENERATED_INDEX = '../src/entities/generated/index'

async function testModule(area: string, path = `/${area}/warrantyClaim`): Promise<GeneratedModule> {
  const { defineEntity } = await import('../src/entity/define')
  return {
    menu: { area, icon: 'table' },
    entity: defineEntity({
      key: 'warrantyClaim',
      table: 'crmWarrantyClaim',
      path,
      permission: `${area}:warrantyClaim`,
      label: { en_US: 'Warranty claims', zh_CN: '保修申请' },
      idField: 'claimId',
      defaultSort: { field: 'claimId', order: 'desc' },
      fields: [
        { name: 'claimId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: 'ID' }, readOnly: true },
        { name: 'title', kind: 'text', max: 100, label: { en_US: 'Title', zh_CN: '标题' }, required: true, search: 'like' },
      ],
    }),
  }
}

/** The shared package as it loads with these generated modules. */
async function loadWith(modules: () => Promise<GeneratedModule[]>) {
  vi.resetModules()
  vi.doMock(GENERATED_INDEX, async () => ({ GENERATED_MODULES: await modules() }))
  return import('../src/index')
}

afterEach(() => {
  vi.doUnmock(GENERATED_INDEX)
  vi.resetModules()
})

describe('generated modules', () => {
  it('are registered and get their page under their area, after the area’s own pages', async () => {
    const shared = await loadWith(async () => [await testModule('service')])
    const entity = shared.entityByKey('warrantyClaim')
    expect(shared.GENERATED_MODULES.map((m) => m.entity)).toEqual([entity])
    expect(shared.entityForComponent('service/warrantyClaim/index')).toBe(entity)
    const service = shared.MENU_CATALOGUE.find((a) => a.key === 'service')!
    expect(service.children!.at(-1)).toEqual({
      key: 'service.warrantyClaim',
      path: 'warrantyClaim',
      icon: 'table',
      component: 'service/warrantyClaim/index',
      title: { en_US: 'Warranty claims', zh_CN: '保修申请' },
      permission: 'service:warrantyClaim',
      imports: false,
    })
    expect(service.children!.map((c) => c.key)).toContain('service.repairOrder')
    expect(shared.menuTitle('menu.service.warrantyClaim', 'zh_CN')).toBe('保修申请')
    expect(shared.isCataloguePage('service/warrantyClaim/index')).toBe(true)
    // No other area gains it.
    expect(shared.MENU_CATALOGUE.filter((a) => a.children?.some((c) => c.key.endsWith('.warrantyClaim')))).toHaveLength(1)
  })

  it('without any, the catalogue is the product’s own', async () => {
    const shared = await loadWith(async () => [])
    expect(shared.MENU_CATALOGUE.flatMap((a) => a.children ?? []).some((c) => c.key.endsWith('.warrantyClaim'))).toBe(false)
    expect(() => shared.entityByKey('warrantyClaim')).toThrow('no entity warrantyClaim')
  })

  it('a module whose area is not in the catalogue fails when the package loads', async () => {
    await expect(loadWith(async () => [await testModule('crm', '/service/warrantyClaim')])).rejects.toThrow(
      "generated module warrantyClaim: menu area 'crm' is not an area of the menu catalogue",
    )
  })

  it('a module served at another path than its page’s fails when the package loads', async () => {
    await expect(loadWith(async () => [await testModule('service', '/member/warrantyClaim')])).rejects.toThrow(
      'generated module warrantyClaim: its path must be /service/warrantyClaim (found /member/warrantyClaim)',
    )
  })

  it('a module whose page the area already has fails when the package loads', async () => {
    const { MENU_CATALOGUE, withGeneratedPages } = await loadWith(async () => [])
    const repair = await testModule('service')
    const clash = { ...repair, entity: { ...repair.entity, key: 'repairOrder', path: '/service/repairOrder' } }
    expect(() => withGeneratedPages(MENU_CATALOGUE, [clash])).toThrow('generated module repairOrder: area service already has a page service.repairOrder')
  })
})
