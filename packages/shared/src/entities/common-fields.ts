import type { FieldDef } from '../entity/types'

/** Fields every audited table has; readOnly ones are set by the server. */
export const createTime: FieldDef = {
  name: 'createTime',
  kind: 'datetime',
  label: { en_US: 'Created', zh_CN: '创建时间' },
  readOnly: true,
  search: 'range',
  sort: true,
}
export const remark: FieldDef = {
  name: 'remark',
  kind: 'longText',
  label: { en_US: 'Remark', zh_CN: '备注' },
  max: 500,
  list: false,
}
export const status: FieldDef = {
  name: 'status',
  kind: 'dict',
  dict: 'sys_normal_disable',
  label: { en_US: 'Status', zh_CN: '状态' },
  default: '0',
  search: 'eq',
}
export const idField = (name: string): FieldDef => ({
  name,
  kind: 'number',
  int: true,
  label: { en_US: 'ID', zh_CN: '编号' },
  readOnly: true,
  sort: true,
})
