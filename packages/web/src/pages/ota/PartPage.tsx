import { Tabs, Tag, Typography } from 'antd'
import { entityByKey, OTA_PART_MENU, type OtaPart } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router'
import { useAccessCheck } from '../../session/Access'
import { EntityListPage } from '../../crud/EntityListPage'
import { UpgradePage } from './UpgradePage'
import { useEntities } from '../../entities/areas'

const TABS = ['supplier', 'product', 'firmware', 'upgrade'] as const
type PartTab = (typeof TABS)[number]

const entityKeyOf: Record<PartTab, (part: OtaPart) => string> = {
  supplier: (part) => `${part}PartSupplier`,
  product: (part) => `${part}PartProduct`,
  firmware: (part) => `${part}Firmware`,
  upgrade: (part) => `${part}Upgrade`,
}

/**
 * A part's firmware list: its CRC-8 is shown with the variant it was computed in, since every CRC-8
 * is called "CRC-8" by someone (DOMAIN.md › CRC-8 variants).
 */
export function FirmwareList({ part }: { part: OtaPart }) {
  useEntities(entityKeyOf.firmware(part))
  return (
    <EntityListPage
      entity={entityByKey(entityKeyOf.firmware(part))}
      cells={{
        crc8: ({ value, row }) =>
          value ? (
            <span data-testid="firmware-crc8">
              <Typography.Text code>{String(value)}</Typography.Text> {row.crcVariant ? <Tag>{String(row.crcVariant)}</Tag> : null}
            </span>
          ) : null,
      }}
    />
  )
}

/**
 * An OTA part's page (`/ota/{part}part`): its suppliers, products, firmware and upgrade campaigns in
 * tabs, each shown to users who may list it. The tab is kept in the URL (`?tab=firmware`), so a
 * reload or a shared link opens the same one.
 */
export function PartPage({ part }: { part: OtaPart }) {
  const { t } = useTranslation()
  const may = useAccessCheck()
  const [search, setSearch] = useSearchParams()
  useEntities(...TABS.map((tab) => entityKeyOf[tab](part)))
  const shown = TABS.filter((tab) => may({ permissions: [`${entityByKey(entityKeyOf[tab](part)).permission}:list`] }))
  const asked = search.get('tab') as PartTab | null
  const active = asked && shown.includes(asked) ? asked : shown[0]

  // Each tab's list keeps its search, page and sort in the URL beside the tab: another tab starts from its own first page.
  const choose = (tab: string) => setSearch(new URLSearchParams({ tab }), { replace: true })

  const content = (tab: PartTab) => {
    if (tab === 'upgrade') return <UpgradePage part={part} />
    if (tab === 'firmware') return <FirmwareList part={part} />
    return <EntityListPage entity={entityByKey(entityKeyOf[tab](part))} />
  }

  return (
    <div data-testid={`ota-part-${OTA_PART_MENU[part]}`}>
      <Tabs
        activeKey={active}
        onChange={choose}
        // Only the open tab is rendered: a list loads when it is shown, not with the page.
        items={shown.map((tab) => ({ key: tab, label: <span data-testid={`ota-tab-${tab}`}>{t(`ota.part.tab.${tab}`)}</span>, children: tab === active ? content(tab) : null }))}
      />
    </div>
  )
}
