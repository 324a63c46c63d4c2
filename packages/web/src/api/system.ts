import type { ApiRowOf, Paged, systemEntities } from '@velo/shared'
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
export const changeUserStatus = (userId: number, status: Status) => http.put<ApiRowOf<typeof systemEntities.user>>('/system/user/changeStatus', { userId, status })

export const changeRoleStatus = (roleId: number, status: Status) => http.put<ApiRowOf<typeof systemEntities.role>>('/system/role/changeStatus', { roleId, status })
export const setRoleDataScope = (roleId: number, dataScope: string, deptIds: number[]) =>
  http.put<ApiRowOf<typeof systemEntities.role>>('/system/role/dataScope', { roleId, dataScope, deptIds })

export interface RoleUsersQuery {
  pageNum: number
  pageSize: number
  userName?: string
  phonenumber?: string
}
/** One user holding a role (POST /system/role/{id}/users/list): some of the user's fields, and the department's name. */
export type RoleUser = Pick<ApiRowOf<typeof systemEntities.user>, 'userId' | 'userName' | 'nickName' | 'email' | 'phonenumber' | 'status' | 'deptId' | 'createTime'> & { deptName: string | null }
export const roleUsers = (roleId: number, query: RoleUsersQuery) => http.post<Paged<RoleUser>>(`/system/role/${roleId}/users/list`, query)
export const cancelRoleUsers = (roleId: number, userIds: number[]) => http.put<{ removed: number }>(`/system/role/${roleId}/users/cancel`, { userIds })

export const menuTree = () => http.get<TreeNode[]>('/system/menu/treeselect')
export const deptTree = () => http.get<TreeNode[]>('/system/dept/treeselect')

// Under the entities' crud keys, so a saved menu, department or role refreshes them too.
export const systemKeys = {
  menuTree: ['crud', 'menu', 'treeselect'] as const,
  deptTree: ['crud', 'dept', 'treeselect'] as const,
  roleUsers: (roleId: number, query?: RoleUsersQuery) => ['crud', 'role', 'users', roleId, ...(query ? [query] : [])] as const,
}
