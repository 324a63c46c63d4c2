import { useEffect, useRef, useState } from 'react'
import { Button, Space, Typography } from 'antd'
import { EyeOutlined, KeyOutlined, PoweroffOutlined, SendOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import { iotEntities, type ApiRowOf, type DeviceEvent } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { eventData, useEventStream } from '../../../api/eventStream'
import { iotApi } from '../../../api/iot'
import { useAccess } from '../../../session/Access'
import { crudKeys } from '../../../crud/api/crudApi'
import { EntityListPage } from '../../../crud/EntityListPage'
import { EntityForm, type EntityFormProps } from '../../../crud/form/EntityForm'
import { GATEWAY_KEY, GatewayStatus } from '../GatewayStatus'
import { LiveIndicator } from '../LiveIndicator'
import { SecretDialog, type ShownSecret } from '../SecretDialog'
import { applyDeviceEvent } from '../deviceLive'
import { PushConfigButton } from '../config/PushConfigButton'
import { DeviceDrawer } from './DeviceDrawer'
import { SendCommandDialog } from './SendCommandDialog'
import '../iot.css'
import { useFeedback } from '../../../lib/feedback'

const device = iotEntities.iotDevice
type DeviceRow = ApiRowOf<typeof device>
const COMMAND = 'iot:device:command'
/** The devices-online count is fetched again at most this often while states change. */
const GATEWAY_REFRESH_MS = 3000

/**
 * The IoT list: the generic device list, live. A 'device' event from GET /iot/stream patches the
 * device's row where a cached page shows it (state, flow state, last seen, battery, versions), with
 * no refetch. Selected devices can be rebooted or sent a command (each confirmed with the count);
 * the SN opens the device drawer; a new device's secret, and a reset one, are shown once.
 */
export default function DevicePage() {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const mayCommand = useAccess({ permissions: [COMMAND] })
  const mayEdit = useAccess({ permissions: [`${device.permission}:edit`] })
  const mayQuery = useAccess({ permissions: [`${device.permission}:query`] })
  const [shownId, setShownId] = useState<number | null>(null)
  const [secret, setSecret] = useState<ShownSecret | null>(null)
  const [commanding, setCommanding] = useState<readonly DeviceRow[] | null>(null)

  // The add form, with the secret the server answers once shown after it closes.
  const [DeviceForm] = useState(
    () =>
      function DeviceForm(props: EntityFormProps<typeof device>) {
        return (
          <EntityForm
            {...props}
            onSaved={(saved) => {
              // The add answers the row with its secret besides (the server's addedFields).
              if (props.id === undefined && 'secret' in saved && typeof saved.secret === 'string') setSecret({ sn: saved.sn, secret: saved.secret })
            }}
          />
        )
      },
  )

  const gatewayTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(
    () => () => {
      if (gatewayTimer.current) clearTimeout(gatewayTimer.current)
    },
    [],
  )
  const live = useEventStream('/iot/stream', {
    onEvent: (event) => {
      if (event.event !== 'device') return
      const data = eventData<DeviceEvent>(event)
      if (!data) return
      applyDeviceEvent(queryClient, data)
      gatewayTimer.current ??= setTimeout(() => {
        gatewayTimer.current = null
        void queryClient.invalidateQueries({ queryKey: GATEWAY_KEY })
      }, GATEWAY_REFRESH_MS)
    },
    // Back after a drop: what changed meanwhile is loaded once.
    onOpen: (again) => {
      if (again) void queryClient.invalidateQueries({ queryKey: [...crudKeys.all(device), 'list'] })
    },
  })

  const ids = (rows: readonly DeviceRow[]) => rows.map((r) => r.deviceId)

  const reboot = (rows: readonly DeviceRow[]) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('iot.reboot.confirm', { count: rows.length }),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const { msg } = await iotApi.reboot(ids(rows))
          void message.success(msg || t('iot.reboot.sent'))
        } catch {
          // The client showed why.
        }
      },
    })

  const resetSecret = (row: DeviceRow) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('iot.secret.resetConfirm', { sn: row.sn }),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const { data, msg } = await iotApi.resetSecret(row.deviceId)
          setSecret({ sn: row.sn, secret: data.secret })
          if (msg) void message.success(msg)
        } catch {
          // The client showed why.
        }
      },
    })

  return (
    <>
      <EntityListPage
        entity={device}
        form={DeviceForm}
        cells={{
          sn: ({ value, row }) =>
            mayQuery ? (
              <Typography.Link onClick={() => setShownId(row.deviceId)} data-testid={`device-sn-${String(value)}`}>
                {String(value)}
              </Typography.Link>
            ) : (
              String(value)
            ),
        }}
        rowActions={
          mayQuery || mayEdit
            ? (row) => [
                mayQuery && { key: 'details', label: t('crud.details'), icon: <EyeOutlined />, onClick: () => setShownId(row.deviceId), testId: 'row-details' },
                mayEdit && { key: 'resetSecret', label: t('iot.secret.reset'), icon: <KeyOutlined />, danger: true, onClick: () => resetSecret(row), testId: 'row-reset-secret' },
              ]
            : undefined
        }
        toolbarActions={(list) => (
          <>
            {mayCommand && (
              <>
                <Button danger icon={<PoweroffOutlined />} disabled={!list.selectedRows.length} onClick={() => reboot(list.selectedRows)} data-testid="device-reboot">
                  {t('iot.reboot.button')}
                </Button>
                <Button icon={<SendOutlined />} disabled={!list.selectedRows.length} onClick={() => setCommanding(list.selectedRows)} data-testid="device-send-command">
                  {t('iot.command.button')}
                </Button>
              </>
            )}
            <PushConfigButton deviceIds={list.selectedRows.map((r) => r.deviceId)} />
            <Space className="iot-status" size="small">
              <LiveIndicator state={live} />
              <GatewayStatus />
            </Space>
          </>
        )}
      />
      {shownId !== null && <DeviceDrawer deviceId={shownId} onClose={() => setShownId(null)} />}
      {secret && <SecretDialog shown={secret} onClose={() => setSecret(null)} />}
      {commanding && <SendCommandDialog devices={commanding} onClose={() => setCommanding(null)} />}
    </>
  )
}
