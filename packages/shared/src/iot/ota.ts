import type { Label } from '../entity/types'

/**
 * The OTA part of the device protocol, version 2 (docs/iot-protocol.md › OTA): an offer goes down
 * on `down/ota`, the device pulls the image in blocks over MQTT (`up/otaReq` → `down/otaBlock`) or
 * through a signed, expiring HTTPS URL with byte ranges, checks the image's SHA-256, installs it
 * (for a display, BMS or ECU part the IoT module relays it to the part), reboots, and reports each
 * stage on `up/ota`; after the reboot it is on trial until it commits (its self-test passed) or rolls
 * back, and an upgrade has succeeded only at its commit. Shared by the server's rollout, its block
 * server, the simulator and the console.
 */
export const OTA_PROTOCOL = 2

/** The four bike parts that take firmware (SPEC §2 `/ota/{iotpart,displaypart,bmspart,ecupart}`). */
export const OTA_PARTS = ['iot', 'display', 'bms', 'ecu'] as const
export type OtaPart = (typeof OTA_PARTS)[number]
/** The menu segment of each part: `/ota/{menu}/…`. */
export const OTA_PART_MENU: Record<OtaPart, string> = { iot: 'iotpart', display: 'displaypart', bms: 'bmspart', ecu: 'ecupart' }
export const OTA_PART_LABELS: Record<OtaPart, Label> = {
  iot: { en_US: 'IoT module', zh_CN: '物联网模块' },
  display: { en_US: 'Display', zh_CN: '仪表' },
  bms: { en_US: 'BMS battery', zh_CN: 'BMS 电池' },
  ecu: { en_US: 'ECU controller', zh_CN: 'ECU 控制器' },
}

/** What an upgrade carries: a firmware image, or an audio file for the IoT module's speaker. */
export const OTA_PAYLOADS = ['firmware', 'audio'] as const
export type OtaPayloadKind = (typeof OTA_PAYLOADS)[number]

/** Block size of the MQTT transfer: 4 KB by default (AWS IoT OTA's), 1 KB to 64 KB (config key ota.blockBytes). */
export const OTA_BLOCK_BYTES = { default: 4096, min: 1024, max: 65_536 }
/** Blocks a device may ask for in one request (its receive window). */
export const OTA_MAX_BLOCKS_PER_REQUEST = 32

/** A signing key's id: the first 16 hex digits of the SHA-256 of its raw 32-byte Ed25519 public key. */
export const OTA_KEY_ID_PATTERN = /^[0-9a-f]{16}$/
/** A raw 32-byte Ed25519 public key in base64. */
export const OTA_PUBLIC_KEY_PATTERN = /^[A-Za-z0-9+/]{43}=$/
/** A 64-byte Ed25519 signature in base64. */
export const OTA_SIGNATURE_PATTERN = /^[A-Za-z0-9+/]{86}==$/

/**
 * What a device reports on up/ota. accepted/rejected answer the offer; downloading carries a percent;
 * downloaded (every block in, each block's CRC-8 right), verified (the SHA-256 matches), installing,
 * rebooting; failed carries the device's code; aborted answers an abort. After the reboot the A/B
 * contract (docs/iot-protocol.md › Commit or roll back): trial (it runs the new image, its self-test
 * under way, `version` the one it runs), then committed (the self-test passed: the new image is made
 * permanent — the only success) or rolledBack (`code` why; it goes back to the image it ran before).
 */
export const OTA_DEVICE_STAGES = ['accepted', 'rejected', 'downloading', 'downloaded', 'verified', 'installing', 'rebooting', 'trial', 'committed', 'rolledBack', 'failed', 'aborted'] as const
export type OtaDeviceStage = (typeof OTA_DEVICE_STAGES)[number]

/**
 * The commit deadline (seconds) from the reboot into the new image: a campaign's commitSeconds, and a
 * device's own when an offer names none. The server waits OTA_COMMIT_MARGIN_SECONDS more (the device
 * rolling back reboots and reconnects before it can say so) before it counts the upgrade rolled back.
 */
export const OTA_COMMIT_SECONDS = { default: 300, min: 10, max: 3600 }
export const OTA_COMMIT_MARGIN_SECONDS = 120

/**
 * Why an upgrade rolled back (stage rolledBack, code): the self-test failed, no commit within the
 * deadline, the new image did not boot (the bootloader went back by itself). The server adds
 * E_ROLLED_BACK for a device whose status reported its old version while on trial without saying why.
 */
export const OTA_ROLLBACK_CODES = ['E_SELF_TEST', 'E_COMMIT_TIMEOUT', 'E_BOOT', 'E_ROLLED_BACK'] as const

/** Why a device refuses an offer (stage rejected, code). */
export const OTA_REJECT_CODES = ['riding', 'batteryLow', 'simDataLow', 'busy', 'incompatible'] as const


// ---- Server-side states -----------------------------------------------------------------------

/**
 * One device's upgrade in a campaign. queued: waiting for its wave, the rate limit, the window or
 * the device to connect; held: it cannot take it for now (it refused while riding, on a low
 * battery, low SIM data or busy, or its SIM data is low), offered again until the campaign's hold
 * limit, then skipped; notified … rebooting follow the device's
 * reports; trial: it runs the new image, its self-test under way; succeeded only once it commits
 * (docs/ota.md › Commit or roll back); failed, rolledBack (it went back to its old image), timedOut,
 * rejected (a retry may queue it again), cancelled.
 */
