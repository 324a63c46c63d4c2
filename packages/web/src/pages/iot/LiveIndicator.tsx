import { Badge, Tooltip } from 'antd'
import { useTranslation } from 'react-i18next'
import type { EventStreamState } from '../../api/eventStream'
import { feedbackText } from '../../api/http'

const BADGE = { open: 'success', connecting: 'processing', reconnecting: 'warning', closed: 'default' } as const

/** Whether live updates flow: live, connecting, reconnecting (after a drop), or off (refused, with the reason). */
export function LiveIndicator({ state, testId = 'iot-live' }: { state: EventStreamState; testId?: string }) {
  const { t } = useTranslation()
  const hint = state.error && state.status !== 'open' ? feedbackText(state.error) : t('iot.live.hint')
  return (
    <Tooltip title={hint}>
      <span className="iot-live" data-testid={testId} data-status={state.status}>
        <Badge status={BADGE[state.status]} text={t(`iot.live.${state.status}`)} />
      </span>
    </Tooltip>
  )
}
