import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { defineEntity, registerEntities } from '@velo/shared'
import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerEntityRoutes } from '../src/platform/crud/routes'
import { Crc8, crc8, CRC8_VARIANTS, type Crc8Variant } from '../src/platform/files/crc8'
import { FileLinks } from '../src/platform/files/links'
import { parseRange } from '../src/platform/files/send'
import type { UploadedFileAnswer } from '../src/platform/files/routes'
import { sweepUnheldFiles, uploadSweep } from '../src/platform/files/sweep'
import { createTestApp, deptId, limitedUser, multipart, type MultipartPart, type Refusal, type TestApp } from './harness'

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
  scope: { dept: 'deptId' },
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
const db = () => t.app.services.db

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
  return t.call<UploadedFileAnswer>({ method: 'POST', url: `/api/test/doc/file/${field}`, token: o.token ?? admin, lang: o.lang, ...multipart(parts) })
}
const uploadOne = (field: string, name: string, bytes: Buffer, o: { token?: string; lang?: 'en_US' | 'zh_CN' } = {}) => upload(field, [{ name, bytes }], o)
const download = (field: string, fileName: string, token = admin) => t.call({ url: `/api/test/doc/file/${field}/${fileName}`, token })
const ranged = (fileName: string, headers: Record<string, string>, token = admin) => t.call({ url: `/api/test/doc/file/manual/${fileName}`, token, headers })

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
    const add = <T = unknown>(body: object) => t.call<T>({ method: 'POST', url: '/api/test/doc', token: admin, body: { title: 'Doc', ...body } })
    const typed = await add<Refusal>({ manual: 'file/testDoc/2026/11/24/00000000-0000-0000-0000-000000000000.pdf' })
    expect(typed.status).toBe(400)
    expect(typed.msg).toMatch(/^Manual: ".*" is not a file uploaded for this field$/)
    expect(typed.data.errors[0]!.field).toBe('manual')
    // A PNG uploaded for the photo is no manual, even under a .pdf-looking name check it would fail anyway.
    expect((await add({ manual: photo })).status).toBe(400)
    const ok = await add<{ docId: number }>({ manual, photo })
    expect(ok.status, ok.msg).toBe(200)
    expect(ok.data).toMatchObject({ manual, photo })
    // Modify keeps the value the row holds, and clears it when sent blank.
    const docId = ok.data.docId
    expect((await t.call({ method: 'PUT', url: '/api/test/doc', token: admin, body: { docId, manual, title: 'Doc 2' } })).status).toBe(200)
    const cleared = await t.call<{ manual: string }>({ method: 'PUT', url: '/api/test/doc', token: admin, body: { docId, manual: '' } })
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

  it('says it takes byte ranges, and names the content by its SHA-256, on a whole answer', async () => {
    const res = await download('manual', fileName)
    expect(res.status).toBe(200)
    expect(res.headers['accept-ranges']).toBe('bytes')
    expect(res.headers.etag).toBe(`"${createHash('sha256').update(bytes).digest('hex')}"`)
    expect(res.headers['content-range']).toBeUndefined()
  })

  it('answers one byte range with 206, its Content-Range and Content-Length, and exactly those bytes', async () => {
    const size = bytes.length
    const cases: [string, number, number][] = [
      ['bytes=100-199', 100, 199],
      ['bytes=0-0', 0, 0],
      [`bytes=${size - 10}-`, size - 10, size - 1],
      ['bytes=-500', size - 500, size - 1],
      // A last byte past the end, or a suffix longer than the file, stops at the end.
      ['bytes=40000-99999999', 40000, size - 1],
      [`bytes=-${size + 1000}`, 0, size - 1],
      ['BYTES=7-70', 7, 70],
    ]
    for (const [range, start, end] of cases) {
      const res = await ranged(fileName, { range })
      expect(res.status, range).toBe(206)
      expect(res.headers['content-range'], range).toBe(`bytes ${start}-${end}/${size}`)
      expect(res.headers['content-length'], range).toBe(String(end - start + 1))
      expect(res.headers['accept-ranges']).toBe('bytes')
      expect(res.headers['content-type']).toBe('application/pdf')
      expect(res.raw.equals(bytes.subarray(start, end + 1)), range).toBe(true)
    }
    // A range in the caller's scope is kept to it, as the whole file is.
    const scoped = await ranged(fileName, { range: 'bytes=10-19' }, writer.token)
    expect(scoped.status).toBe(206)
    expect(scoped.raw.equals(bytes.subarray(10, 20))).toBe(true)
  })

  it('answers 416 with Content-Range: bytes */size to a range past the end, in the caller language', async () => {
    for (const range of [`bytes=${bytes.length}-`, `bytes=${bytes.length + 5}-${bytes.length + 10}`, 'bytes=-0']) {
      const res = await ranged(fileName, { range })
      expect(res.status, range).toBe(416)
      expect(res.headers['content-range'], range).toBe(`bytes */${bytes.length}`)
      // Counts read in the caller's locale (50,035 bytes).
      expect(res.msg).toBe(`The requested range lies outside the file (${bytes.length.toLocaleString('en-US')} bytes)`)
      expect(res.raw.includes(bytes.subarray(0, 64))).toBe(false)
    }
    const zh = await t.call({ url: `/api/test/doc/file/manual/${fileName}`, token: admin, lang: 'zh_CN', headers: { range: `bytes=${bytes.length}-` } })
    expect(zh.msg).toBe(`请求的范围超出文件大小（${bytes.length} 字节）`)
  })

  it('ignores a malformed range, several ranges and other units: the whole file, 200', async () => {
    for (const range of ['bytes=20-10', 'bytes=0-9,20-29', 'bytes=0-9, 20-29', 'items=0-9', 'bytes=abc-', 'bytes=-', 'bytes 0-9', '0-9', 'bytes=1.5-3']) {
      const res = await ranged(fileName, { range })
      expect(res.status, range).toBe(200)
      expect(res.headers['content-range'], range).toBeUndefined()
      expect(res.headers['content-length']).toBe(String(bytes.length))
      expect(res.raw.equals(bytes), range).toBe(true)
    }
  })

  it('honours If-Range only with the current ETag: another validator gets the whole file', async () => {
    const etag = `"${createHash('sha256').update(bytes).digest('hex')}"`
    const same = await ranged(fileName, { range: 'bytes=0-9', 'if-range': etag })
    expect(same.status).toBe(206)
    expect(same.raw.equals(bytes.subarray(0, 10))).toBe(true)
    for (const other of ['"0000"', `W/${etag}`, 'Wed, 21 Oct 2015 07:28:00 GMT']) {
      const res = await ranged(fileName, { range: 'bytes=0-9', 'if-range': other })
      expect(res.status, other).toBe(200)
      expect(res.raw.equals(bytes), other).toBe(true)
    }
  })

  it('checks rights and data scope before any byte: a Range header still gets 403 or 404', async () => {
    for (const range of ['bytes=0-99', 'bytes=-10', `bytes=${bytes.length}-`]) {
      const refused = await ranged(fileName, { range }, stranger.token)
      expect(refused.status, range).toBe(403)
      expect(refused.headers['content-range']).toBeUndefined()
      expect(refused.raw.includes(bytes.subarray(0, 10))).toBe(false)
      const out = await ranged(fileName, { range }, outsider.token)
      expect(out.status, range).toBe(404)
      expect(out.headers['content-range']).toBeUndefined()
      expect(out.raw.includes(bytes.subarray(0, 10))).toBe(false)
    }
    const missing = await ranged('file/testDoc/2026/11/24/00000000-0000-0000-0000-000000000000.pdf', { range: 'bytes=0-9' })
    expect(missing.status).toBe(404)
  })

  it('serves a name only under the field it was uploaded for, and never through /common/download', async () => {
    expect((await download('firmware', fileName)).status).toBe(404)
    expect((await download('manual', 'file/testDoc/../../test.db')).status).toBe(404)
    const common = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(fileName)}`, token: outsider.token })
    expect(common.status).toBe(403)
    expect(common.msg).toBe('This file belongs to a record: download it from that record')
    // However it is spelled: out of the storage folder and back in, or in another case.
    const storageFolder = t.app.services.storage.root.split('/').pop()!
    for (const spelled of [`../${storageFolder}/${fileName}`, `./${fileName}`, `upload/../${fileName}`, fileName.replace(/^file\//, 'FILE/')]) {
      const res = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(spelled)}`, token: outsider.token })
      expect(res.status, spelled).toBeGreaterThanOrEqual(400)
      expect(res.raw.includes(Buffer.from('%PDF')), spelled).toBe(false)
    }
  })
})

