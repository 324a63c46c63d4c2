import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { defineEntity, registerEntities } from '@velo/shared'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerEntityRoutes } from '../src/platform/crud/routes'
import { Crc8, crc8, CRC8_VARIANTS, type Crc8Variant } from '../src/platform/files/crc8'
import { createTestApp, deptId, limitedUser, multipart, type MultipartPart, type TestApp } from './harness'

// A module with files: a definition whose `file` fields get their upload and download routes from
// the engine, on its own table, with a data scope so downloads keep to the caller's departments.
const doc = defineEntity({
  key: 'testDoc',
  // Its table (made by hand below) has no audit columns.
  storage: { audited: false },
  table: 'testDoc',
  path: '/test/doc',
  permission: 'test:doc',
  label: { en_US: 'Documents', zh_CN: '文档' },
  idField: 'docId',
  labelField: 'title',
  defaultSort: { field: 'docId', order: 'asc' },
  dataScope: { deptField: 'deptId' },
  fields: [
    { name: 'docId', kind: 'number', int: true, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'title', kind: 'text', label: { en_US: 'Title', zh_CN: '标题' }, required: true, max: 50 },
    { name: 'deptId', kind: 'reference', entity: 'dept', label: { en_US: 'Department', zh_CN: '部门' } },
    { name: 'manual', kind: 'file', accept: ['pdf'], label: { en_US: 'Manual', zh_CN: '说明书' } },
    { name: 'photo', kind: 'file', accept: ['png', 'jpg'], maxBytes: 4096, label: { en_US: 'Photo', zh_CN: '照片' } },
    { name: 'video', kind: 'file', accept: ['mp4', 'mov'], label: { en_US: 'Video', zh_CN: '视频' } },
    { name: 'firmware', kind: 'file', accept: ['bin'], label: { en_US: 'Firmware', zh_CN: '固件' } },
  ],
})
registerEntities(doc)

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
/** A PDF followed by enough bytes to cross the sniffing window and several stream chunks. */
const pdf = (bytes = 300_000) => Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n', 'latin1'), randomBytes(bytes)])
const box = (type: string, body: Buffer) => {
  const b = Buffer.alloc(8 + body.length)
  b.writeUInt32BE(8 + body.length)
  b.write(type, 4, 'latin1')
  body.copy(b, 8)
  return b
}
/** An ISO media file head (ftyp + mdat) with the given major brand: 'isom' is MP4, 'qt  ' QuickTime. */
const isoMedia = (brand: string) => Buffer.concat([box('ftyp', Buffer.from(`${brand}\0\0\0\0${brand}mp41`, 'latin1')), box('mdat', randomBytes(20_000))])


/** CRC-8 bit by bit, straight from the catalogue's definition: what the table-driven one must equal. */
function crc8Bitwise(v: Crc8Variant, bytes: Uint8Array): number {
  const reflect = (x: number, width: number) => {
    let r = 0
    for (let i = 0; i < width; i++) if (x & (1 << i)) r |= 1 << (width - 1 - i)
    return r
  }
  let crc = v.init
  for (const byte of bytes) {
    crc ^= v.reflect ? reflect(byte, 8) : byte
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ v.poly) & 0xff : (crc << 1) & 0xff
  }
  return (v.reflect ? reflect(crc, 8) : crc) ^ v.xorout
}

describe('CRC-8', () => {
  const check = Buffer.from('123456789', 'ascii')

  it.each(Object.values(CRC8_VARIANTS))('$name gives the catalogue check value for "123456789"', (v) => {
    expect(crc8(check, v)).toBe(v.check)
    expect(crc8Bitwise(v, check)).toBe(v.check)
  })

  it('CRC-8/SMBUS is the default, 0xF4 as "F4"', () => {
    expect(new Crc8().variant.name).toBe('CRC-8/SMBUS')
    expect(new Crc8().update(check).hex()).toBe('F4')
    expect(new Crc8().hex()).toBe('00')
  })

  it('gives the same value fed in chunks of any size as in one piece, and the bitwise reference on random data', () => {
    const data = randomBytes(100_003)
    for (const v of Object.values(CRC8_VARIANTS)) {
      const whole = crc8(data, v)
      const running = new Crc8(v)
      for (let i = 0; i < data.length; i += 7919) running.update(data.subarray(i, i + 7919))
      expect(running.digest()).toBe(whole)
      expect(crc8Bitwise(v, data.subarray(0, 5000))).toBe(crc8(data.subarray(0, 5000), v))
    }
  })
})

let t: TestApp
let admin: string
let storageDir: string
const db = () => t.app.services.db as unknown as Kysely<any>

