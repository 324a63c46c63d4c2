import { type AlarmSeverity, type NotifiedEvent, NOTIFIED_EVENTS } from '@velo/shared'
import type { Db } from '../../../db/database'

export interface MessageTexts {
  titleEn: string
  textEn: string
  titleZh: string
  textZh: string
  titleDe: string
  textDe: string
  titleNl: string
  textNl: string
  titleFr: string
  textFr: string
}

interface DefaultMessage extends MessageTexts {
  severity: AlarmSeverity
  enabled: boolean
  notifyMember: boolean
  notifyStaff: boolean
}

const m = (
  severity: AlarmSeverity,
  on: { enabled?: boolean; member?: boolean; staff?: boolean },
  [titleEn, textEn]: [string, string],
  [titleZh, textZh]: [string, string],
  [titleDe, textDe]: [string, string],
  [titleNl, textNl]: [string, string],
  [titleFr, textFr]: [string, string],
): DefaultMessage => ({
  severity,
  enabled: on.enabled ?? true,
  notifyMember: on.member ?? true,
  notifyStaff: on.staff ?? false,
  titleEn,
  textEn,
  titleZh,
  textZh,
  titleDe,
  textDe,
  titleNl,
  textNl,
  titleFr,
  textFr,
})

/**
 * What a fresh installation notifies (the seed writes these rows; without a row they apply as
 * they are): the rider hears of what concerns their bike; device state changes are off.
 */
