import type { DashboardAnswer } from '@velo/shared'
import { addDays, dayOf } from '../src/modules/dashboard/query'
import { refreshRollups } from '../src/modules/dashboard/rollups'
import { limitedUser, type TestApp } from './harness'

// Small hand-made data sets for the dashboards' tests: facts written as the app writes them (rows),
// on days counted back from today, since the dashboards answer for the server's real "now".

export const today = dayOf(new Date())
/** The day n days before today. */
export const ago = (n: number) => addDays(today, -n)
/** A time on the day n days before today (UTC), at the given hour. */
export const at = (n: number, hour = 10) => `${ago(n)}T${String(hour).padStart(2, '0')}:00:00.000Z`

export function fixtures(t: Pick<TestApp, 'app' | 'call'>) {
  const db = () => t.app.services.db
  let serial = 0
  const next = () => `${Date.now().toString(36)}${++serial}`
  return {
    db,
    /** A country of its own (two letters unused by the seed), so a test's figures are its own. */
    async country(): Promise<number> {
      for (;;) {
        const code = `${String.fromCharCode(81 + Math.floor(Math.random() * 10))}${String.fromCharCode(65 + Math.floor(Math.random() * 26))}`
        const taken = await db().selectFrom('sysCountry').select('countryId').where('code', '=', code).executeTakeFirst()
        if (taken) continue
        const row = await db()
          .insertInto('sysCountry')
          .values({ code, name: `Test ${code}`, nameEn: `Test ${code}`, timeZone: 'UTC', status: '0', createBy: 'test', createTime: new Date().toISOString() })
          .returning('countryId')
          .executeTakeFirstOrThrow()
        return Number(row.countryId)
      }
    },
    async member(o: { countryId: number | null; createTime: string }): Promise<number> {
      const row = await db()
        .insertInto('memMember')
        .values({ email: `dash${next()}@example.com`, countryId: o.countryId, createBy: 'app', createTime: o.createTime })
        .returning('memberId')
        .executeTakeFirstOrThrow()
      return Number(row.memberId)
    },
    async ride(memberId: number, uploadTime: string, distance = 5): Promise<void> {
      await db().insertInto('memRide').values({ memberId, uploadTime, distance }).execute()
    },
    async event(memberId: number, o: { code?: string; time: string; platform?: 'ios' | 'android'; appVersion?: string; sessionId?: string; value?: number | null }): Promise<void> {
      await db()
        .insertInto('dashTrackingEvent')
        .values({
          memberId,
          code: o.code ?? 'ride.start',
          sessionId: o.sessionId ?? next(),
          platform: o.platform ?? 'ios',
          appVersion: o.appVersion ?? '1.0.0',
          value: o.value ?? null,
          eventTime: o.time,
          receiveTime: o.time,
        })
        .execute()
    },
    async upload(memberId: number | null, o: { time: string; platform?: 'ios' | 'android'; appVersion?: string; logType?: 'crash' | 'log' }): Promise<void> {
      await db()
        .insertInto('monAppUploadLog')
        .values({ memberId, logType: o.logType ?? 'crash', platform: o.platform ?? 'ios', appVersion: o.appVersion ?? '1.0.0', uploadTime: o.time })
        .execute()
    },
    refresh: () => refreshRollups(db(), t.app.services.dialect),
    /** A user whose role sees only its own department, whose region is `countryIds`. */
    async regional(userName: string, countryIds: number[], perms: string[]) {
      const dept = await db()
        .insertInto('sysDept')
        .values({ parentId: 0, ancestors: '0', deptName: `Region ${userName}`, orderNum: 1, createBy: 'test', createTime: new Date().toISOString() })
        .returning('deptId')
        .executeTakeFirstOrThrow()
      const deptId = Number(dept.deptId)
      for (const countryId of countryIds) await db().insertInto('sysDeptCountry').values({ deptId, countryId }).execute()
      return limitedUser(t as TestApp, { userName, perms, dataScope: '3', dept: `Region ${userName}` })
    },
  }
}

/** GET /analytics/{key}: the answer's figures by key. */
export async function dashboard(t: Pick<TestApp, 'call'>, key: string, query: Record<string, string | number>, token: string, lang?: 'en_US' | 'zh_CN') {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()
  const res = await t.call<DashboardAnswer>({ url: `/api/analytics/${key}?${qs}`, token, lang })
  const figures = Object.fromEntries((res.data?.figures ?? []).map((f) => [f.key, f]))
  return { ...res, figures }
}
