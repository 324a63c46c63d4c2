import { inflateRawSync } from 'node:zlib'
import type { Paged } from '@velo/shared'
import { describe, expect, it } from 'vitest'
import { limitedUser, readWorkbook, snapshot, useTestApp, waitForOperLog } from './harness'

// Members › Members: members sign up in the app, so staff never add or import one; they correct a
// few fields, disable an account and export. The app's password hash (memMember.passwordHash, a
// storage-only column) is never shown: not in the list, a row, an export, nor an operation log.
const t = useTestApp()
const db = () => t.app.services.db
/** Every row of the member tables: what "nothing changed" is checked against. */
const tables = (...names: string[]) => snapshot(t, ...(names as never[]))

// What the app would store: a hash that no answer may carry, unique enough to be searched for.
const HASH = '$argon2id$v=19$m=65536,t=3,p=4$c2VjcmV0U2FsdE1lbWJlcg$HashThatMustNeverLeaveTheServer0123'
const HASH_PART = 'HashThatMustNeverLeaveTheServer'

let serial = 0
async function newMember(values: Record<string, unknown> = {}): Promise<number> {
  const n = ++serial
  const row = await db()
    .insertInto('memMember')
    .values({ email: `rider${n}@example.com`, firstName: 'Ada', lastName: `Rider ${n}`, passwordHash: HASH, createBy: 'app', createTime: new Date().toISOString(), ...values })
    .returning('memberId')
    .executeTakeFirstOrThrow()
  return Number(row.memberId)
}

const storedHash = async (memberId: number) =>
  (await db().selectFrom('memMember').select('passwordHash').where('memberId', '=', memberId).executeTakeFirstOrThrow()).passwordHash

/** The text of every file in a zip (an .xlsx): what any reader of the workbook could see, sheets, shared strings and properties alike. */
function zipTexts(zip: Buffer): string {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  expect(end, 'an .xlsx is a zip').toBeGreaterThan(0)
  const entries = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  const out: string[] = []
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(at + 10)
    const size = zip.readUInt32LE(at + 20)
    const header = zip.readUInt32LE(at + 42)
    const data = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28)
    const bytes = zip.subarray(data, data + size)
    out.push((method === 8 ? inflateRawSync(bytes) : bytes).toString('utf8'))
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return out.join('\n')
}

