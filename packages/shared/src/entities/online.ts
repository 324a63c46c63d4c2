import { defineEntity } from '../entity/define'

/**
 * A live session as POST /monitor/online/list answers it. Not a table of the engine: the server
 * lists sessions from the session store and exports them with these columns, and the web's generic
 * list shows them (search by IP and user name, columns, pager, export). It is not in the registry,
 * so no reference, generic route or generic page finds it. No field sorts: the call takes no sort.
 */
export const onlineSession = defineEntity({
  key: 'onlineSession',
  table: 'none',
  path: '/monitor/online',
  permission: 'monitor:online',
  label: { en_US: 'Online users', zh_CN: '在线用户' },
  singular: { en_US: 'session', zh_CN: '在线会话' },
  idField: 'sessionId',
  labelField: 'userName',
  defaultSort: { field: 'sessionId', order: 'asc' },
  // Every list exports (SPEC §1).
  operations: ['list', 'export'],
  fields: [
    // Names a session for force logout; of no use in a file.
    { name: 'sessionId', kind: 'text', label: { en_US: 'Session', zh_CN: '会话编号' }, readOnly: true, list: false, export: false },
    { name: 'userName', kind: 'text', label: { en_US: 'User', zh_CN: '登录名称' }, search: 'like', readOnly: true },
    { name: 'deptName', kind: 'text', label: { en_US: 'Department', zh_CN: '所属部门' }, readOnly: true },
    { name: 'ipaddr', kind: 'text', label: { en_US: 'IP address', zh_CN: '主机' }, search: 'like', readOnly: true },
    { name: 'loginLocation', kind: 'text', label: { en_US: 'Location', zh_CN: '登录地点' }, readOnly: true },
    { name: 'browser', kind: 'text', label: { en_US: 'Browser', zh_CN: '浏览器' }, readOnly: true },
    { name: 'os', kind: 'text', label: { en_US: 'OS', zh_CN: '操作系统' }, readOnly: true },
    { name: 'loginTime', kind: 'datetime', label: { en_US: 'Login time', zh_CN: '登录时间' }, readOnly: true },
    { name: 'lastAccessTime', kind: 'datetime', label: { en_US: 'Last access', zh_CN: '最后访问时间' }, readOnly: true },
  ],
})
