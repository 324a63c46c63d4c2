import { Tag, Tooltip } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { iotApi } from '../../api/iot'

export const GATEWAY_KEY = ['iot', 'gateway'] as const

/** The gateway's broker connection and how many devices are online (GET /iot/gateway). */
export function GatewayStatus() {
  const { t } = useTranslation()
  const gateway = useQuery({ queryKey: GATEWAY_KEY, queryFn: iotApi.gateway, refetchInterval: 30_000 })
  if (gateway.isError) {
    return (
      <Tag data-testid="iot-gateway" data-status="unavailable">
        {t('iot.gateway.unavailable')}
      </Tag>
    )
  }
  const g = gateway.data
  if (!g) return null
  const broker = g.embedded ? t('iot.gateway.embedded', { port: g.port ?? '' }) : t('iot.gateway.external')
  const ingest = t('iot.gateway.ingest', { pending: g.ingest.pending, cap: g.ingest.cap })
  return (
    <>
      <Tooltip title={`${t('iot.gateway.detail', { version: g.protocolVersion, broker })}; ${ingest}`}>
        <Tag color={g.connected ? 'success' : 'error'} data-testid="iot-gateway" data-status={g.connected ? 'connected' : 'disconnected'}>
          {g.connected ? t('iot.gateway.online', { count: g.devicesOnline }) : t('iot.gateway.disconnected')}
        </Tag>
      </Tooltip>
      {/* Saturated: devices' reports wait unacknowledged (nothing is lost, but the fleet's data is late). */}
      {g.ingest.saturated && (
        <Tooltip title={t('iot.gateway.saturatedDetail', { seconds: Math.round(g.ingest.saturatedSeconds) })}>
          <Tag color="warning" data-testid="iot-ingest" data-status="saturated">
            {t('iot.gateway.saturated', { pending: g.ingest.pending, cap: g.ingest.cap })}
          </Tag>
        </Tooltip>
      )}
    </>
  )
}
