import { lazy, Suspense, useMemo } from 'react'
import { Drawer, Empty, Result, Space, Spin, Table, Tabs, Tag, Tooltip } from 'antd'
import type { ColumnsType } from 'antd/es/table'
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { COMMANDS, iotEntities, type ApiRowOf, type CommandEvent, type DeviceEvent, type MessageEvent, type Paged, type ResolvedEntity } from '@velo/shared'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { eventData, useEventStream } from '../../../api/eventStream'
import { crudApi, crudKeys, type ListBody } from '../../../crud/api/crudApi'
import { EntityDescriptions, FieldValue } from '../../../crud/EntityDetails'
import { DATETIME_FORMAT } from '../../../crud/kinds/cells'
import { localized } from '../../../i18n'
import { useAccess } from '../../../session/Access'
import { CommandStatusTag } from '../CommandStatusTag'
import { LiveIndicator } from '../LiveIndicator'
import { applyDeviceEvent } from '../deviceLive'
import { prettyJson } from '../json'

// The trace (and MapLibre with it) loads when its tab is first opened.
const TracePanel = lazy(() => import('../trace/TracePanel'))

const { iotDevice: device, iotCommand: command, iotMessage: message, iotTheft: theft } = iotEntities
type CommandRow = ApiRowOf<typeof command>
type MessageRow = ApiRowOf<typeof message>

/** A row of the recent commands: a listed one, or one a 'command' event put on top (with what the event carries). */
type RecentCommand = Pick<CommandRow, 'commandId' | 'deviceId' | 'command' | 'status' | 'reply' | 'roundTripMs' | 'createTime'> & Partial<Pick<CommandRow, 'sentAt'>>
/** A row of the recent messages: a listed one, or one a 'message' event put on top (keyed `live-n`: it has no id yet). */
type RecentMessage = Omit<MessageRow, 'messageId'> & { messageId: number | string }

/** How many recent rows each table shows; live rows push the oldest out. */
export const RECENT = 20

export const telemetryBody = (deviceId: number): ListBody => ({ pageNum: 1, pageSize: RECENT, deviceId, kind: 'telemetry' })
export const messagesBody = (deviceId: number): ListBody => ({ pageNum: 1, pageSize: RECENT, deviceId })
export const commandsBody = (deviceId: number): ListBody => ({ pageNum: 1, pageSize: RECENT, deviceId })

const time = (value: string | null | undefined) => (value ? dayjs(value).format(DATETIME_FORMAT) : '')
const commandLabel = (name: string) => {
  const spec = COMMANDS.find((c) => c.name === name)
  return spec ? localized(spec.label) : name
}

/** Puts a live row on top of a cached "recent" list (when it is loaded), keeping its length. */
function prepend<R>(queryClient: QueryClient, key: readonly unknown[], row: R) {
  queryClient.setQueryData<Paged<R>>(key, (page) => (page?.rows ? { rows: [row, ...page.rows].slice(0, RECENT), total: page.total + 1 } : page))
}

let liveKey = 0

/** A 'message' event as a row of the message log. */
const messageRow = (m: MessageEvent): RecentMessage => ({
  messageId: `live-${++liveKey}`,
  deviceId: m.deviceId,
  direction: m.direction,
  kind: m.kind,
  topic: m.topic,
  payload: m.payload,
  createTime: m.time,
})

/** A 'command' event applied to the recent commands: the row updated, or a new one on top. */
function applyCommandEvent(queryClient: QueryClient, key: readonly unknown[], c: CommandEvent) {
  const update = { status: c.status, reply: c.reply, roundTripMs: c.roundTripMs }
  const page = queryClient.getQueryData<Paged<RecentCommand>>(key)
  if (!page?.rows) return
  if (page.rows.some((r) => r.commandId === c.commandId)) {
    queryClient.setQueryData<Paged<RecentCommand>>(key, { ...page, rows: page.rows.map((r) => (r.commandId === c.commandId ? { ...r, ...update } : r)) })
  } else {
    prepend<RecentCommand>(queryClient, key, { commandId: c.commandId, deviceId: c.deviceId, command: c.command, ...update, createTime: new Date().toISOString() })
  }
}

interface Telemetry {
  battery?: number
  signal?: number
  gps?: { lat?: number; lng?: number }
}

function telemetryOf(row: RecentMessage): Telemetry {
  try {
    return JSON.parse(row.payload) as Telemetry
  } catch {
    return {}
  }
}

