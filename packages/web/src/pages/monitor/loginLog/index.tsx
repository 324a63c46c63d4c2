import { useState } from 'react'
import { Button } from 'antd'
import { EyeOutlined, UnlockOutlined } from '@ant-design/icons'
import { systemEntities, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { cleanLoginLog, unlockAccount } from '../../../api/monitor'
import { Access, useAccess } from '../../../session/Access'
import { EntityDetails } from '../../../crud/EntityDetails'
import { EntityListPage } from '../../../crud/EntityListPage'
import { LogCleanButton } from '../LogCleanButton'
import { useFeedback } from '../../../lib/feedback'

const loginLog = systemEntities.loginLog
/** sys_common_status: a failed sign-in, the only kind that can have locked an account. */
const FAILED = '1'
const UNLOCK = 'monitor:logininfor:unlock'

/**
 * The login log: details of an entry, unlocking the account of a failed sign-in (in its row, or the
 * selected row from the toolbar), and clean-up.
 */
export default function LoginLogPage() {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const [shown, setShown] = useState<number>()
  const mayQuery = useAccess({ permissions: [`${loginLog.permission}:query`] })
  const mayUnlock = useAccess({ permissions: [UNLOCK] })

  const unlock = (row: ApiRowOf<typeof loginLog>) => {
    const { userName } = row
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('log.unlockConfirm', { name: userName }),
      onOk: async () => {
        try {
          await unlockAccount(userName)
          void message.success(t('log.unlocked', { name: userName }))
        } catch {
          // The client showed why (no such account).
        }
      },
    })
  }

  return (
    <>
      <EntityListPage
        entity={loginLog}
        rowActions={(row) => [
          mayQuery && { key: 'details', label: t('crud.details'), icon: <EyeOutlined />, onClick: () => setShown(row.infoId), testId: 'row-details' },
          mayUnlock && row.status === FAILED && !!row.userName && { key: 'unlock', label: t('log.unlock'), icon: <UnlockOutlined />, onClick: () => unlock(row), testId: 'row-unlock' },
        ]}
        toolbarActions={(list) => (
          <>
            <Access permissions={[UNLOCK]}>
              <Button
                icon={<UnlockOutlined />}
                disabled={list.selectedRows.length !== 1 || !list.selectedRows[0]?.userName}
                onClick={() => unlock(list.selectedRows[0]!)}
                data-testid="log-unlock"
              >
                {t('log.unlock')}
              </Button>
            </Access>
            <LogCleanButton entity={loginLog} clean={cleanLoginLog} />
          </>
        )}
      />
      {shown !== undefined && <EntityDetails entity={loginLog} id={shown} onClose={() => setShown(undefined)} />}
    </>
  )
}
