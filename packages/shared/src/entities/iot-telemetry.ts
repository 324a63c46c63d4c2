import { defineEntity } from '../entity/define'
import { idField } from './common-fields'

/**
 * The telemetry history (issue 17): one row per report a device sent, written by the gateway in
 * batches. 10,000 devices every 30 s make 29 M rows a day, so every read names one device and a
 * time range, answered from the (deviceId, receivedAt) index whatever the table holds; the server refuses
 * a list or export without a device (modules/iot/collections).
 */
export const iotTelemetry = defineEntity({
  key: 'iotTelemetry',
  table: 'iotTelemetry',
  path: '/iot/collection',
  permission: 'iot:collection',
  label: { en_US: 'IoT collections', zh_CN: '数据采集' },
  singular: { en_US: 'telemetry point', zh_CN: '采集数据' },
  idField: 'telemetryId',
  labelField: 'receivedAt',
  defaultSort: { field: 'receivedAt', order: 'desc' },
  scope: { via: 'deviceId' },
  // Positions from the time the rider had the bike; speed, battery and odometer stay for the fleet's statistics.
  rider: { by: { device: 'deviceId', since: 'receivedAt' }, erase: 'anonymise' },
  operations: ['list', 'get', 'export'],
  storage: {
    audited: false,
    indexes: [
      { name: 'iot_telemetry_device_received', columns: ['deviceId', 'receivedAt'] },
      // The retention sweep deletes by age across all devices.
      { name: 'iot_telemetry_received', columns: ['receivedAt'] },
    ],
  },
  fields: [
    idField('telemetryId'),
    { name: 'deviceId', kind: 'reference', entity: 'iotDevice', label: { en_US: 'Device', zh_CN: '设备' }, required: true, readOnly: true, search: 'eq' },
    // The server's receive time: device clocks drift and some devices have none.
    { name: 'receivedAt', kind: 'datetime', label: { en_US: 'Time', zh_CN: '时间' }, required: true, readOnly: true, search: 'range', sort: true },
    { name: 'deviceTime', kind: 'datetime', label: { en_US: 'Device time', zh_CN: '设备时间' }, readOnly: true, list: false },
    { name: 'battery', kind: 'number', label: { en_US: 'Battery %', zh_CN: '电量%' }, readOnly: true },
    { name: 'speed', kind: 'number', label: { en_US: 'Speed (km/h)', zh_CN: '速度(km/h)' }, readOnly: true },
    { name: 'latitude', kind: 'number', label: { en_US: 'Latitude', zh_CN: '纬度' }, readOnly: true, personal: 'location' },
    { name: 'longitude', kind: 'number', label: { en_US: 'Longitude', zh_CN: '经度' }, readOnly: true, personal: 'location' },
    { name: 'satellites', kind: 'number', int: true, label: { en_US: 'Satellites', zh_CN: '卫星数' }, readOnly: true },
    { name: 'signal', kind: 'number', int: true, label: { en_US: 'Signal (dBm)', zh_CN: '信号(dBm)' }, readOnly: true },
    { name: 'odometer', kind: 'number', label: { en_US: 'Odometer (km)', zh_CN: '里程(km)' }, readOnly: true },
    { name: 'locked', kind: 'boolean', label: { en_US: 'Locked', zh_CN: '已锁车' }, readOnly: true },
    { name: 'tilt', kind: 'number', label: { en_US: 'Tilt (°)', zh_CN: '倾角(°)' }, readOnly: true, list: false },
    { name: 'vibration', kind: 'number', label: { en_US: 'Vibration', zh_CN: '震动' }, readOnly: true, list: false },
  ],
})