export const DEFAULT_MESSAGES: Record<NotifiedEvent, DefaultMessage> = {
  lowBattery: m(
    'minor',
    {},
    ['Battery low', 'The battery of your bike ({sn}) is low: {detail}. Please charge it soon.'],
    ['电量低', '您的车辆（{sn}）电量低：{detail}。请尽快充电。'],
    ['Akku schwach', 'Der Akku Ihres Rads ({sn}) ist schwach: {detail}. Bitte bald laden.'],
    ['Accu bijna leeg', 'De accu van uw fiets ({sn}) is bijna leeg: {detail}. Laad hem binnenkort op.'],
    ['Batterie faible', 'La batterie de votre vélo ({sn}) est faible : {detail}. Rechargez-la bientôt.'],
  ),
  fall: m(
    'critical',
    { staff: true },
    ['Fall detected', 'Your bike ({sn}) has fallen over at {time}: {detail}.'],
    ['检测到倾倒', '您的车辆（{sn}）于 {time} 倾倒：{detail}。'],
    ['Sturz erkannt', 'Ihr Rad ({sn}) ist um {time} umgefallen: {detail}.'],
    ['Val gedetecteerd', 'Uw fiets ({sn}) is om {time} omgevallen: {detail}.'],
    ['Chute détectée', 'Votre vélo ({sn}) est tombé à {time} : {detail}.'],
  ),
  theft: m(
    'major',
    { staff: true },
    ['Your locked bike is moving', 'Your bike ({sn}) is locked but was moved at {time}: {detail}.'],
    ['锁车状态下检测到震动', '您的车辆（{sn}）处于锁车状态，但在 {time} 检测到移动：{detail}。'],
    ['Ihr abgeschlossenes Rad bewegt sich', 'Ihr Rad ({sn}) ist abgeschlossen, wurde aber um {time} bewegt: {detail}.'],
    ['Uw vergrendelde fiets beweegt', 'Uw fiets ({sn}) is vergrendeld maar werd om {time} bewogen: {detail}.'],
    ['Votre vélo verrouillé bouge', 'Votre vélo ({sn}) est verrouillé mais a été déplacé à {time} : {detail}.'],
  ),
  offline: m(
    'minor',
    { member: false, staff: true },
    ['Device offline', 'Device {sn} has been offline too long: {detail}.'],
    ['设备长时间离线', '设备 {sn} 离线时间过长：{detail}。'],
    ['Gerät offline', 'Gerät {sn} ist zu lange offline: {detail}.'],
    ['Apparaat offline', 'Apparaat {sn} is te lang offline: {detail}.'],
    ['Appareil hors ligne', "L'appareil {sn} est hors ligne depuis trop longtemps : {detail}."],
  ),
  simDataLow: m(
    'warning',
    { member: false, staff: true },
    ['SIM data low', 'The SIM card of device {sn} is running out of data: {detail}.'],
    ['SIM流量不足', '设备 {sn} 的SIM卡流量即将用尽：{detail}。'],
    ['', ''],
    ['', ''],
    ['', ''],
  ),
  fault: m(
    'major',
    { staff: true },
    ['Your bike reported a fault', 'Your bike ({sn}) reported a fault: {detail}. Contact your dealer if it persists.'],
    ['车辆报告故障', '您的车辆（{sn}）报告故障：{detail}。如持续出现请联系经销商。'],
    ['Ihr Rad meldet einen Fehler', 'Ihr Rad ({sn}) meldet einen Fehler: {detail}. Wenden Sie sich an Ihren Händler, wenn er bleibt.'],
    ['Uw fiets meldt een storing', 'Uw fiets ({sn}) meldt een storing: {detail}. Neem contact op met uw dealer als die blijft.'],
    ['Votre vélo signale un défaut', 'Votre vélo ({sn}) signale un défaut : {detail}. Contactez votre revendeur s’il persiste.'],
  ),
  simClash: m(
    'major',
    { member: false, staff: true },
    ['SIM card claimed by two devices', 'Device {sn} reports a SIM card that is linked to another device; the card stays where it is until staff move it (IoT › SIM cards): {detail}.'],
    ['SIM卡被两台设备上报', '设备 {sn} 上报的SIM卡已绑定在另一台设备上；在工作人员改绑之前该卡保持原绑定（IoT › SIM卡管理）：{detail}。'],
    ['', ''],
    ['', ''],
    ['', ''],
  ),
  geofence: m(
    'major',
    { member: false, staff: true },
    ['Geofence', 'Device {sn} {detail}.'],
    ['电子围栏', '设备 {sn} {detail}。'],
    ['Geofence', 'Gerät {sn}: {detail}.'],
    ['Geofence', 'Apparaat {sn}: {detail}.'],
    ['Géorepérage', 'Appareil {sn} : {detail}.'],
  ),
  stolen: m(
    'critical',
    { staff: true },
    ['Your bike is reported stolen', 'Your bike ({sn}) was reported stolen at {time}. We are tracking it more closely until it is recovered: {detail}.'],
    ['您的车辆已报失窃', '您的车辆（{sn}）已于 {time} 报失窃。在找回之前我们将更密集地追踪其位置：{detail}。'],
    ['Ihr Rad ist als gestohlen gemeldet', 'Ihr Rad ({sn}) wurde um {time} als gestohlen gemeldet. Bis es gefunden ist, verfolgen wir es genauer: {detail}.'],
    ['Uw fiets is als gestolen gemeld', 'Uw fiets ({sn}) werd om {time} als gestolen gemeld. Tot hij terug is volgen we hem nauwkeuriger: {detail}.'],
    ['Votre vélo est déclaré volé', 'Votre vélo ({sn}) a été déclaré volé à {time}. Nous le suivons de plus près jusqu’à ce qu’il soit retrouvé : {detail}.'],
  ),
  deviceOnline: m(
    'warning',
    { enabled: false, member: false, staff: true },
    ['Device online', 'Device {sn} is online ({time}).'],
    ['设备上线', '设备 {sn} 已上线（{time}）。'],
    ['', ''],
    ['', ''],
    ['', ''],
  ),
  deviceOffline: m(
    'warning',
    { enabled: false, member: false, staff: true },
    ['Device offline', 'Device {sn} went offline ({time}).'],
    ['设备离线', '设备 {sn} 已离线（{time}）。'],
    ['', ''],
    ['', ''],
    ['', ''],
  ),
}

// SQLite binds no booleans; PostgreSQL reads 1 and 0 as true and false.
const flags = (d: DefaultMessage) => ({ enabled: d.enabled ? 1 : 0, notifyMember: d.notifyMember ? 1 : 0, notifyStaff: d.notifyStaff ? 1 : 0 })

/**
 * Writes the default message configuration of each event that has none (seed step 8: databases
 * seeded before issue 17 get them too). Idempotent: an existing row, changed or not, is kept.
 */
export async function seedMessageConfigs(db: Db) {
  const now = new Date().toISOString()
  for (const eventType of NOTIFIED_EVENTS) {
    await db
      .insertInto('iotMessageConfig')
      .values({ eventType, ...DEFAULT_MESSAGES[eventType], ...flags(DEFAULT_MESSAGES[eventType]), staffEmails: '', remark: '', createBy: 'system', createTime: now })
      .onConflict((oc) => oc.column('eventType').doNothing())
      .execute()
  }
}
