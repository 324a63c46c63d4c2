import iot from '../iot/texts.en_US'

// OTA's texts in English, loaded with the pages under this folder (routes/pageTexts.ts) rather than with the console. texts.zh_CN.ts has the same keys (the type checks it).

const texts = {
  'ota.part.tab.supplier': 'Suppliers',
  'ota.part.tab.product': 'Products',
  'ota.part.tab.firmware': 'Firmware',
  'ota.part.tab.upgrade': 'Upgrades',
  'ota.upgrade.liveView': 'Live view',
  'ota.upgrade.drawerTitle': 'Upgrade campaign: {{name}}',
  'ota.upgrade.tabLive': 'Live view',
  'ota.upgrade.tabDetails': 'Details and history',
  'ota.upgrade.loadFailed': 'The live view could not be loaded',
  'ota.upgrade.retry': 'Try again',
  'ota.upgrade.total': '{{total}} devices',
  'ota.upgrade.noDevices': 'No devices yet: the targets are picked when the campaign starts',
  'ota.upgrade.pausedTitle': 'The campaign is paused',
  'ota.upgrade.waves': 'Waves',
  'ota.upgrade.canary': 'Canary',
  'ota.upgrade.wave': 'Wave {{n}}',
  'ota.upgrade.waveStatus.waiting': 'Waiting',
  'ota.upgrade.waveStatus.running': 'Running',
  'ota.upgrade.waveStatus.passed': 'Passed',
  'ota.upgrade.waveStatus.stopped': 'Stopped the campaign',
  'ota.upgrade.waveCounts': '{{succeeded}} succeeded, {{failed}} failed, {{active}} in progress, {{queued}} queued of {{total}}',
  'ota.upgrade.timeline': 'States over time',
  'ota.upgrade.noTimeline': 'Nothing to draw until the campaign starts',
  'ota.upgrade.band.queued': 'Queued or held',
  'ota.upgrade.band.active': 'In progress',
  'ota.upgrade.band.succeeded': 'Succeeded',
  'ota.upgrade.band.failed': 'Failed, rolled back or timed out',
  'ota.upgrade.band.rejected': 'Rejected by the device',
  'ota.upgrade.band.cancelled': 'Cancelled',
  'ota.upgrade.band.skipped': 'Skipped',
  'ota.upgrade.finishedTitle': 'The campaign has finished',
  'ota.upgrade.finishedSummary': '{{succeeded}} succeeded, {{failed}} failed, {{rolledBack}} rolled back, {{skipped}} skipped, {{cancelled}} cancelled',
  'ota.upgrade.failedDevices': 'Failed devices',
  'ota.upgrade.noFailures': 'No device has failed',
  'ota.upgrade.showDevices': 'Every device of the campaign',
}

export type TextKey = keyof typeof texts
// OTA's pages show IoT's parts (the live indicator, a campaign's device drawer), so IoT's texts come with them.
export default { ...iot, ...texts }
