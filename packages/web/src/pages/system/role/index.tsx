import { lazy, Suspense, useState } from 'react'
import { SafetyOutlined, TeamOutlined } from '@ant-design/icons'
import { ADMIN_ROLE, systemEntities, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { changeRoleStatus } from '../../../api/system'
import { useAccess } from '../../../session/Access'
import { EntityListPage } from '../../../crud/EntityListPage'
import { OptionsCell } from '../../../crud/kinds/cells'
import { StatusSwitch } from '../StatusSwitch'
import { MenuTreeInput } from './MenuTreeInput'

// The data scope dialog and the users drawer (antd's form kit, a table of users) load when opened:
// the roles' list needs neither to show its rows.
const DataScopeDialog = lazy(() => import('./DataScopeDialog').then((m) => ({ default: m.DataScopeDialog })))
const RoleUsersDrawer = lazy(() => import('./RoleUsersDrawer').then((m) => ({ default: m.RoleUsersDrawer })))

const role = systemEntities.role

/**
 * Roles: the status switch, the data scope of a role (with the departments of a custom scope), the
 * users holding it, and the form's menu permissions as a tree with translated titles.
 */
export default function RolePage() {
  const { t } = useTranslation()
  const [scoping, setScoping] = useState<ApiRowOf<typeof role> | null>(null)
  const [members, setMembers] = useState<ApiRowOf<typeof role> | null>(null)
  const mayEdit = useAccess({ permissions: ['system:role:edit'] })
  return (
    <>
      <EntityListPage
        entity={role}
        formInputs={{ menuIds: (props) => <MenuTreeInput {...props} /> }}
        cells={{
          status: (props) =>
            props.row.roleKey === ADMIN_ROLE ? (
              <OptionsCell {...props} />
            ) : (
              <StatusSwitch {...props} permission="system:role:edit" change={(status) => changeRoleStatus(props.row.roleId, status)} />
            ),
        }}
        rowActions={(row) => [
          mayEdit && row.roleKey !== ADMIN_ROLE && { key: 'dataScope', label: t('role.dataScope'), icon: <SafetyOutlined />, onClick: () => setScoping(row), testId: 'row-data-scope' },
          { key: 'users', label: t('role.users'), icon: <TeamOutlined />, onClick: () => setMembers(row), testId: 'row-role-users' },
        ]}
      />
      <Suspense fallback={null}>
        {scoping && <DataScopeDialog roleRow={scoping} onClose={() => setScoping(null)} />}
        {members && <RoleUsersDrawer roleRow={members} onClose={() => setMembers(null)} />}
      </Suspense>
    </>
  )
}
