import { TOOL_OPERATOR_PREFIX } from '@velo/shared'
import { Tag, Tooltip } from 'antd'
import { useTranslation } from 'react-i18next'
import type { CellProps } from '../../crud/kinds/types'

/**
 * The operator of a log entry. Staff names are short by rule (4–20 characters); a production-line
 * tool operator is an e-mail address, which would widen the whole list: shown as a Tool tag and the
 * address's name part, the whole address on hover and in the details.
 */
export function OperatorCell({ value }: CellProps) {
  const { t } = useTranslation()
  const name = typeof value === 'string' ? value : ''
  if (!name.startsWith(TOOL_OPERATOR_PREFIX)) return name
  const email = name.slice(TOOL_OPERATOR_PREFIX.length)
  return (
    <Tooltip title={email}>
      <span data-testid="operator-tool">
        <Tag color="purple">{t('monitor.operator.tool')}</Tag>
        {email.split('@')[0]}
      </span>
    </Tooltip>
  )
}
