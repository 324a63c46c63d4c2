import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { readWorkbook, type Refusal, useTestApp } from './harness'

// Issue 36: a duration reads as one in the console; a spreadsheet gets the stored number, which it
// can sum and sort, under a header naming the unit, and reads it back under that header or the label.
const t = useTestApp()
const db = () => t.app.services.db

async function rideOf(seconds: number): Promise<void> {
  const member = await db()
    .insertInto('memMember')
    .values({ email: 'duration.rider@example.com', firstName: 'Ada', lastName: 'Rider', passwordHash: 'x', createBy: 'app', createTime: new Date().toISOString() })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  await db()
    .insertInto('memRide')
    .values({ memberId: Number(member.memberId), uploadTime: new Date().toISOString(), distance: 21.5, duration: seconds, avgSpeed: 18, maxSpeed: 31 })
    .execute()
}

const exportOf = (path: string, lang: 'en_US' | 'zh_CN') => t.call({ method: 'POST', url: `/api${path}/export`, token: t.admin, lang, body: {} })

function importFile(path: string, file: Buffer, lang: 'en_US' | 'zh_CN') {
  const form = new FormData()
  form.append('updateSupport', 'true')
  form.append('file', new Blob([file]), 'file.xlsx')
  return t.call({ method: 'POST', url: `/api${path}/import`, token: t.admin, lang, payload: form })
}

describe('durations in Excel', () => {
  it('export the stored number under a header naming the unit, in either language', async () => {
    await rideOf(4320)
    for (const [lang, header] of [
      ['en_US', 'Duration (s)'],
      ['zh_CN', '时长（秒）'],
    ] as const) {
      const res = await exportOf('/member/ride', lang)
      expect(res.status).toBe(200)
      const sheet = await readWorkbook(res.raw)
      const column = sheet.header.indexOf(header)
      expect(column, sheet.header.join(' | ')).toBeGreaterThanOrEqual(0)
      expect(sheet.rows[0]![column]).toBe(4320)
    }
  })

  it('import the column under the header the export writes, the bare label or plain brackets', async () => {
    const added = await t.call<{ versionId: number }>({
      method: 'POST',
      url: '/api/content/appVersion',
      token: t.admin,
      body: { platform: 'android', versionCode: '9.8.7', versionType: 'normal', downloadUrl: 'https://example.com/velo.apk', updateInterval: 24, releaseTime: '2026-11-01T08:00:00.000Z', notesEn: 'Fixes' },
    })
    expect(added.status, added.msg).toBe(200)
    const exported = await exportOf('/content/appVersion', 'zh_CN')
    const sheet = await readWorkbook(exported.raw)
    expect(sheet.header).toContain('更新提醒间隔（小时）')
    for (const [header, hours] of [
      ['更新提醒间隔（小时）', 12],
      ['更新提醒间隔(小时)', 48],
      ['更新提醒间隔', 6],
      ['Update interval (h)', 72],
    ] as const) {
      const wb = new ExcelJS.Workbook()
      await wb.xlsx.load(exported.raw as unknown as ArrayBuffer)
      const ws = wb.worksheets[0]!
      const column = sheet.header.indexOf('更新提醒间隔（小时）') + 1
      ws.getRow(1).getCell(column).value = header
      ws.getRow(2).getCell(column).value = hours
      const res = await importFile('/content/appVersion', Buffer.from(await wb.xlsx.writeBuffer()), 'zh_CN')
      expect(res.status, `${header}: ${res.msg} ${JSON.stringify(res.data)}`).toBe(200)
      const row = await db().selectFrom('cntAppVersion').select('updateInterval').where('versionId', '=', Number(added.data.versionId)).executeTakeFirstOrThrow()
      expect(Number(row.updateInterval), header).toBe(hours)
    }
  })

  it('say a limit with the unit the number is in', async () => {
    const res = await t.call<Refusal>({
      method: 'POST',
      url: '/api/content/appVersion',
      token: t.admin,
      body: { platform: 'android', versionCode: '9.8.8', versionType: 'normal', downloadUrl: 'https://example.com/velo.apk', updateInterval: 9000, releaseTime: '2026-11-01T08:00:00.000Z', notesEn: 'Fixes' },
    })
    expect(res.status).toBe(400)
    expect(res.data.errors).toEqual([{ field: 'updateInterval', message: 'Update interval (h) must be at most 8760' }])
  })
})