beforeAll(async () => {
  t = await createTestApp({}, {
    modules: async (api, services) => {
      const raw = services.db.withoutPlugins()
      const pk = services.dialect === 'postgres' ? 'bigserial primary key' : 'integer primary key autoincrement'
      await sql`create table test_doc (doc_id ${sql.raw(pk)}, title varchar(50) not null, dept_id bigint,
        manual varchar(255), photo varchar(255), video varchar(255), firmware varchar(255))`.execute(raw)
      registerEntityRoutes(api, services, doc)
    },
  })
  admin = await t.login()
  storageDir = t.app.services.config.storageDir
  // Button rows for the test entity's rights, so roles can be granted them as the seeded ones are.
  const now = new Date().toISOString()
  for (const action of ['list', 'query', 'add', 'edit']) {
    await t.app.services.db
      .insertInto('sysMenu')
      .values({ menuName: `doc ${action}`, parentId: 0, orderNum: 1, path: '', component: '', query: '', isFrame: '1', isCache: '0', noClose: '0', menuType: 'F', visible: '0', status: '0', perms: `test:doc:${action}`, icon: '#', createBy: 'test', createTime: now, updateBy: '', updateTime: null, remark: '' })
      .execute()
  }
})
afterAll(() => t.close())

/** Every file under STORAGE_DIR, relative to it. */
function storedFiles(): string[] {
  if (!existsSync(storageDir)) return []
  return (readdirSync(storageDir, { recursive: true }) as string[]).filter((f) => statSync(join(storageDir, f)).isFile()).sort()
}
const fileRows = () => db().selectFrom('sysFile').selectAll().orderBy('fileId').execute()

function upload(field: string, parts: MultipartPart[], o: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) {
  return t.call({ method: 'POST', url: `/api/test/doc/file/${field}`, token: o.token ?? admin, lang: o.lang, ...multipart(parts) })
}
const uploadOne = (field: string, name: string, bytes: Buffer, o: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) => upload(field, [{ name, bytes }], o)
const download = (field: string, fileName: string, token = admin) => t.call({ url: `/api/test/doc/file/${field}/${fileName}`, token })

/** A refused upload: the status and message, and neither a stored file nor a row nor a temporary file left. */
async function expectRefused(res: Awaited<ReturnType<typeof upload>>, status: number, msg: string | RegExp, before: { files: string[]; rows: unknown[] }) {
  expect(res.status, res.msg).toBe(status)
  expect(res.msg).toMatch(msg)
  expect(storedFiles()).toEqual(before.files)
  expect(await fileRows()).toEqual(before.rows)
}
const state = async () => ({ files: storedFiles(), rows: await fileRows() })

