import { lazy, Suspense, useState } from 'react'
import { KeyOutlined } from '@ant-design/icons'
import { systemEntities, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { changeUserStatus } from '../../../api/system'
import { useAccess } from '../../../session/Access'
import { sessionStore } from '../../../session/sessionStore'
import { EntityListPage } from '../../../crud/EntityListPage'
import { EntityTreePanel } from '../../../crud/EntityTreePanel'
import { StatusSwitch } from '../StatusSwitch'

// Opened from a row, loaded on request: the list's first rows need neither its form nor antd's Typography.
const ResetPasswordDialog = lazy(() => import('./ResetPasswordDialog').then((m) => ({ default: m.ResetPasswordDialog })))

const user = systemEntities.user
type UserRow = ApiRowOf<typeof user>

/** The built-in administrator (user 1, admin) stays enabled, as does the signed-in user: the server refuses both. */
const isBuiltInAdmin = (row: UserRow) => row.userId === 1 || row.userName === 'admin'

/**
 * System users beside the department tree: picking a department lists the users in it and below it
 * (and new users start in it). The status column switches a user on and off; a row resets the
 * password. Roles are picked in the form (from GET /system/role/options).
 */
export default function UserPage() {
  const { t } = useTranslation()
  const [deptId, setDeptId] = useState<unknown>()
  const [resetting, setResetting] = useState<UserRow | null>(null)
  const mayReset = useAccess({ permissions: ['system:user:resetPwd'] })
  const me = sessionStore.use((s) => s.user?.username)
  const lockOf = (row: UserRow) => (isBuiltInAdmin(row) ? t('user.builtInAdmin') : row.userName === me ? t('user.self') : undefined)
  return (
    <>
      <EntityListPage
        entity={user}
        params={deptId === undefined ? undefined : { deptId }}
        search={{ hide: ['deptId'] }}
        left={<EntityTreePanel entity={systemEntities.dept} value={deptId} onChange={setDeptId} />}
        cells={{
          status: (props) => (
            <StatusSwitch
              {...props}
              permission="system:user:edit"
              locked={lockOf(props.row)}
              change={(status) => changeUserStatus(props.row.userId, status)}
            />
          ),
        }}
        // Without the permission there is no row action (and, without modify and delete, no actions column).
        rowActions={
          mayReset
            ? (row) => [{ key: 'resetPwd', label: t('user.resetPwd'), icon: <KeyOutlined />, onClick: () => setResetting(row), testId: 'row-reset-password' }]
            : undefined
        }
      />
      {resetting && (
        <Suspense fallback={null}>
          <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} />
        </Suspense>
      )}
    </>
  )
}
