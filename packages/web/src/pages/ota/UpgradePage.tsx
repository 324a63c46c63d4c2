import { useState } from 'react'
import { Space, Typography } from 'antd'
import { DashboardOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import { entityByKey, type OtaEvent, type OtaPart } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { eventData, useEventStream, useThrottled } from '../../api/eventStream'
import { useAccess } from '../../session/Access'
import { crudKeys } from '../../crud/api/crudApi'
import { EntityListPage } from '../../crud/EntityListPage'
import { LiveIndicator } from '../iot/LiveIndicator'
import { CampaignDrawer } from './upgrade/CampaignDrawer'
import '../iot/iot.css'
import { useEntities } from '../../entities/areas'

/**
 * While devices report, the campaigns, their counts and the open live view are loaded again at
 * most this often: a wave of a thousand devices is one refetch a second, not a thousand.
 */
const REFRESH_MS = 1000

/**
 * A part's upgrade campaigns (IoT › IoT upgrade, /ota/iotpart/upgrade, and each OTA part's
 * Upgrades tab): the generic list with its status filter and step buttons; a campaign's name opens
 * its live view. The rollout's events (GET {path}/stream) refresh what is shown, throttled.
 */
export function UpgradePage({ part }: { part: OtaPart }) {
  const { t } = useTranslation()
  const queryClient = useQueryClient()
  useEntities(`${part}Upgrade`, `${part}UpgradeDevice`)
  const entity = entityByKey(`${part}Upgrade`)
  const devices = entityByKey(`${part}UpgradeDevice`)
  const mayOpen = useAccess({ permissions: [`${entity.permission}:query`] })
  const [shownId, setShownId] = useState<number | null>(null)

  // Only what is on screen is fetched again: the list, its counts, the open campaign and its devices.
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: crudKeys.all(entity) })
    void queryClient.invalidateQueries({ queryKey: crudKeys.all(devices) })
  }
  const refreshSoon = useThrottled(refresh, REFRESH_MS)
  const live = useEventStream(`${entity.path}/stream`, {
    onEvent: (event) => {
      if (event.event !== 'ota' || !eventData<OtaEvent>(event)) return
      refreshSoon()
    },
    // Back after a drop: what changed meanwhile is loaded once.
    onOpen: (again) => {
      if (again) refresh()
    },
  })

  return (
    <>
      <EntityListPage
        entity={entity}
        cells={{
          name: ({ value, row }) =>
            mayOpen ? (
              <Typography.Link onClick={() => setShownId(Number(row[entity.idField]))} data-testid="ota-campaign-open">
                {String(value)}
              </Typography.Link>
            ) : (
              String(value)
            ),
        }}
        rowActions={(row) => [
          mayOpen && { key: 'live', label: t('ota.upgrade.liveView'), icon: <DashboardOutlined />, onClick: () => setShownId(Number(row[entity.idField])), testId: 'row-live' },
        ]}
        toolbarActions={() => (
          <Space className="iot-status" size="small">
            <LiveIndicator state={live} testId="ota-live-list" />
          </Space>
        )}
      />
      {shownId !== null && <CampaignDrawer part={part} entity={entity} id={shownId} live={live} onClose={() => setShownId(null)} />}
    </>
  )
}
