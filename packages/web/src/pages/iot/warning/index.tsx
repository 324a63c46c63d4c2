import { Space } from 'antd'
import { useQueryClient } from '@tanstack/react-query'
import { iotWarningEntities, type AlarmEventData } from '@velo/shared'
import { eventData, useEventStream, useThrottled } from '../../../api/eventStream'
import { crudKeys } from '../../../crud/api/crudApi'
import { EntityListPage } from '../../../crud/EntityListPage'
import { patchListRows } from '../../../crud/list/patchListRows'
import { LiveIndicator } from '../LiveIndicator'
import { alarmPatch } from './alarmLive'
import '../iot.css'

const alarm = iotWarningEntities.iotAlarm
/** New alarms and the counts per state are loaded again at most this often while alarms come in (a storm is one refetch a second). */
const REFRESH_MS = 1000

/**
 * IoT › Warnings: the generic list (filters, status bar with counts, bulk acknowledge and clear),
 * live. An 'alarm' event of GET /iot/stream patches the alarm's row where a cached page shows it
 * (state, count, last time) at once; new alarms and the counts come with a throttled refetch.
 */
export default function WarningPage() {
  const queryClient = useQueryClient()
  const refresh = () => void queryClient.invalidateQueries({ queryKey: crudKeys.all(alarm) })
  const refreshSoon = useThrottled(refresh, REFRESH_MS)

  const live = useEventStream('/iot/stream', {
    onEvent: (event) => {
      if (event.event !== 'alarm') return
      const data = eventData<AlarmEventData>(event)
      if (!data) return
      patchListRows(queryClient, alarm, (row) => (row.alarmId === data.alarmId ? alarmPatch(data) : null))
      refreshSoon()
    },
    // Back after a drop: what changed meanwhile is loaded once.
    onOpen: (again) => {
      if (again) refresh()
    },
  })

  return (
    <EntityListPage
      entity={alarm}
      toolbarActions={() => (
        <Space className="iot-status" size="small">
          <LiveIndicator state={live} testId="warning-live" />
        </Space>
      )}
    />
  )
}
