// IoT › Map's texts in English, loaded with the map page (routes/pageTexts.ts). texts.zh_CN.ts has the same keys (the type checks it).

const texts = {
  'iot.map.model': 'Product model',
  'iot.map.country': 'Country / region',
  'iot.map.state': 'State',
  'iot.map.firmware': 'Firmware version',
  'iot.map.reset': 'Reset',
  'iot.map.shown_one': '{{count}} device shown',
  'iot.map.shown_other': '{{count}} devices shown',
  'iot.map.byStatus': '{{online}} online, {{offline}} offline, {{alarm}} with warnings',
  'iot.map.unlocated_one': '{{count}} device has reported no position yet',
  'iot.map.unlocated_other': '{{count}} devices have reported no position yet',
  'iot.map.status.online': 'Online',
  'iot.map.status.offline': 'Offline',
  'iot.map.status.alarm': 'Warning',
  'iot.map.status.stolen': 'Reported stolen',
  'iot.map.stolenCount_one': '{{count}} reported stolen',
  'iot.map.stolenCount_other': '{{count}} reported stolen',
  'iot.map.legend': 'Legend',
  'iot.map.findSn': 'Find an SN',
  'iot.map.listLimited': 'The first {{count}} are listed: find an SN or filter for others',
  'iot.map.noneListed': 'No device with a position matches',
  'iot.map.noPositions': 'Positions are personal data of the riders',
  'iot.map.noPositionsDetail': 'The map shows where bikes are, so it needs the right "See positions" (Members › Members in the role tree). Ask an administrator to grant it.',
  'iot.map.noWebgl': 'This browser cannot draw the map (it has no WebGL 2)',
  'iot.map.noWebglDetail': 'The devices and their positions are listed below, and follow their moves live.',
  'iot.map.failed': 'The map could not be drawn: {{reason}}',
  'iot.map.loadFailed': 'The positions could not be loaded',
  'iot.map.noDetails': 'Opening a device needs the right to query devices (IoT list)',
  'iot.map.position': '{{lat}}, {{lng}}',
}

export type TextKey = keyof typeof texts
export default texts
