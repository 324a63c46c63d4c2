import { Typography } from 'antd'
import { Link } from 'react-router'
import { useAccess } from '../../../session/Access'

/**
 * A configuration key where a setting is changed: a link to System configuration filtered by the
 * key (its list reads its filters from the URL) for those who may open it, the bare key otherwise.
 */
export function ConfigKey({ name }: { name: string }) {
  const mayOpenConfig = useAccess({ permissions: ['system:config:list'] })
  const key = <Typography.Text code>{name}</Typography.Text>
  if (!mayOpenConfig) return key
  return (
    <Link to={`/system/config?configKey=${encodeURIComponent(name)}`} data-testid={`config-key-${name}`}>
      {key}
    </Link>
  )
}