export const OTA_DEVICE_STATES = [
  'queued',
  'held',
  'notified',
  'downloading',
  'downloaded',
  'verified',
  'installing',
  'rebooting',
  'trial',
  'succeeded',
  'failed',
  'rolledBack',
  'timedOut',
  'rejected',
  'skipped',
  'cancelled',
] as const
export type OtaDeviceState = (typeof OTA_DEVICE_STATES)[number]
/** The device is working on it (a forced cancel tells it to abort). */
export const OTA_ACTIVE_STATES: readonly OtaDeviceState[] = ['notified', 'downloading', 'downloaded', 'verified', 'installing', 'rebooting', 'trial']
/** Nothing changes after these (unless "retry the failed" queues failed, timed-out and rejected ones again). */
export const OTA_FINAL_STATES: readonly OtaDeviceState[] = ['succeeded', 'failed', 'rolledBack', 'timedOut', 'rejected', 'skipped', 'cancelled']
/** Counted against the campaign's error threshold. */
export const OTA_FAILURE_STATES: readonly OtaDeviceState[] = ['failed', 'rolledBack', 'timedOut']

export const OTA_DEVICE_STATE_OPTIONS: readonly { value: OtaDeviceState; label: Label; color: string }[] = [
  { value: 'queued', label: { en_US: 'Queued', zh_CN: '排队中' }, color: 'default' },
  { value: 'held', label: { en_US: 'Held (riding, battery or SIM data low)', zh_CN: '暂缓（骑行中、电量或流量不足）' }, color: 'warning' },
  { value: 'notified', label: { en_US: 'Notified', zh_CN: '已通知' }, color: 'processing' },
  { value: 'downloading', label: { en_US: 'Downloading', zh_CN: '下载中' }, color: 'processing' },
  { value: 'downloaded', label: { en_US: 'Downloaded', zh_CN: '已下载' }, color: 'processing' },
  { value: 'verified', label: { en_US: 'Verified', zh_CN: '已校验' }, color: 'processing' },
  { value: 'installing', label: { en_US: 'Installing', zh_CN: '安装中' }, color: 'processing' },
  { value: 'rebooting', label: { en_US: 'Rebooting', zh_CN: '重启中' }, color: 'processing' },
  { value: 'trial', label: { en_US: 'On trial (self-test)', zh_CN: '试运行（自检中）' }, color: 'processing' },
  { value: 'succeeded', label: { en_US: 'Succeeded', zh_CN: '成功' }, color: 'success' },
  { value: 'failed', label: { en_US: 'Failed', zh_CN: '失败' }, color: 'error' },
  { value: 'rolledBack', label: { en_US: 'Rolled back', zh_CN: '已回滚' }, color: 'error' },
  { value: 'timedOut', label: { en_US: 'Timed out', zh_CN: '超时' }, color: 'error' },
  { value: 'rejected', label: { en_US: 'Rejected by the device', zh_CN: '设备拒绝' }, color: 'warning' },
  { value: 'skipped', label: { en_US: 'Skipped', zh_CN: '已跳过' }, color: 'default' },
  { value: 'cancelled', label: { en_US: 'Cancelled', zh_CN: '已取消' }, color: 'default' },
]

/** A campaign: drafted, approved by a second person where required, scheduled, running, paused (by hand or by itself), finished or cancelled. */
export const OTA_CAMPAIGN_STATUSES = ['draft', 'awaitingApproval', 'scheduled', 'running', 'paused', 'finished', 'cancelled'] as const
export type OtaCampaignStatus = (typeof OTA_CAMPAIGN_STATUSES)[number]

/** Why a campaign paused itself (pauseReason), besides a person pausing it. */
export const OTA_PAUSE_REASONS = ['manual', 'errorThreshold', 'alarmRate'] as const
export type OtaPauseReason = (typeof OTA_PAUSE_REASONS)[number]

/** Live events of the rollout (GET /ota/stream, server-sent events). */
export interface OtaCampaignEvent {
  type: 'campaign'
  campaignId: number
  part: OtaPart
  status: OtaCampaignStatus
  pauseReason?: string | null
  currentWave: number
  /** Devices per state. */
  counts: Partial<Record<OtaDeviceState, number>>
}
export interface OtaDeviceStateEvent {
  type: 'device'
  campaignId: number
  deviceId: number
  sn: string
  wave: number
  state: OtaDeviceState
  percent?: number | null
  code?: string | null
}
export type OtaEvent = OtaCampaignEvent | OtaDeviceStateEvent

/**
 * A campaign's live view (GET {upgrade path}/{id}/overview): counts per state, each wave's progress,
 * the states over time and the devices that failed.
 */
export interface OtaCampaignOverview {
  campaignId: number
  status: OtaCampaignStatus
  pauseReason: string | null
  currentWave: number
  totalDevices: number
  counts: Partial<Record<OtaDeviceState, number>>
  /** Wave 0 is the canary. waiting: not started; running; passed: reached the success threshold; stopped: paused the campaign. */
  waves: { wave: number; total: number; succeeded: number; failed: number; active: number; queued: number; status: 'waiting' | 'running' | 'passed' | 'stopped' }[]
  /** Devices per state at the end of each bucket (a minute, or longer for long campaigns), oldest first. */
  timeline: { at: string; counts: Partial<Record<OtaDeviceState, number>> }[]
  /** The newest failed, timed-out and rejected devices (at most 100). */
  failed: { upgradeId: number; deviceId: number; sn: string; state: OtaDeviceState; code: string | null; message: string | null; attempt: number; at: string | null }[]
}
