import { useState } from 'react'
import { Button, Drawer, Result, Space, Spin, Tabs, Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { type OtaCampaignOverview, type OtaPart, type ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import type { EventStreamState } from '../../../api/eventStream'
import { http } from '../../../api/http'
import { useAccess } from '../../../session/Access'
import { crudApi, crudKeys } from '../../../crud/api/crudApi'
import { ManagedRelatedList, useRelatedLists } from '../../../crud/details/RelatedLists'
import { EntityDescriptions, FieldValue } from '../../../crud/EntityDetails'
import { TransitionTimeline } from '../../../crud/workflow/TransitionTimeline'
import { useWorkflow } from '../../../crud/workflow/useWorkflow'
import { localized } from '../../../i18n'
import { LiveIndicator } from '../../iot/LiveIndicator'
import { DeviceDrawer } from '../../iot/device/DeviceDrawer'
import { CampaignOverview } from './CampaignOverview'

/** Under the campaign entity's key: a step or action on the campaign (pause, resume, retry) refreshes it with the rows. */
export const overviewKey = (entity: ResolvedEntity, id: unknown) => [...crudKeys.all(entity), 'overview', id] as const

export const fetchOverview = (entity: ResolvedEntity, id: unknown) => http.get<OtaCampaignOverview>(`${entity.path}/${String(id)}/overview`, undefined, { silent: true })

/** Wide enough for the devices tab, which is the per-device list page (antd keeps a drawer within the window). */
const DRAWER_WIDTH = 1200

export interface CampaignDrawerProps {
  part: OtaPart
  entity: ResolvedEntity
  id: unknown
  /** The page's stream of the rollout's events, which refreshes what this drawer shows. */
  live: EventStreamState
  onClose: () => void
}

/**
 * One campaign: its steps (the ones its state allows and the user may take) over three tabs — the
 * live view, the devices (the per-device list page fixed to the campaign) and the fields with the
 * history of its steps.
 */
export function CampaignDrawer({ part, entity, id, live, onClose }: CampaignDrawerProps) {
  const { t } = useTranslation()
  const [tab, setTab] = useState('live')
  const [deviceShown, setDeviceShown] = useState<number | null>(null)
  const mayOpenDevice = useAccess({ permissions: ['iot:device:query'] })
  const workflow = useWorkflow(entity)
  const [devices] = useRelatedLists(entity)
  const row = useQuery({ queryKey: crudKeys.row(entity, id), queryFn: () => crudApi(entity).get(id) })
  const overview = useQuery({ queryKey: overviewKey(entity, id), queryFn: () => fetchOverview(entity, id) })
  const status = entity.fieldMap.get('status')

  const liveView = overview.data ? (
    <CampaignOverview
      part={part}
      overview={overview.data}
      onOpenDevice={mayOpenDevice ? setDeviceShown : undefined}
      onShowDevices={devices ? () => setTab('devices') : undefined}
    />
  ) : overview.isError ? (
    <Result status="warning" title={t('ota.upgrade.loadFailed')} extra={<Button onClick={() => void overview.refetch()}>{t('ota.upgrade.retry')}</Button>} />
  ) : (
    <Spin spinning style={{ display: 'block', padding: 48 }} />
  )

  return (
    <Drawer
      open
      size={DRAWER_WIDTH}
      title={row.data ? t('ota.upgrade.drawerTitle', { name: String(row.data[entity.labelField ?? entity.idField] ?? '') }) : localized(entity.singular)}
      onClose={onClose}
      destroyOnHidden
      data-testid="ota-campaign-drawer"
    >
      {row.data && (
        <div className="ota-drawer-head">
          {status && <FieldValue entity={entity} field={status} row={row.data} />}
          <LiveIndicator state={live} testId="ota-live" />
          <Space size={8} wrap style={{ marginLeft: 'auto' }}>
            {workflow.rowActions(row.data).map((a) => (
              <Button key={a.key} danger={a.danger} onClick={a.onClick} data-testid={`campaign-${a.testId ?? a.key}`}>
                {a.label}
              </Button>
            ))}
          </Space>
        </div>
      )}
      <Tabs
        activeKey={tab}
        onChange={setTab}
        items={[
          { key: 'live', label: t('ota.upgrade.tabLive'), children: liveView },
          ...(devices ? [{ key: 'devices', label: localized(devices.label), children: <ManagedRelatedList list={devices} id={id} /> }] : []),
          {
            key: 'details',
            label: t('ota.upgrade.tabDetails'),
            children: row.data ? (
              <>
                <EntityDescriptions entity={entity} row={row.data} />
                <section className="crud-details-history">
                  <Typography.Title level={5}>{t('crud.history')}</Typography.Title>
                  <TransitionTimeline entity={entity} id={id} />
                </section>
              </>
            ) : (
              <Spin spinning style={{ display: 'block', padding: 48 }} />
            ),
          },
        ]}
      />
      {workflow.dialogs}
      {deviceShown !== null && <DeviceDrawer deviceId={deviceShown} onClose={() => setDeviceShown(null)} />}
    </Drawer>
  )
}
