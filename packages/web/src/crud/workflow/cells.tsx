import { Space, Tag } from 'antd'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { DateTimeCell } from '../kinds/cells'
import type { CellProps, CellRenderer } from '../kinds/types'

/** A due time, and "Overdue" in red while the row is past it in a state that is not final (the server's `overdue`). */
export function DueCell(props: CellProps) {
  const { t } = useTranslation()
  return (
    <Space size={4}>
      <DateTimeCell {...props} />
      {props.row.overdue === true && (
        <Tag color="error" data-testid="overdue-tag">
          {t('crud.overdue')}
        </Tag>
      )}
    </Space>
  )
}

/** The cells a definition's transitions bring to the list and the details: its deadline field's. */
export function workflowCells(e: ResolvedEntity): Record<string, CellRenderer> {
  const deadline = e.transitions?.deadline
  return deadline ? { [deadline.field]: (props) => <DueCell {...props} /> } : {}
}
