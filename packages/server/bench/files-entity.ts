import { defineEntity } from '@velo/shared'

/** A firmware-like entity for the upload benchmark: one `file` field taking .bin images up to 1 GB. */
export const benchFirmware = defineEntity({
  key: 'benchFirmware',
  table: 'benchFirmware',
  path: '/bench/firmware',
  permission: 'bench:firmware',
  label: { en_US: 'Bench firmware', zh_CN: '基准固件' },
  idField: 'firmwareId',
  defaultSort: { field: 'firmwareId', order: 'asc' },
  scope: { none: { en_US: 'A test entity', zh_CN: '测试实体' } },
  fields: [
    { name: 'firmwareId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, max: 50 },
    { name: 'image', kind: 'file', accept: ['bin'], maxBytes: 1024 * 1024 * 1024, label: { en_US: 'Image', zh_CN: '镜像' } },
  ],
})