describe('POST {path}/file/{field}', () => {
  it('streams an accepted file to storage and answers its stored name with digests equal to node:crypto and the reference CRC', async () => {
    const bytes = pdf()
    const res = await uploadOne('manual', 'Service manual v2.pdf', bytes)
    expect(res.status, res.msg).toBe(200)
    const answer = res.data
    expect(answer.fileName).toMatch(/^file\/testDoc\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f-]{36}\.pdf$/)
    expect(answer).toEqual({
      fileName: answer.fileName,
      originalName: 'Service manual v2.pdf',
      size: bytes.length,
      contentType: 'application/pdf',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      md5: createHash('md5').update(bytes).digest('hex'),
      crc8: { variant: 'CRC-8/SMBUS', value: crc8Bitwise(CRC8_VARIANTS['CRC-8/SMBUS'], bytes).toString(16).toUpperCase().padStart(2, '0') },
    })
    expect(readFileSync(join(storageDir, answer.fileName)).equals(bytes)).toBe(true)
    const row = (await fileRows()).at(-1)
    expect(row).toMatchObject({ fileName: answer.fileName, originalName: 'Service manual v2.pdf', size: bytes.length, sha256: answer.sha256, md5: answer.md5, crc8: answer.crc8.value, crc8Variant: 'CRC-8/SMBUS', entity: 'testDoc', field: 'manual', createBy: 'admin' })
    expect(storedFiles().some((f) => f.endsWith('.part'))).toBe(false)
  })

  it('passes a type that cannot be sniffed (firmware .bin) whatever it holds, and checks small files too', async () => {
    const firmware = Buffer.concat([PNG, randomBytes(70_000)])
    const res = await uploadOne('firmware', 'bms-1.2.3.BIN', firmware)
    expect(res.status, res.msg).toBe(200)
    expect(res.data).toMatchObject({ contentType: 'application/octet-stream', size: firmware.length, sha256: createHash('sha256').update(firmware).digest('hex') })
    const small = await uploadOne('photo', 'dot.png', PNG)
    expect(small.status, small.msg).toBe(200)
    expect(small.data.contentType).toBe('image/png')
  })

  it('takes MP4 and QuickTime video under either name', async () => {
    for (const [name, bytes] of [['clip.mp4', isoMedia('isom')], ['clip.mov', isoMedia('qt  ')], ['iphone.mp4', isoMedia('qt  ')]] as const) {
      const res = await uploadOne('video', name, bytes)
      expect(res.status, `${name}: ${res.msg}`).toBe(200)
    }
  })

  it('refuses an extension outside the accept list (400), storing nothing', async () => {
    const before = await state()
    await expectRefused(await uploadOne('manual', 'manual.docx', pdf(1000)), 400, 'Only pdf files can be uploaded here', before)
    await expectRefused(await uploadOne('manual', 'manual', pdf(1000)), 400, 'Only pdf files can be uploaded here', before)
    await expectRefused(await uploadOne('photo', 'dot.gif', PNG, { lang: 'zh_CN' }), 400, '此处只能上传 png, jpg 文件', before)
  })

  it('refuses content that is not what its extension says (400), storing nothing', async () => {
    const before = await state()
    await expectRefused(await uploadOne('manual', 'fake.pdf', Buffer.concat([PNG, randomBytes(100_000)])), 400, 'The content of "fake.pdf" is not a .pdf file', before)
    await expectRefused(await uploadOne('manual', 'short.pdf', Buffer.from('not a pdf at all')), 400, 'The content of "short.pdf" is not a .pdf file', before)
    await expectRefused(await uploadOne('photo', 'text.png', Buffer.from('hello, I am text')), 400, /is not a \.png file/, before)
    await expectRefused(await uploadOne('video', 'random.mp4', randomBytes(200_000)), 400, /is not a \.mp4 file/, before)
    await expectRefused(await uploadOne('video', 'doc.mov', pdf(5000)), 400, /is not a \.mov file/, before)
    await expectRefused(await uploadOne('firmware', 'empty.bin', Buffer.alloc(0)), 400, 'The file is empty', before)
  })

  it('refuses a file over the field limit (413) in the caller language, leaving no temporary file', async () => {
    const before = await state()
    const big = Buffer.concat([PNG, randomBytes(10_000)])
    await expectRefused(await uploadOne('photo', 'big.png', big), 413, 'The file is larger than 4 KB', before)
    await expectRefused(await uploadOne('photo', 'big.png', big, { lang: 'zh_CN' }), 413, '文件大小不能超过 4 KB', before)
    // Declared longer than the limit can hold: refused before the body is read.
    await expectRefused(await uploadOne('photo', 'huge.png', Buffer.concat([PNG, Buffer.alloc(1_200_000)])), 413, 'The file is larger than 4 KB', before)
    // Exactly the limit is within it.
    const exact = Buffer.concat([PNG, randomBytes(4096 - PNG.length)])
    expect((await uploadOne('photo', 'exact.png', exact)).status).toBe(200)
  })

  it('refuses a request without a file, and callers without the add or edit right (403)', async () => {
    const before = await state()
    await expectRefused(await upload('manual', [{ field: 'note', value: 'no file' }]), 400, 'Please choose a file', before)
    const reader = await limitedUser(t, { userName: 'docreader', perms: ['test:doc:list', 'test:doc:query'], dataScope: '1' })
    await expectRefused(await uploadOne('manual', 'm.pdf', pdf(1000), { token: reader.token }), 403, /no permission/, before)
    const editor = await limitedUser(t, { userName: 'doceditor', perms: ['test:doc:edit'], dataScope: '1' })
    expect((await uploadOne('manual', 'm.pdf', pdf(1000), { token: editor.token })).status).toBe(200)
  })

  it('deletes the temporary file when the client goes away mid-upload', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as AddressInfo
    const before = storedFiles()
    const boundary = '----veloabort'
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`)
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/test/doc/file/firmware', headers: { authorization: admin, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + 5_000_000) } })
    req.on('error', () => undefined)
    req.write(head)
    req.write(randomBytes(1_000_000))
    // The temporary file appears while the body streams in, and is gone once the client has left.
    const deadline = Date.now() + 5000
    while (!storedFiles().some((f) => f.endsWith('.part')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(storedFiles().some((f) => f.endsWith('.part'))).toBe(true)
    req.destroy()
    const gone = Date.now() + 5000
    while (storedFiles().length !== before.length && Date.now() < gone) await new Promise((r) => setTimeout(r, 20))
    expect(storedFiles()).toEqual(before)
  })
})

describe('a file field on add and modify', () => {
  it('takes only a name uploaded for that entity and field', async () => {
    const manual = (await uploadOne('manual', 'm.pdf', pdf(2000))).data.fileName as string
    const photo = (await uploadOne('photo', 'p.png', PNG)).data.fileName as string
    const add = (body: object) => t.call({ method: 'POST', url: '/api/test/doc', token: admin, body: { title: 'Doc', ...body } })
    const typed = await add({ manual: 'file/testDoc/2026/11/24/00000000-0000-0000-0000-000000000000.pdf' })
    expect(typed.status).toBe(400)
    expect(typed.msg).toMatch(/^Manual: ".*" is not a file uploaded for this field$/)
    expect(typed.data.errors[0].field).toBe('manual')
    // A PNG uploaded for the photo is no manual, even under a .pdf-looking name check it would fail anyway.
    expect((await add({ manual: photo })).status).toBe(400)
    const ok = await add({ manual, photo })
    expect(ok.status, ok.msg).toBe(200)
    expect(ok.data).toMatchObject({ manual, photo })
    // Modify keeps the value the row holds, and clears it when sent blank.
    const docId = ok.data.docId
    expect((await t.call({ method: 'PUT', url: '/api/test/doc', token: admin, body: { docId, manual, title: 'Doc 2' } })).status).toBe(200)
    const cleared = await t.call({ method: 'PUT', url: '/api/test/doc', token: admin, body: { docId, manual: '' } })
    expect(cleared.status, cleared.msg).toBe(200)
    expect(cleared.data.manual || null).toBeNull()
  })
})

describe('GET {path}/file/{field}/{stored name}', () => {
  let fileName = ''
  let bytes: Buffer
  let writer: { token: string }
  let outsider: { token: string }
  let stranger: { token: string }

  beforeAll(async () => {
    bytes = pdf(50_000)
    fileName = (await uploadOne('manual', '说明书 v1.pdf', bytes)).data.fileName
    const sales = await deptId(t, 'Sales Europe')
    const add = await t.call({ method: 'POST', url: '/api/test/doc', token: admin, body: { title: 'Sales manual', deptId: sales, manual: fileName } })
    expect(add.status, add.msg).toBe(200)
    // Own department only: Sales Europe sees the row, Research & Development does not.
    writer = await limitedUser(t, { userName: 'docsales', perms: ['test:doc:list', 'test:doc:add'], dataScope: '3', dept: 'Sales Europe' })
    outsider = await limitedUser(t, { userName: 'docrd', perms: ['test:doc:query', 'test:doc:add'], dataScope: '3', dept: 'Research & Development' })
    stranger = await limitedUser(t, { userName: 'docnone', perms: ['system:user:list'], dataScope: '1' })
  })

  it('streams the file back under its original name, with its type', async () => {
    const res = await download('manual', fileName)
    expect(res.status).toBe(200)
    expect(res.raw.equals(bytes)).toBe(true)
    expect(res.headers['content-type']).toBe('application/pdf')
    expect(res.headers['content-length']).toBe(String(bytes.length))
    expect(res.headers['content-disposition']).toBe(`attachment; filename="___ v1.pdf"; filename*=UTF-8''${encodeURIComponent('说明书 v1.pdf')}`)
  })

  it('refuses callers without the list or query right (403)', async () => {
    const res = await download('manual', fileName, stranger.token)
    expect(res.status).toBe(403)
    expect(res.raw.equals(bytes)).toBe(false)
  })

  it('keeps to the data scope: a row in the caller scope must hold the file', async () => {
    expect((await download('manual', fileName, writer.token)).status).toBe(200)
    const out = await download('manual', fileName, outsider.token)
    expect(out.status).toBe(404)
    expect(out.raw.equals(bytes)).toBe(false)
  })

  it('lets only its uploader fetch a file no row holds yet', async () => {
    const pending = (await uploadOne('manual', 'draft.pdf', pdf(1000), { token: outsider.token })).data.fileName
    expect((await download('manual', pending, outsider.token)).status).toBe(200)
    expect((await download('manual', pending, writer.token)).status).toBe(404)
  })

  it('serves a name only under the field it was uploaded for, and never through /common/download', async () => {
    expect((await download('firmware', fileName)).status).toBe(404)
    expect((await download('manual', 'file/testDoc/../../test.db')).status).toBe(404)
    const common = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(fileName)}`, token: outsider.token })
    expect(common.status).toBe(403)
    expect(common.msg).toBe('This file belongs to a record: download it from that record')
  })
})
