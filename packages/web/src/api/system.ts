import type { Paged } from '@velo/shared'
import type { Row } from '../crud/api/crudApi'
import { http } from './http'

// The system area's calls beside the entity routes (users, roles, menus, departments).

export type Status = '0' | '1'

/** One node of GET /system/menu/treeselect or /system/dept/treeselect (titles in the caller's language). */
export interface TreeNode {
  id: number
  label: string
  disabled?: boolean
  children?: TreeNode[]
}

export const resetUserPassword = (userId: number, password: string) => http.put<null>('/system/user/resetPwd', { userId, password })
export const changeUserStatus = (userId: number, status: Status) => http.put<Row>('/system/user/changeStatus', { userId, status })

export const changeRoleStatus = (roleId: number, status: Status) => http.put<Row>('/system/role/changeStatus', { roleId, status })
export const setRoleDataScope = (roleId: number, dataScope: string, deptIds: number[]) =>
  http.put<Row>('/system/role/dataScope', { roleId, dataScope, deptIds })

export interface RoleUsersQuery {
  pageNum: number
  pageSize: number
  userName?: string
  phonenumber?: string
}
export const roleUsers = (roleId: number, query: RoleUsersQuery) => http.post<Paged<Row>>(`/system/role/${roleId}/users/list`, query)
export const cancelRoleUsers = (roleId: number, userIds: number[]) => http.put<{ removed: number }>(`/system/role/${roleId}/users/cancel`, { userIds })

export const menuTree = () => http.get<TreeNode[]>('/system/menu/treeselect')
export const deptTree = () => http.get<TreeNode[]>('/system/dept/treeselect')

// Under the entities' crud keys, so a saved menu, department or role refreshes them too.
export const systemKeys = {
  menuTree: ['crud', 'menu', 'treeselect'] as const,
  deptTree: ['crud', 'dept', 'treeselect'] as const,
  roleUsers: (roleId: number, query?: RoleUsersQuery) => ['crud', 'role', 'users', roleId, ...(query ? [query] : [])] as const,
}
