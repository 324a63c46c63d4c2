import iot from '../iot/texts.zh_CN'
import type { TextKey } from './texts.en_US'

// OTA's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'ota.part.tab.supplier': '供应商',
  'ota.part.tab.product': '产品',
  'ota.part.tab.firmware': '固件',
  'ota.part.tab.upgrade': '升级',
  'ota.upgrade.liveView': '实时视图',
  'ota.upgrade.drawerTitle': '升级任务：{{name}}',
  'ota.upgrade.tabLive': '实时视图',
  'ota.upgrade.tabDetails': '详情与记录',
  'ota.upgrade.loadFailed': '实时视图加载失败',
  'ota.upgrade.retry': '重试',
  'ota.upgrade.total': '共 {{total}} 台设备',
  'ota.upgrade.noDevices': '暂无设备：任务开始时按目标选择设备',
  'ota.upgrade.pausedTitle': '任务已暂停',
  'ota.upgrade.waves': '批次',
  'ota.upgrade.canary': '灰度批',
  'ota.upgrade.wave': '第 {{n}} 批',
  'ota.upgrade.waveStatus.waiting': '等待中',
  'ota.upgrade.waveStatus.running': '进行中',
  'ota.upgrade.waveStatus.passed': '已通过',
  'ota.upgrade.waveStatus.stopped': '已使任务暂停',
  'ota.upgrade.waveCounts': '共 {{total}} 台：成功 {{succeeded}}，失败 {{failed}}，进行中 {{active}}，排队 {{queued}}',
  'ota.upgrade.timeline': '状态变化',
  'ota.upgrade.noTimeline': '任务开始后显示',
  'ota.upgrade.band.queued': '排队或暂缓',
  'ota.upgrade.band.active': '进行中',
  'ota.upgrade.band.succeeded': '成功',
  'ota.upgrade.band.failed': '失败、回滚或超时',
  'ota.upgrade.band.rejected': '设备拒绝',
  'ota.upgrade.band.cancelled': '已取消',
  'ota.upgrade.band.skipped': '已跳过',
  'ota.upgrade.finishedTitle': '任务已完成',
  'ota.upgrade.finishedSummary': '成功 {{succeeded}} 台，失败 {{failed}} 台，回滚 {{rolledBack}} 台，跳过 {{skipped}} 台，取消 {{cancelled}} 台',
  'ota.upgrade.failedDevices': '失败设备',
  'ota.upgrade.noFailures': '没有失败的设备',
  'ota.upgrade.showDevices': '查看任务的全部设备',
}

export default { ...iot, ...texts }
