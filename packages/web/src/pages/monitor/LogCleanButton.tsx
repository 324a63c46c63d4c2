import { Button } from 'antd'
import { ClearOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { Access } from '../../session/Access'
import { crudKeys } from '../../crud/api/crudApi'
import { localized } from '../../i18n'
import { useFeedback } from '../../lib/feedback'

/** Deletes every entry of a log after a confirmation (permission '<log>:remove'). */
export function LogCleanButton({ entity, clean }: { entity: ResolvedEntity; clean: () => Promise<{ deleted: number }> }) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const confirm = () =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('log.cleanConfirm', { entity: localized(entity.label) }),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const { deleted } = await clean()
          void message.success(t('log.cleaned', { count: deleted }))
          void queryClient.invalidateQueries({ queryKey: crudKeys.all(entity) })
        } catch {
          // The client showed why.
        }
      },
    })
  return (
    <Access permissions={[`${entity.permission}:remove`]}>
      <Button danger icon={<ClearOutlined />} onClick={confirm} data-testid="log-clean">
        {t('log.clean')}
      </Button>
    </Access>
  )
}