describe('members', () => {
  it('never show the password hash: not in the list, a row, an export, nor the log of a modify', async () => {
    const memberId = await newMember({ firstName: 'Hashed' })

    const list = await t.call<Paged<{ memberId: number }>>({ method: 'POST', url: '/api/member/member/list', token: t.admin, body: { firstName: 'Hashed' } })
    expect(list.status, list.msg).toBe(200)
    expect(list.data.rows.map((r: { memberId: number }) => r.memberId)).toEqual([memberId])
    expect(list.raw.toString()).not.toContain(HASH_PART)
    expect(list.data.rows[0]).not.toHaveProperty('passwordHash')

    const got = await t.call<{ email: string }>({ url: `/api/member/member/${memberId}`, token: t.admin })
    expect(got.status, got.msg).toBe(200)
    expect(got.data.email).toBe(`rider${serial}@example.com`)
    expect(got.raw.toString()).not.toContain(HASH_PART)
    expect(got.data).not.toHaveProperty('passwordHash')

    const exported = await t.call({ method: 'POST', url: '/api/member/member/export', token: t.admin, body: {} })
    expect(exported.status, exported.msg).toBe(200)
    // The member is in it (so the test reads the right file), its hash is nowhere in it.
    const texts = zipTexts(exported.raw)
    expect(texts).toContain(`rider${serial}@example.com`)
    expect(texts).not.toContain(HASH_PART)
    expect((await readWorkbook(exported.raw)).header.join()).not.toMatch(/password/i)

    const modified = await t.call<{ lastName: string }>({ method: 'PUT', url: '/api/member/member', token: t.admin, body: { memberId, lastName: 'Modified' } })
    expect(modified.status, modified.msg).toBe(200)
    expect(modified.data.lastName).toBe('Modified')
    expect(modified.raw.toString()).not.toContain(HASH_PART)
    // A last name is personal data: the log keeps that it was changed, not to what (privacy-masking.test.ts).
    const log = await waitForOperLog(t, (r) => r.requestMethod === 'PUT' && r.operUrl === '/api/member/member' && r.operParam.includes(`"memberId":${memberId}`) && r.operParam.includes('"lastName":"•••"'))
    expect(log.status).toBe('0')
    expect(JSON.parse(log.jsonResult)).toMatchObject({ status: 200, code: 200, data: { memberId } })
    // No row of the operation log, in any column, holds it.
    const logs = await db().selectFrom('sysOperLog').selectAll().execute()
    expect(JSON.stringify(logs)).not.toContain(HASH_PART)
    // The app's sign-in still works: modifying the member kept its hash.
    expect(await storedHash(memberId)).toBe(HASH)
  })

  it('leave the operation log the request and the outcome of a correction and an export, never the member’s e-mail, phone or birthday', async () => {
    const email = `logged.rider${serial + 1}@example.com`
    const memberId = await newMember({ email, phone: '+44 20 7946 0018', birthday: '1987-06-05' })

    const corrected = await t.call({ method: 'PUT', url: '/api/member/member', token: t.admin, body: { memberId, phone: '+44 20 7946 0999' } })
    expect(corrected.status, corrected.msg).toBe(200)
    // The answer is the member (the console shows it) ...
    expect(corrected.data).toMatchObject({ memberId, email, phone: '+44 20 7946 0999', birthday: '1987-06-05' })
    const log = await waitForOperLog(t, (r) => r.requestMethod === 'PUT' && r.operUrl === '/api/member/member' && r.operParam.includes(`"memberId":${memberId}`))
    // ... the log keeps the request (a correction of the phone) without the personal value, and the outcome: which member, not who they are.
    expect(JSON.parse(log.operParam)).toEqual({ body: { memberId, phone: '•••' } })
    expect(JSON.parse(log.jsonResult)).toEqual({ status: 200, code: 200, msg: corrected.msg, data: { memberId } })

    const exported = await t.call({ method: 'POST', url: '/api/member/member/export', token: t.admin, body: { email } })
    expect(exported.status, exported.msg).toBe(200)
    expect(zipTexts(exported.raw)).toContain(email)
    const exportLog = await waitForOperLog(t, (r) => r.operUrl === '/api/member/member/export' && r.operParam.includes('"email":"•••"'))
    expect(JSON.parse(exportLog.jsonResult)).toEqual({ status: 200 })

    const logs = JSON.stringify(await db().selectFrom('sysOperLog').select(['operParam', 'jsonResult', 'errorMsg']).execute())
    for (const personal of [email, '7946', '1987-06-05']) expect(logs).not.toContain(personal)
  })

  it('cannot be added or imported by staff: there is no such route', async () => {
    const before = await tables('memMember')
    const body = { email: 'staffmade@example.com', firstName: 'Staff', lastName: 'Made' }
    expect((await t.call({ method: 'POST', url: '/api/member/member', token: t.admin, body })).status).toBe(404)
    // No template either: the path reads as a member's id, and is no number.
    const template = await t.call({ url: '/api/member/member/importTemplate', token: t.admin })
    expect([400, 404]).toContain(template.status)
    expect(String(template.headers['content-type'])).not.toContain('spreadsheetml')
    expect((await t.call({ method: 'POST', url: '/api/member/member/import', token: t.admin, body: {} })).status).toBe(404)
    // Disabled, not deleted: rides, feedback and bikes refer to it.
    expect((await t.call({ method: 'DELETE', url: `/api/member/member/${await newMember()}`, token: t.admin })).status).toBe(404)
    const after = await tables('memMember')
    expect(after.memMember!.length).toBe(before.memMember!.length + 1)
    expect(JSON.stringify(after)).not.toContain('staffmade@example.com')
  })

  it('lets staff correct a few fields and disable the account, never the email, the app’s own fields or the hash', async () => {
    const memberId = await newMember({ phone: '+49 30 1234567' })
    const res = await t.call({
      method: 'PUT',
      url: '/api/member/member',
      token: t.admin,
      body: {
        memberId,
        firstName: 'Grace',
        phone: '+49 30 7654321',
        status: '1',
        // Not the staff's to change: dropped, not stored.
        email: 'taken.over@example.com',
        emailConfirmed: true,
        privacyAgreement: 'agreed',
        passwordHash: 'staff-chosen-hash',
      },
    })
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ firstName: 'Grace', phone: '+49 30 7654321', status: '1', email: `rider${serial}@example.com`, emailConfirmed: false, privacyAgreement: 'disagreed' })
    const stored = await db().selectFrom('memMember').select(['email', 'status', 'emailConfirmed', 'privacyAgreement', 'passwordHash']).where('memberId', '=', memberId).executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ email: `rider${serial}@example.com`, status: '1', privacyAgreement: 'disagreed', passwordHash: HASH })
    expect(Boolean(stored.emailConfirmed)).toBe(false)

    // Disabled accounts are found by their status.
    const disabled = await t.call<Paged<{ memberId: number }>>({ method: 'POST', url: '/api/member/member/list', token: t.admin, body: { status: '1' } })
    expect(disabled.data.rows.map((r: { memberId: number }) => r.memberId)).toContain(memberId)
  })

  it('refuses a bad value (400) and a role without the right to modify (403), changing nothing', async () => {
    const memberId = await newMember()
    const before = await tables('memMember')
    for (const body of [{ height: 400 }, { status: '7' }, { phone: 'call me' }, { firstName: 'x'.repeat(65) }]) {
      const res = await t.call({ method: 'PUT', url: '/api/member/member', token: t.admin, body: { memberId, ...body } })
      expect(res.status, JSON.stringify(body)).toBe(400)
    }
    const reader = await limitedUser(t, { userName: 'memberreader', dataScope: '1', perms: ['member:member:list', 'member:member:query'] })
    const refused = await t.call({ method: 'PUT', url: '/api/member/member', token: reader.token, body: { memberId, status: '1' } })
    expect(refused.status).toBe(403)
    expect(await tables('memMember')).toEqual(before)
  })
})