describe('GET {path}/file/{field}/link/{stored name}: a link a <video> element can play', () => {
  let fileName = ''
  let bytes: Buffer
  let other = ''
  let writer: { token: string }
  let outsider: { token: string }
  let stranger: { token: string }
  const link = (name: string, token = admin, field = 'video') => t.call<{ url: string; expiresAt: string }>({ url: `/api/test/doc/file/${field}/link/${name}`, token })
  /** The link's URL with one part of it changed. */
  const changed = (url: string, from: RegExp | string, to: string) => url.replace(from, to)
  const anonymous = (url: string, headers: Record<string, string> = {}) => t.call({ url, headers })

  beforeAll(async () => {
    bytes = isoMedia('isom')
    fileName = (await uploadOne('video', 'ride.mp4', bytes)).data.fileName
    other = (await uploadOne('video', 'other.mp4', isoMedia('isom'))).data.fileName
    const sales = await deptId(t, 'Sales Europe')
    const add = await t.call({ method: 'POST', url: '/api/test/doc', token: admin, body: { title: 'How to ride', deptId: sales, video: fileName } })
    expect(add.status, add.msg).toBe(200)
    await t.call({ method: 'POST', url: '/api/test/doc', token: admin, body: { title: 'Other', deptId: sales, video: other } })
    writer = await limitedUser(t, { userName: 'linksales', perms: ['test:doc:list'], dataScope: '3', dept: 'Sales Europe' })
    outsider = await limitedUser(t, { userName: 'linkrd', perms: ['test:doc:query'], dataScope: '3', dept: 'Research & Development' })
    stranger = await limitedUser(t, { userName: 'linknone', perms: ['system:user:list'], dataScope: '1' })
  })

  it('answers a ten-minute link to that file, which streams it without the token, whole or by range', async () => {
    const res = await link(fileName, writer.token)
    expect(res.status, res.msg).toBe(200)
    const url = res.data.url as string
    expect(url).toMatch(new RegExp(`^/api/test/doc/file/video/signed/${fileName}\\?exp=\\d+&sig=[A-Za-z0-9_-]{43}$`))
    const expiresIn = new Date(res.data.expiresAt).getTime() - Date.now()
    expect(expiresIn).toBeGreaterThan(590_000)
    expect(expiresIn).toBeLessThanOrEqual(600_000)
    const whole = await anonymous(url)
    expect(whole.status).toBe(200)
    expect(whole.raw.equals(bytes)).toBe(true)
    expect(whole.headers['content-type']).toBe('video/mp4')
    expect(whole.headers['accept-ranges']).toBe('bytes')
    // The player seeks: one range, as the download answers it.
    const part = await anonymous(url, { range: 'bytes=100-1099' })
    expect(part.status).toBe(206)
    expect(part.headers['content-range']).toBe(`bytes 100-1099/${bytes.length}`)
    expect(part.raw.equals(bytes.subarray(100, 1100))).toBe(true)
    expect((await anonymous(url, { range: `bytes=${bytes.length}-` })).status).toBe(416)
  })

  it('makes links only for whoever may download the file: the rights, then the data scope', async () => {
    const refused = await link(fileName, stranger.token)
    expect(refused.status).toBe(403)
    expect(refused.data).toBeNull()
    const out = await link(fileName, outsider.token)
    expect(out.status).toBe(404)
    expect(out.data).toBeNull()
    expect((await link('file/testDoc/2026/11/24/00000000-0000-0000-0000-000000000000.mp4')).status).toBe(404)
    // A file of another field is not this field's.
    expect((await link(fileName, admin, 'manual')).status).toBe(404)
    expect((await t.call({ url: `/api/test/doc/file/video/link/${fileName}` })).status).toBe(401)
  })

  it('refuses a changed link (403) without a byte: another file, field, expiry or signature', async () => {
    const url = (await link(fileName)).data.url as string
    const sig = /sig=([^&]+)/.exec(url)![1]!
    const exp = Number(/exp=(\d+)/.exec(url)![1])
    const flipped = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`
    const tampered = [
      changed(url, fileName, other),
      changed(url, '/file/video/signed/', '/file/manual/signed/'),
      changed(url, `exp=${exp}`, `exp=${exp + 60}`),
      changed(url, `exp=${exp}`, `exp=0${exp}`),
      changed(url, sig, flipped),
      changed(url, `&sig=${sig}`, ''),
      changed(url, `exp=${exp}&`, ''),
      url.slice(0, url.indexOf('?')),
    ]
    for (const bad of tampered) {
      const res = await anonymous(bad, { range: 'bytes=0-99' })
      expect(res.status, bad).toBe(403)
      expect(res.msg, bad).toBe('This link to the file is not valid')
      expect(res.raw.includes(bytes.subarray(0, 64)), bad).toBe(false)
    }
    const zh = await t.call({ url: changed(url, sig, flipped), lang: 'zh_CN' })
    expect(zh.msg).toBe('文件链接无效')
    // The signature is no token for the download route itself.
    expect((await anonymous(changed(url, '/signed/', '/'))).status).toBe(401)
  })

  it('refuses an expired link (403), and one that claims to last longer than links are made for', async () => {
    const links = new FileLinks(t.app.services.kv, () => Date.now() - 11 * 60_000)
    const old = await links.sign({ entity: 'testDoc', field: 'video', fileName })
    const expired = await anonymous(`/api/test/doc/file/video/signed/${fileName}?exp=${old.exp}&sig=${old.sig}`)
    expect(expired.status).toBe(403)
    expect(expired.msg).toBe('This link to the file has expired: open the file again from its record')
    expect(expired.raw.includes(bytes.subarray(0, 64))).toBe(false)
    // Signed with the same key as a good one, but ten minutes too long: never made by the link route.
    const later = new FileLinks(t.app.services.kv, () => Date.now() + 11 * 60_000)
    const long = await later.sign({ entity: 'testDoc', field: 'video', fileName })
    expect((await anonymous(`/api/test/doc/file/video/signed/${fileName}?exp=${long.exp}&sig=${long.sig}`)).status).toBe(403)
  })

  it('stops working once no stored file answers to it', async () => {
    const url = (await link(other)).data.url as string
    await db().deleteFrom('sysFile').where('fileName', '=', other).execute()
    expect((await anonymous(url)).status).toBe(404)
  })
})

describe('FileLinks', () => {
  const memoryKv = () => {
    const values = new Map<string, string>()
    return {
      values,
      set: async (k: string, v: string) => void values.set(k, v),
      setIfAbsent: async (k: string, v: string) => (values.has(k) ? false : (values.set(k, v), true)),
      get: async (k: string) => values.get(k) ?? null,
      take: async (k: string) => values.get(k) ?? null,
      delete: async (k: string) => void values.delete(k),
    }
  }
  const target = { entity: 'testDoc', field: 'video', fileName: 'file/testDoc/a.mp4' }

  it('signs with one key per day, shared through the store by every instance, and checks each link by the day it was made', async () => {
    const kv = memoryKv()
    let now = Date.UTC(2026, 10, 24, 23, 55)
    const one = new FileLinks(kv, () => now)
    const two = new FileLinks(kv, () => now)
    const late = await one.sign(target)
    expect(await two.check(target, String(late.exp), late.sig)).toBe('valid')
    // Past midnight a new key signs, and the link made before it still works until it ends.
    now += 8 * 60_000
    const next = await two.sign(target)
    expect(kv.values.size).toBe(2)
    expect(await one.check(target, String(late.exp), late.sig)).toBe('valid')
    expect(await one.check(target, String(next.exp), next.sig)).toBe('valid')
    expect(await one.check({ ...target, fileName: 'file/testDoc/b.mp4' }, String(next.exp), next.sig)).toBe('invalid')
    now += 3 * 60_000
    expect(await one.check(target, String(late.exp), late.sig)).toBe('expired')
    // Without the key of its day (another store, or long gone), a link is nothing.
    const stranger = new FileLinks(memoryKv(), () => now)
    expect(await stranger.check(target, String(next.exp), next.sig)).toBe('invalid')
    for (const [exp, sig] of [[undefined, next.sig], [String(next.exp), undefined], ['abc', next.sig], [String(next.exp), 'short'], [`${next.exp}.0`, next.sig]] as const) {
      expect(await one.check(target, exp, sig)).toBe('invalid')
    }
  })
})

describe('parseRange', () => {
  it('reads the three forms of one range, and tells unsatisfiable from ignored', () => {
    expect(parseRange(undefined, 100)).toBeUndefined()
    expect(parseRange('bytes=0-49', 100)).toEqual({ start: 0, end: 49 })
    expect(parseRange('bytes=50-', 100)).toEqual({ start: 50, end: 99 })
    expect(parseRange('bytes=-30', 100)).toEqual({ start: 70, end: 99 })
    expect(parseRange(' bytes=99-200 ', 100)).toEqual({ start: 99, end: 99 })
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable')
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable')
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable')
    expect(parseRange('bytes=99999999999999999999999-', 100)).toBe('unsatisfiable')
    for (const ignored of ['bytes=5-4', 'bytes=0-1,3-4', 'bytes=-', 'bytes=', 'pages=1-2', 'bytes=a-b', 'bytes=+1-2']) expect(parseRange(ignored, 100), ignored).toBeUndefined()
  })
})

describe('the sweep of uploads no row holds', () => {
  const HOUR = 3_600_000
  const now = new Date()
  /** An upload of the manual field, its sys_file row dated `hoursAgo` before now. */
  async function uploadedAgo(hoursAgo: number): Promise<string> {
    const res = await uploadOne('manual', 'swept.pdf', pdf(2000))
    expect(res.status, res.msg).toBe(200)
    const fileName = res.data.fileName as string
    await db().updateTable('sysFile').set({ createTime: new Date(now.getTime() - hoursAgo * HOUR).toISOString() }).where('fileName', '=', fileName).execute()
    return fileName
  }
  const stored = (fileName: string) => existsSync(join(storageDir, fileName))
  const hasRow = async (fileName: string) => !!(await db().selectFrom('sysFile').select('fileId').where('fileName', '=', fileName).executeTakeFirst())
  const kept = async (fileName: string) => stored(fileName) && (await hasRow(fileName))
  const removed = async (fileName: string) => !stored(fileName) && !(await hasRow(fileName))
  const addDoc = async (manual: string) => {
    const res = await t.call<{ docId: number }>({ method: 'POST', url: '/api/test/doc', token: admin, body: { title: 'Swept', manual } })
    expect(res.status, res.msg).toBe(200)
    return res.data.docId as number
  }
  const sweep = (o: { batchSize?: number } = {}) => sweepUnheldFiles(t.app.services, { now, ...o })

  it('waits 24 hours by default (FILE_SWEEP_GRACE_HOURS)', () => {
    expect(t.app.services.config.fileSweepGraceMs).toBe(24 * HOUR)
  })

  it('deletes an abandoned upload older than the grace period, file and row, and keeps a fresh one', async () => {
    const abandoned = await uploadedAgo(25)
    const fresh = await uploadedAgo(23)
    expect(await kept(abandoned)).toBe(true)
    expect(await sweep()).toBe(1)
    expect(await removed(abandoned)).toBe(true)
    expect(await kept(fresh)).toBe(true)
    // Past its own grace period, the fresh one goes too; a second sweep finds nothing more.
    expect(await sweepUnheldFiles(t.app.services, { now: new Date(now.getTime() + 2 * HOUR) })).toBe(1)
    expect(await removed(fresh)).toBe(true)
    expect(await sweep()).toBe(0)
  })

  it('keeps an old upload a row holds, and deletes the one a row gave up for another', async () => {
    const held = await uploadedAgo(48)
    const replaced = await uploadedAgo(48)
    const docId = await addDoc(replaced)
    const other = await addDoc(held)
    const modify = await t.call({ method: 'PUT', url: '/api/test/doc', token: admin, body: { docId, manual: (await uploadedAgo(30)) } })
    expect(modify.status, modify.msg).toBe(200)
    const current = (await t.call<{ manual: string }>({ url: `/api/test/doc/${docId}`, token: admin })).data.manual
    expect(await sweep()).toBe(1)
    expect(await removed(replaced)).toBe(true)
    expect(await kept(held)).toBe(true)
    expect(await kept(current)).toBe(true)
    // A deleted row lets its file go.
    expect((await t.call({ method: 'DELETE', url: `/api/test/doc/${other}`, token: admin })).status).toBe(200)
    expect(await sweep()).toBe(1)
    expect(await removed(held)).toBe(true)
    expect(await kept(current)).toBe(true)
  })

  it('works through the uploads in batches, checking each batch against the table', async () => {
    const names = [] as string[]
    for (let i = 0; i < 7; i++) names.push(await uploadedAgo(26))
    // Held ones among them, at the start, in the middle and at the end of a batch of 3.
    for (const i of [0, 4, 5]) await addDoc(names[i]!)
    expect(await sweep({ batchSize: 3 })).toBe(4)
    for (const [i, name] of names.entries()) expect(await ([0, 4, 5].includes(i) ? kept(name) : removed(name)), `upload ${i}`).toBe(true)
  })

  it('removes the row of an upload whose file is already gone, and leaves files outside the entity folder', async () => {
    const gone = await uploadedAgo(30)
    unlinkSync(join(storageDir, gone))
    // A row naming a file outside file/ (never written by the upload route) is not the sweep's to delete.
    const outside = 'upload/2020/01/01/11111111-1111-1111-1111-111111111111.pdf'
    mkdirSync(dirname(join(storageDir, outside)), { recursive: true })
    writeFileSync(join(storageDir, outside), 'x')
    await db()
      .insertInto('sysFile')
      .values({ fileName: outside, originalName: 'o.pdf', size: 1, contentType: 'application/pdf', sha256: '0', md5: '0', crc8: '00', crc8Variant: 'CRC-8/SMBUS', entity: 'testDoc', field: 'manual', createBy: 'admin', createTime: new Date(now.getTime() - 100 * HOUR).toISOString() })
      .execute()
    expect(await sweep()).toBe(1)
    expect(await hasRow(gone)).toBe(false)
    expect(await kept(outside)).toBe(true)
  })

  it('is safe to run on several instances at once: each upload is deleted once, and counted once', async () => {
    const names = [] as string[]
    for (let i = 0; i < 5; i++) names.push(await uploadedAgo(40))
    await addDoc(names[2]!)
    const counts = await Promise.all([sweep({ batchSize: 1 }), sweep({ batchSize: 1 }), sweep({ batchSize: 2 }), sweep()])
    expect(counts.reduce((a, b) => a + b, 0)).toBe(4)
    for (const [i, name] of names.entries()) expect(await (i === 2 ? kept(name) : removed(name)), `upload ${i}`).toBe(true)
  })

  it("is the scheduler's uploadSweep: hourly and once at start, logging how many uploads it deleted", async () => {
    const abandoned = await uploadedAgo(50)
    const logged: { level: string; args: unknown[] }[] = []
    const logger = Object.fromEntries(['info', 'warn', 'error'].map((level) => [level, (...args: unknown[]) => logged.push({ level, args })])) as unknown as FastifyBaseLogger
    const sweep = uploadSweep(t.app.services, logger)
    expect(sweep).toMatchObject({ key: 'uploadSweep', every: '1h', atStart: true })
    await sweep.run(new AbortController().signal)
    expect(await removed(abandoned)).toBe(true)
    expect(logged).toEqual([{ level: 'info', args: [{ swept: 1 }, 'deleted 1 uploaded file(s) no row took up'] }])
    // Nothing left to delete: nothing is logged.
    await sweep.run(new AbortController().signal)
    expect(logged).toHaveLength(1)
    // The app runs it: listed with its interval.
    expect((await t.app.services.jobs.scheduler.list()).find((w) => w.key === 'uploadSweep')).toMatchObject({ runs: 'once', everyMs: 3_600_000 })
  })
})
