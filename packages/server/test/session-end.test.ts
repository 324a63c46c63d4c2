import { describe, expect, it } from 'vitest'
import { addUser, limitedUser, useTestApp } from './harness'
import { openStream } from './iot-helpers'

const t = useTestApp()
const userInfo = (token: string) => t.call({ url: '/api/getUserInfo', token })
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))])

describe('changing one’s own password', () => {
  it('ends the user’s other sessions and keeps the one that changed it', async () => {
    await addUser(t, { userName: 'rotator1', password: 'secret12' })
    const laptop = await t.login('rotator1', 'secret12')
    const stolen = await t.login('rotator1', 'secret12')
    const res = await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token: laptop, body: { oldPassword: 'secret12', newPassword: 'better12' } })
    expect(res.code).toBe(200)
    expect((await userInfo(stolen)).code).toBe(50008)
    expect((await userInfo(laptop)).code).toBe(200)
  })
})

describe('a live event stream', () => {
  const streamOf = async (token: string) => {
    const stream = await openStream(t.app, '/api/iot/stream', token)
    expect(stream.status).toBe(200)
    return stream
  }

  it('ends when its session is signed out', async () => {
    const token = await t.login()
    const stream = await streamOf(token)
    expect(await within(stream.ended, 300)).toBe(false)
    await t.call({ method: 'POST', url: '/api/logout', token })
    expect(await within(stream.ended, 6000)).toBe(true)
  })

  it('ends when another session changes the password', async () => {
    const watcher = await limitedUser(t, { userName: 'watcher1', perms: ['iot:device:list'], dataScope: '5' })
    const stream = await streamOf(watcher.token)
    const other = await t.login('watcher1', 'secret12')
    await t.call({ method: 'PUT', url: '/api/system/user/profile/updatePwd', token: other, body: { oldPassword: 'secret12', newPassword: 'better12' } })
    expect(await within(stream.ended, 6000)).toBe(true)
  })

  it('ends when the user loses the right to it', async () => {
    const watcher = await limitedUser(t, { userName: 'watcher2', perms: ['iot:device:list'], dataScope: '5' })
    const stream = await streamOf(watcher.token)
    expect(await within(stream.ended, 300)).toBe(false)
    await t.app.services.db.deleteFrom('sysRoleMenu').where('roleId', '=', watcher.roleId).execute()
    expect(await within(stream.ended, 6000)).toBe(true)
  })
})
