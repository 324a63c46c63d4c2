import type { SessionUser } from '@velo/shared'
import type { Db } from '../../db/database'
import { notFound } from '../errors'

export async function loadSessionUser(db: Db, userId: number): Promise<SessionUser> {
  const u = await db
    .selectFrom('sysUser as u')
    .leftJoin('sysDept as d', 'd.deptId', 'u.deptId')
    .select(['u.userId', 'u.userName', 'u.nickName', 'u.avatar', 'u.email', 'u.phonenumber', 'u.sex', 'u.deptId', 'd.deptName', 'u.createTime', 'u.loginIp', 'u.loginDate'])
    .where('u.userId', '=', userId)
    .executeTakeFirst()
  if (!u) throw notFound()
  return {
    userId: u.userId,
    username: u.userName,
    nickName: u.nickName,
    avatar: u.avatar,
    email: u.email,
    phone: u.phonenumber,
    sex: u.sex,
    deptId: u.deptId,
    deptName: u.deptName ?? null,
    createTime: u.createTime,
    loginIp: u.loginIp,
    loginDate: u.loginDate,
  }
}
