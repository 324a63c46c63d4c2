import { Switch } from 'antd'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import type { Status } from '../../api/system'
import { useAccess } from '../../session/Access'
import { crudKeys } from '../../crud/api/crudApi'
import { OptionsCell } from '../../crud/kinds/cells'
import type { CellProps } from '../../crud/kinds/types'
import { useFeedback } from '../../lib/feedback'

export interface StatusSwitchProps extends CellProps {
  /** Who may flip it; others see the status as a tag. */
  permission: string
  change: (status: Status) => Promise<unknown>
  /** Shown but not switchable (the server refuses it anyway), with the reason as a tooltip. */
  locked?: string
}

/**
 * The status column of users and roles: a switch (on = normal '0') that asks first (SPEC §8) and
 * then calls the entity's changeStatus endpoint. For either entity's rows (a `Row`): the row's name
 * is its definition's label field.
 */
export function StatusSwitch(props: StatusSwitchProps) {
  const { entity, row, value, permission, change, locked } = props
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const name = String(row[entity.labelField] ?? row[entity.idField])
  const statusChange = useMutation({
    mutationFn: (status: Status) => change(status),
    onSuccess: (_answer, status) => {
      void message.success(t(status === '1' ? 'system.disabled' : 'system.enabled', { name }))
      void queryClient.invalidateQueries({ queryKey: crudKeys.all(entity) })
    },
  })
  const allowed = useAccess({ permissions: [permission] })
  if (!allowed) return <OptionsCell {...props} />

  const enabled = value === '0'
  const flip = () =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t(enabled ? 'system.disableConfirm' : 'system.enableConfirm', { name }),
      // Awaited: the confirmation stays open, its OK button loading, until the server has answered.
      onOk: async () => {
        try {
          await statusChange.mutateAsync(enabled ? '1' : '0')
        } catch {
          // The client showed why (e.g. the built-in administrator stays enabled).
        }
      },
    })
  return (
    <span title={locked}>
      <Switch size="small" checked={enabled} loading={statusChange.isPending} disabled={!!locked} onChange={flip} data-testid={`status-switch-${name}`} />
    </span>
  )
}
