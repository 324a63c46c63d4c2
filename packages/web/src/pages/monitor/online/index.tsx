import { LogoutOutlined } from '@ant-design/icons'
import { useQueryClient } from '@tanstack/react-query'
import type { ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { forceLogout } from '../../../api/monitor'
import { useAccess } from '../../../session/Access'
import { crudKeys } from '../../../crud/api/crudApi'
import { EntityListPage } from '../../../crud/EntityListPage'
import { onlineSession } from './session'
import { useFeedback } from '../../../lib/feedback'

/** Who is signed in now (search by IP and user name), and force logout of a session (confirmed). */
export default function OnlinePage() {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const mayForce = useAccess({ permissions: ['monitor:online:forceLogout'] })

  const logout = (row: ApiRowOf<typeof onlineSession>) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('online.forceLogoutConfirm', { name: row.userName, ip: row.ipaddr }),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await forceLogout(row.sessionId)
          void message.success(t('online.forcedOut', { name: row.userName }))
          void queryClient.invalidateQueries({ queryKey: crudKeys.all(onlineSession) })
        } catch {
          // The client showed why (the session had ended already).
        }
      },
    })

  return (
    <EntityListPage
      entity={onlineSession}
      rowActions={
        mayForce
          ? (row) => [{ key: 'forceLogout', label: t('online.forceLogout'), icon: <LogoutOutlined />, danger: true, onClick: () => logout(row), testId: 'row-force-logout' }]
          : undefined
      }
    />
  )
}
