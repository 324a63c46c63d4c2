import { SYSTEM_SETTINGS } from './owners'
import { defineEntity } from '../entity/define'
import { createTime, idField, remark } from './common-fields'

// System › Single sign-on groups, in a module of its own rather than system.ts: the console's first
// chunk carries the system area's definitions (System › Users is its budgeted first page,
// web/e2e/bundle.spec.ts), and this page's definition loads only with this page.

/**
 * Single sign-on (OpenID Connect, server platform/auth/sso): a group the identity provider names in
 * its groups claim gives its members a role. Each mapping is a grant: written only by someone who
 * may give the role, with a second proof.
 */
export const ssoGroup = defineEntity({
  key: 'ssoGroup',
  table: 'sysSsoGroupRole',
  path: '/system/ssoGroup',
  permission: 'system:ssoGroup',
  label: { en_US: 'Single sign-on groups', zh_CN: '单点登录组映射' },
  singular: { en_US: 'group mapping', zh_CN: '组映射' },
  idField: 'mappingId',
  labelField: 'groupName',
  defaultSort: { field: 'groupName', order: 'asc' },
  scope: SYSTEM_SETTINGS,
  // No import: each row is a grant, checked and confirmed with a second proof one by one.
  operations: ['list', 'get', 'add', 'edit', 'remove', 'export'],
  // A group gives a role once; it may give several roles.
  storage: { indexes: [{ columns: ['groupName', 'roleId'], unique: true }] },
  fields: [
    idField('mappingId'),
    {
      name: 'groupName',
      kind: 'text',
      label: { en_US: 'Group', zh_CN: '组' },
      required: true,
      max: 128,
      search: 'like',
      sort: true,
      help: {
        en_US: "Exactly as the identity provider writes it in the groups claim: a group name (Keycloak without the full path), or a group's object ID (Microsoft Entra ID)",
        zh_CN: '与身份提供方在 groups 声明中写的完全一致：组名（Keycloak 关闭完整路径），或组的对象 ID（Microsoft Entra ID）',
      },
    },
    { name: 'roleId', kind: 'reference', entity: 'role', label: { en_US: 'Role', zh_CN: '角色' }, required: true, search: 'eq' },
    remark,
    createTime,
  ],
})
