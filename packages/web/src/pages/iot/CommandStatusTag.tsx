import { Tag } from 'antd'
import { iotEntities, type EnumOption } from '@velo/shared'
import { localized } from '../../i18n'

const field = iotEntities.iotCommand.fieldMap.get('status')
const OPTIONS: readonly EnumOption[] = field?.kind === 'enum' ? field.options : []

/** A command's status in its colour (queued, sent, delivered, succeeded, failed, timed out, expired). */
export function CommandStatusTag({ status }: { status: string | null | undefined }) {
  if (!status) return null
  const option = OPTIONS.find((o) => o.value === status)
  return (
    <Tag color={option?.color} data-testid="command-status" data-status={status}>
      {option ? localized(option.label) : status}
    </Tag>
  )
}
