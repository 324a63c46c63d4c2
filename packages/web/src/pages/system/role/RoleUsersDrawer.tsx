import { useState, type Key } from 'react'
import { Button, Drawer, Form, Input, Space, Table } from 'antd'
import type { ColumnType } from 'antd/es/table'
import { DisconnectOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons'
import { hashKey, keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { DEFAULT_PAGE_SIZE, systemEntities, type ApiRowOf } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { cancelRoleUsers, roleUsers, systemKeys, type RoleUser, type RoleUsersQuery } from '../../../api/system'
import { useAccess } from '../../../session/Access'
import { crudKeys } from '../../../crud/api/crudApi'
import { DateTimeCell, OptionsCell } from '../../../crud/kinds/cells'
import { ListPager } from '../../../crud/list/ListPager'
import { localized } from '../../../i18n'
import { useFeedback } from '../../../lib/feedback'

const user = systemEntities.user
const label = (name: string) => localized(user.fieldMap.get(name)!.label)

interface Filters {
  userName?: string
  phonenumber?: string
}

/** The users holding a role (in the caller's data scope), paged; the role can be taken away from the selected ones. */
export function RoleUsersDrawer({ roleRow, onClose }: { roleRow: Pick<ApiRowOf<typeof systemEntities.role>, 'roleId' | 'roleName'>; onClose: () => void }) {
  const { t } = useTranslation()
  const { modal, message } = useFeedback()
  const queryClient = useQueryClient()
  const [form] = Form.useForm<Filters>()
  const { roleId } = roleRow
  const [query, setQuery] = useState<RoleUsersQuery>({ pageNum: 1, pageSize: DEFAULT_PAGE_SIZE })
  const [selected, setSelected] = useState<Key[]>([])
  const mayCancel = useAccess({ permissions: ['system:role:edit'] })
  const page = useQuery({ queryKey: systemKeys.roleUsers(roleId, query), queryFn: () => roleUsers(roleId, query), placeholderData: keepPreviousData })
  const rows = page.data?.rows ?? []

  const cancel = (targets: readonly RoleUser[]) =>
    modal.confirm({
      title: t('crud.confirmTitle'),
      content: t('role.cancelConfirm', { names: targets.map((r) => r.userName).join(', '), role: roleRow.roleName }),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await cancelRoleUsers(
            roleId,
            targets.map((r) => r.userId),
          )
          void message.success(t('role.cancelled'))
          setSelected([])
          void queryClient.invalidateQueries({ queryKey: systemKeys.roleUsers(roleId) })
          void queryClient.invalidateQueries({ queryKey: crudKeys.all(user) })
        } catch {
          // The client showed why.
        }
      },
    })

  const statusField = user.fieldMap.get('status')!
  const columns: ColumnType<RoleUser>[] = [
    { key: 'userName', dataIndex: 'userName', title: label('userName') },
    { key: 'nickName', dataIndex: 'nickName', title: label('nickName') },
    { key: 'deptName', dataIndex: 'deptName', title: label('deptId') },
    { key: 'email', dataIndex: 'email', title: label('email') },
    { key: 'phonenumber', dataIndex: 'phonenumber', title: label('phonenumber') },
    { key: 'status', dataIndex: 'status', title: label('status'), render: (value, row) => <OptionsCell entity={user} field={statusField} value={value} row={row} /> },
    { key: 'createTime', dataIndex: 'createTime', title: label('createTime'), render: (value, row) => <DateTimeCell entity={user} field={statusField} value={value} row={row} /> },
    ...(mayCancel
      ? [
          {
            key: 'actions',
            title: t('crud.actions'),
            fixed: 'right' as const,
            align: 'center' as const,
            render: (_: unknown, row: RoleUser) => (
              <Button type="link" size="small" danger icon={<DisconnectOutlined />} onClick={() => cancel([row])} data-testid="role-user-cancel">
                {t('role.cancelAssignment')}
              </Button>
            ),
          },
        ]
      : []),
  ]

  const search = (values: Filters) => {
    const trimmed = Object.fromEntries(Object.entries(values).filter(([, v]) => typeof v === 'string' && v.trim()).map(([k, v]) => [k, (v as string).trim()]))
    setSelected([])
    const next: RoleUsersQuery = { pageNum: 1, pageSize: query.pageSize, ...trimmed }
    // Search always reloads: the same filters keep the query key, so fetch that key again.
    if (hashKey([next]) === hashKey([query])) void page.refetch()
    else setQuery(next)
  }

  return (
    <Drawer open title={t('role.usersTitle', { name: roleRow.roleName })} onClose={onClose} size={900} destroyOnHidden data-testid="role-users">
      <Form<Filters> form={form} layout="inline" className="crud-search" name="role-users-search" onFinish={search}>
        <Form.Item name="userName" label={label('userName')}>
          <Input allowClear placeholder={t('crud.enter', { label: label('userName') })} />
        </Form.Item>
        <Form.Item name="phonenumber" label={label('phonenumber')}>
          <Input allowClear placeholder={t('crud.enter', { label: label('phonenumber') })} />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
              {t('crud.search')}
            </Button>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => {
                form.resetFields()
                search({})
              }}
            >
              {t('crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      {mayCancel && (
        <div className="crud-toolbar">
          <Button danger icon={<DisconnectOutlined />} disabled={selected.length === 0} onClick={() => cancel(rows.filter((r) => selected.includes(r.userId)))} data-testid="role-users-cancel-selected">
            {t('role.cancelAssignment')}
          </Button>
        </div>
      )}
      <Table<RoleUser>
        rowKey="userId"
        size="small"
        loading={page.isFetching}
        dataSource={rows}
        columns={columns}
        pagination={false}
        scroll={{ x: 'max-content' }}
        rowSelection={mayCancel ? { selectedRowKeys: selected, onChange: setSelected } : undefined}
      />
      <ListPager total={page.data?.total ?? 0} pageNum={query.pageNum} pageSize={query.pageSize} onChange={(pageNum, pageSize) => setQuery({ ...query, pageNum, pageSize })} />
    </Drawer>
  )
}
