import type { TextKey } from './texts.en_US'

// IoT › Map's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'iot.map.model': '产品型号',
  'iot.map.country': '国家/地区',
  'iot.map.state': '状态',
  'iot.map.firmware': '固件版本',
  'iot.map.reset': '重置',
  'iot.map.shown_one': '显示 {{count}} 台设备',
  'iot.map.shown_other': '显示 {{count}} 台设备',
  'iot.map.byStatus': '在线 {{online}} 台，离线 {{offline}} 台，告警 {{alarm}} 台',
  'iot.map.unlocated_one': '{{count}} 台设备尚未上报位置',
  'iot.map.unlocated_other': '{{count}} 台设备尚未上报位置',
  'iot.map.status.online': '在线',
  'iot.map.status.offline': '离线',
  'iot.map.status.alarm': '告警',
  'iot.map.status.stolen': '已报失窃',
  'iot.map.stolenCount_one': '{{count}} 台已报失窃',
  'iot.map.stolenCount_other': '{{count}} 台已报失窃',
  'iot.map.legend': '图例',
  'iot.map.findSn': '查找 SN',
  'iot.map.listLimited': '仅列出前 {{count}} 台：查找 SN 或筛选以查看其他设备',
  'iot.map.noneListed': '没有符合条件且有位置的设备',
  'iot.map.noPositions': '位置属于骑行者的个人数据',
  'iot.map.noPositionsDetail': '地图显示车辆所在位置，需要“查看位置”权限（角色菜单树中的 会员管理 › 会员列表）。请联系管理员授权。',
  'iot.map.noWebgl': '此浏览器无法绘制地图（不支持所需的网页图形接口）',
  'iot.map.noWebglDetail': '设备及其位置列于下方，并实时跟随其移动。',
  'iot.map.failed': '地图无法绘制：{{reason}}',
  'iot.map.loadFailed': '位置加载失败',
  'iot.map.noDetails': '查看设备详情需要查询设备的权限（设备列表）',
  'iot.map.position': '{{lat}}, {{lng}}',
}

export default texts