function RecentTable<R extends object>({ rows, columns, rowKey, loading, error, testId }: { rows: R[] | undefined; columns: ColumnsType<R>; rowKey: string; loading: boolean; error: boolean; testId: string }) {
  const { t } = useTranslation()
  if (error) return <Result status="warning" subTitle={t('iot.detail.loadFailed')} />
  return (
    <Table<R>
      size="small"
      rowKey={rowKey}
      loading={loading}
      dataSource={rows ?? []}
      columns={columns}
      pagination={false}
      scroll={{ x: 'max-content' }}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('iot.detail.none')} /> }}
      data-testid={testId}
    />
  )
}

function useRecent<E extends ResolvedEntity>(entity: E, body: ListBody) {
  return useQuery({ queryKey: crudKeys.list(entity, body), queryFn: () => crudApi(entity).list(body) })
}

/**
 * One device, live: every field (state, versions and readings patched as 'device' events arrive),
 * its recent telemetry, commands (statuses follow 'command' events) and messages (new ones on top).
 */
export function DeviceDrawer({ deviceId, onClose }: { deviceId: number; onClose: () => void }) {
  const { t } = useTranslation()
  const queryClient = useQueryClient()
  const row = useQuery({ queryKey: crudKeys.row(device, deviceId), queryFn: () => crudApi(device).get(deviceId) })
  const telemetry = useRecent(message, telemetryBody(deviceId))
  const messages = useRecent(message, messagesBody(deviceId))
  const commands = useRecent(command, commandsBody(deviceId))
  // Stolen mode's history: refreshed after Report stolen or Recovered (the device's related list).
  const thefts = useRecent(theft, commandsBody(deviceId))
  // The server's rule for a trace: the device list's query right and "See positions".
  const mayQuery = useAccess({ permissions: ['iot:device:query'] })
  const maySeePositions = useAccess({ permissions: ['member:pii:location'] })
  const mayTrace = mayQuery && maySeePositions
  const keys = useMemo(
    () => ({
      telemetry: crudKeys.list(message, telemetryBody(deviceId)),
      messages: crudKeys.list(message, messagesBody(deviceId)),
      commands: crudKeys.list(command, commandsBody(deviceId)),
    }),
    [deviceId],
  )

  const live = useEventStream('/iot/stream', {
    params: { deviceId },
    onEvent: (event) => {
      if (event.event === 'device') {
        const d = eventData<DeviceEvent>(event)
        if (d?.deviceId === deviceId) applyDeviceEvent(queryClient, d)
      } else if (event.event === 'command') {
        const c = eventData<CommandEvent>(event)
        if (c?.deviceId === deviceId) applyCommandEvent(queryClient, keys.commands, c)
      } else if (event.event === 'message') {
        const m = eventData<MessageEvent>(event)
        if (!m || m.deviceId !== deviceId) return
        const r = messageRow(m)
        prepend(queryClient, keys.messages, r)
        if (m.kind === 'telemetry' && m.direction === 'up') prepend(queryClient, keys.telemetry, r)
      }
    },
    // Events missed while the stream was down: load the recent lists again.
    onOpen: (again) => {
      if (!again) return
      void queryClient.invalidateQueries({ queryKey: crudKeys.row(device, deviceId) })
      for (const key of Object.values(keys)) void queryClient.invalidateQueries({ queryKey: key })
    },
  })

  const overview = row.isError ? (
    <Result status="warning" subTitle={t('iot.detail.loadFailed')} />
  ) : !row.data ? (
    <Spin spinning style={{ display: 'block', padding: 48 }} />
  ) : (
    <EntityDescriptions entity={device} row={row.data} testId="device-details" />
  )

  const telemetryColumns: ColumnsType<RecentMessage> = [
    { key: 'time', title: t('iot.detail.time'), render: (_, r) => time(r.createTime) },
    { key: 'battery', title: t('iot.detail.battery'), align: 'right', render: (_, r) => telemetryOf(r).battery ?? '' },
    { key: 'signal', title: t('iot.detail.signal'), align: 'right', render: (_, r) => telemetryOf(r).signal ?? '' },
    { key: 'lat', title: t('iot.detail.lat'), align: 'right', render: (_, r) => telemetryOf(r).gps?.lat?.toFixed(5) ?? '' },
    { key: 'lng', title: t('iot.detail.lng'), align: 'right', render: (_, r) => telemetryOf(r).gps?.lng?.toFixed(5) ?? '' },
  ]
  const commandColumns: ColumnsType<RecentCommand> = [
    { key: 'time', title: t('iot.detail.time'), render: (_, r) => time(r.sentAt ?? r.createTime) },
    { key: 'command', title: t('iot.detail.command'), render: (_, r) => commandLabel(r.command) },
    { key: 'status', title: t('iot.detail.status'), render: (_, r) => <CommandStatusTag status={r.status} /> },
    { key: 'rtt', title: t('iot.detail.roundTrip'), align: 'right', render: (_, r) => (r.roundTripMs === null ? '' : `${r.roundTripMs} ms`) },
    {
      key: 'reply',
      title: t('iot.detail.reply'),
      render: (_, r) =>
        r.reply ? (
          <Tooltip title={<pre className="iot-tooltip-json">{prettyJson(r.reply)}</pre>}>
            <span className="crud-cell-clip">{r.reply}</span>
          </Tooltip>
        ) : null,
    },
  ]
  const messageColumns: ColumnsType<RecentMessage> = [
    { key: 'time', title: t('iot.detail.time'), render: (_, r) => time(r.createTime) },
    { key: 'direction', title: t('iot.detail.direction'), render: (_, r) => <Tag color={r.direction === 'up' ? 'green' : 'blue'}>{t(r.direction === 'up' ? 'iot.detail.up' : 'iot.detail.down')}</Tag> },
    { key: 'kind', title: t('iot.detail.kind'), dataIndex: 'kind' },
    {
      key: 'payload',
      title: t('iot.detail.payload'),
      render: (_, r) => (
        <Tooltip title={<pre className="iot-tooltip-json">{prettyJson(r.payload)}</pre>}>
          <span className="crud-cell-clip">{r.payload}</span>
        </Tooltip>
      ),
    },
  ]

  // As the device's details list them (its definition's related list): who reported or recovered it, when and why.
  const theftColumns: ColumnsType<ApiRowOf<typeof theft>> = (device.related.find((r) => r.entity === theft.key)?.columns ?? []).map((name) => {
    const field = theft.fieldMap.get(name)!
    return { key: name, title: localized(field.label), render: (_, r) => <FieldValue entity={theft} field={field} row={r} /> }
  })

  const sn = row.data?.sn ?? ''
  return (
    <Drawer
      open
      title={sn ? t('iot.detail.title', { sn }) : t('iot.detail.loading')}
      onClose={onClose}
      size={960}
      destroyOnHidden
      extra={
        <Space>
          {row.data ? <FieldValue entity={device} field={device.fieldMap.get('state')!} row={row.data} /> : null}
          {row.data?.theft === 'stolen' ? <FieldValue entity={device} field={device.fieldMap.get('theft')!} row={row.data} /> : null}
          <LiveIndicator state={live} testId="device-live" />
        </Space>
      }
    >
      <div data-testid="device-drawer">
        <Tabs
          items={[
            { key: 'overview', label: t('iot.detail.overview'), children: overview },
            {
              key: 'telemetry',
              label: t('iot.detail.telemetry'),
              children: <RecentTable rows={telemetry.data?.rows} columns={telemetryColumns} rowKey="messageId" loading={telemetry.isPending} error={telemetry.isError} testId="device-telemetry" />,
            },
            {
              key: 'commands',
              label: t('iot.detail.commands'),
              children: <RecentTable rows={commands.data?.rows} columns={commandColumns} rowKey="commandId" loading={commands.isPending} error={commands.isError} testId="device-commands" />,
            },
            {
              key: 'messages',
              label: t('iot.detail.messages'),
              children: <RecentTable rows={messages.data?.rows} columns={messageColumns} rowKey="messageId" loading={messages.isPending} error={messages.isError} testId="device-messages" />,
            },
            {
              key: 'theft',
              label: localized(theft.label),
              children: <RecentTable rows={thefts.data?.rows} columns={theftColumns} rowKey="theftId" loading={thefts.isPending} error={thefts.isError} testId="device-thefts" />,
            },
            ...(mayTrace
              ? [{ key: 'trace', label: t('iot.detail.trace'), children: <Suspense fallback={<Spin />}><TracePanel target={{ deviceId }} /></Suspense> }]
              : []),
          ]}
        />
      </div>
    </Drawer>
  )
}
