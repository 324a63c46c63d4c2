import { defineEntity } from '../entity/define'
import type { EnumOption } from '../entity/types'
import { createTime, idField, remark, status } from './common-fields'

// IoT › Geofences (issue 42 §3): an area drawn on the map, attached to models, countries or devices;
// a device of theirs entering or leaving it raises the 'geofence' warning (server: modules/iot/geofence).

const SHAPE_OPTIONS: readonly EnumOption[] = [
  { value: 'polygon', label: { en_US: 'Polygon', zh_CN: '多边形' }, color: 'blue' },
  { value: 'circle', label: { en_US: 'Circle', zh_CN: '圆形' }, color: 'purple' },
]

const TRIGGER_OPTIONS: readonly EnumOption[] = [
  { value: 'enter', label: { en_US: 'Entering', zh_CN: '进入' }, color: 'orange', description: { en_US: 'Warn when a device comes in; leaving clears the warning', zh_CN: '设备进入时告警；离开时清除告警' } },
  { value: 'exit', label: { en_US: 'Leaving', zh_CN: '离开' }, color: 'red', description: { en_US: 'Warn when a device goes out; coming back clears the warning', zh_CN: '设备离开时告警；返回时清除告警' } },
  { value: 'both', label: { en_US: 'Entering and leaving', zh_CN: '进入和离开' }, color: 'volcano', description: { en_US: 'Warn on either crossing', zh_CN: '进出都告警' } },
]

export const iotGeofence = defineEntity({
  key: 'iotGeofence',
  table: 'iotGeofence',
  path: '/iot/geofence',
  permission: 'iot:geofence',
  label: { en_US: 'Geofences', zh_CN: '电子围栏' },
  singular: { en_US: 'geofence', zh_CN: '电子围栏' },
  idField: 'geofenceId',
  labelField: 'name',
  defaultSort: { field: 'geofenceId', order: 'desc' },
  scope: {
    none: {
      en_US: 'A geofence is a fleet setting (a depot, a market): the warnings it raises are scoped through each device',
      zh_CN: '电子围栏是车队设置（仓库、市场）：其产生的告警按每台设备的数据权限限定',
    },
  },
  fields: [
    idField('geofenceId'),
    { name: 'name', kind: 'text', label: { en_US: 'Name', zh_CN: '名称' }, required: true, unique: true, max: 100, search: 'like', sort: true },
    // Said by the geometry (the server sets it): a drawn circle is a circle.
    { name: 'shape', kind: 'enum', options: SHAPE_OPTIONS, label: { en_US: 'Shape', zh_CN: '形状' }, readOnly: true, required: true, search: 'eq' },
    {
      name: 'geometry',
      kind: 'geometry',
      label: { en_US: 'Area', zh_CN: '区域' },
      required: true,
      list: false,
      help: { en_US: 'Draw a polygon or a circle on the map, or import GeoJSON (a Polygon, a Feature or a collection of one)', zh_CN: '在地图上绘制多边形或圆形，或导入 GeoJSON（Polygon、Feature 或只含一个要素的集合）' },
    },
    { name: 'trigger', kind: 'enum', options: TRIGGER_OPTIONS, label: { en_US: 'Warn on', zh_CN: '触发条件' }, required: true, default: 'exit', search: 'eq' },
    {
      name: 'allDevices',
      kind: 'boolean',
      label: { en_US: 'Every device', zh_CN: '全部设备' },
      default: false,
      help: { en_US: 'On: the whole fleet. Off: only the models, countries and devices chosen below (none chosen: no device)', zh_CN: '开启：整个车队。关闭：仅下方所选的型号、国家和设备（未选择则不适用于任何设备）' },
    },
    { name: 'modelIds', kind: 'referenceMany', entity: 'iotModel', through: { table: 'iotGeofenceModel', from: 'geofenceId', to: 'modelId' }, label: { en_US: 'Models', zh_CN: '型号' }, list: true, when: { field: 'allDevices', is: ['false', ''] } },
    {
      name: 'countryIds',
      kind: 'referenceMany',
      entity: 'country',
      through: { table: 'iotGeofenceCountry', from: 'geofenceId', to: 'countryId' },
      label: { en_US: 'Countries', zh_CN: '国家地区' },
      help: { en_US: "A device's country is its rider's", zh_CN: '设备所属国家为其骑行者的国家' },
      list: true,
      when: { field: 'allDevices', is: ['false', ''] },
    },
    { name: 'deviceIds', kind: 'referenceMany', entity: 'iotDevice', through: { table: 'iotGeofenceDevice', from: 'geofenceId', to: 'deviceId' }, label: { en_US: 'Devices', zh_CN: '设备' }, list: true, when: { field: 'allDevices', is: ['false', ''] } },
    status,
    remark,
    createTime,
  ],
})
