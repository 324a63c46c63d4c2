import type { FieldDef } from '../entity/types'

// Literal (`as const`), not widened to FieldDef: a definition's row type (RowOf) reads their names and kinds.

/** Fields every audited table has; readOnly ones are set by the server. */
export const createTime = {
  name: 'createTime',
  kind: 'datetime',
  label: { en_US: 'Created', zh_CN: '创建时间' },
  readOnly: true,
  // Always set by the server: the column is NOT NULL.
  required: true,
  search: 'range',
  sort: true,
} as const satisfies FieldDef
export const remark = {
  name: 'remark',
  kind: 'longText',
  label: { en_US: 'Remark', zh_CN: '备注' },
  max: 500,
  list: false,
} as const satisfies FieldDef
export const status = {
  name: 'status',
  kind: 'dict',
  dict: 'sys_normal_disable',
  label: { en_US: 'Status', zh_CN: '状态' },
  default: '0',
  max: 1,
  search: 'eq',
} as const satisfies FieldDef
export const idField = <N extends string>(name: N) =>
  ({
    name,
    kind: 'number',
    int: true,
    label: { en_US: 'ID', zh_CN: '编号' },
    readOnly: true,
    sort: true,
  }) as const satisfies FieldDef
