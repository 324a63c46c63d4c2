import type { Insertable } from 'kysely'
import type { UserTable } from '../../db/schema'

/** A complete sys_user row from what the caller knows; the rest takes the defaults of a new account. */
export function newUserRow(u: {
  userName: string
  passwordHash: string
  createBy: string
  nickName?: string
  deptId?: number | null
  email?: string
  phonenumber?: string
  status?: string
  remark?: string
}): Insertable<UserTable> {
  return {
    userName: u.userName,
    nickName: u.nickName ?? u.userName,
    password: u.passwordHash,
    deptId: u.deptId ?? null,
    userType: '00',
    email: u.email ?? '',
    phonenumber: u.phonenumber ?? '',
    sex: '2',
    avatar: '',
    status: u.status ?? '0',
    delFlag: '0',
    loginIp: null,
    loginDate: null,
    failedLogins: 0,
    lockedUntil: null,
    createBy: u.createBy,
    createTime: new Date().toISOString(),
    updateBy: '',
    updateTime: null,
    remark: u.remark ?? '',
  }
}
