import type { Db } from '../../db/database'
import type { ClientInfo } from '../client-info'

export const LoginStatus = { success: '0', failure: '1' } as const

export async function writeLoginLog(
  db: Db,
  entry: { userName: string; status: (typeof LoginStatus)[keyof typeof LoginStatus]; msg: string; client: ClientInfo },
) {
  await db
    .insertInto('sysLoginLog')
    .values({
      userName: entry.userName.slice(0, 64),
      ipaddr: entry.client.ipaddr,
      loginLocation: locationOf(entry.client.ipaddr),
      browser: entry.client.browser,
      os: entry.client.os,
      status: entry.status,
      msg: entry.msg.slice(0, 255),
      loginTime: new Date().toISOString(),
    })
    .execute()
}

/** Where a client is, as far as we can tell without a geo database: inside our network or not known. */
export function locationOf(ip: string): string {
  return /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|::ffff:127\.|fc|fd)/.test(ip) ? 'Intranet' : ''
}
