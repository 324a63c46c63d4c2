import type { TextKey } from './texts.en_US'

// System › Roles' texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'role.dataScope': '数据权限',
  'role.dataScopeTitle': '“{{name}}”的数据权限',
  'role.dataScopeDepts': '部门',
  'role.scopeExplain.1': '所有页面的全部数据。',
  'role.scopeExplain.2': '下方勾选的部门（及其下级部门）的数据，以及这些部门负责区域（国家/地区）的数据。未设置国家的部门不增加任何国家。',
  'role.scopeExplain.3': '用户本部门及其负责区域（国家/地区）的数据。',
  'role.scopeExplain.4': '用户本部门及其全部下级部门，以及它们负责区域（国家/地区）的数据。',
  'role.scopeExplain.5': '仅限与用户本人相关的数据：本人账号及本人创建的数据。会员、车辆与设备不属于任何员工，均不可见。',
  'role.scopeLimits.dept': '按部门：',
  'role.scopeLimits.country': '按部门负责的国家/地区：',
  'role.scopeLimits.person': '个人数据：',
  'role.scopeLimits.none': '系统设置、产品目录及面向所有市场的内容不受数据权限限制。',
  'role.scopeListSeparator': '、',
  'role.dataScopeDeptsHelp': '勾选一个部门即包含其下所有部门。',
  'role.users': '分配用户',
  'role.usersTitle': '拥有角色“{{name}}”的用户',
  'role.cancelAssignment': '取消授权',
  'role.cancelConfirm': '确认取消 {{names}} 的角色“{{role}}”吗？',
  'role.cancelled': '已取消授权',
}

export default texts
