import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { UserInfo } from '@velo/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, multipart, type MultipartPart, type Refusal, type TestApp } from './harness'

// A 1x1 RGBA PNG and a 16x16 baseline JPEG (CPython's test image), both complete, decodable files.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z',
  'base64',
)
// A 16x16 GIF: a real image, just not one of the allowed kinds.
const GIF = Buffer.from(
  'R0lGODlhEAAQAPU/AOu7GOu+IfPBGvrHGf3LG//MHOvCKv/PI//PJP/QJf/TLevFNOjHPf/TMP/UMP3VNvrTOf/XOfnVPv/YOuzORf/aQf/bRP/eS//fTv/iVf/jWP/nYvLhbvXjb/3pav/rbDJghzZmkDZnkTZpkzdoljdqljlsljpvmzpwnDtwnDxxnj1zoj50oj92pUB4pkJ7qkN8q0N9rUV/r0aAsUeBskiDtEiFtkqGukyJvEyKvEyKv0+NwVCPw1KRxv///wAAACH/C0ltYWdlTWFnaWNrB2dhbW1hPTAAIfkEBQAAPwAsAAAAABAAEAAABpvAn/C3u81iLRVpyBTmfLMXC1VqMm1RVqo0sv50thjLFDKVqszeDleTuVSn0fmXuUh+PB1N9oKP/iA/FxUPXzY0UipnIoEUhAo/hzAuXU0VEQoHP0cuIj8cHhsZGBUTCggEPzFSPx0fGxoYFhENCAUCQispP6+xpacFBVawGAwLBgEAAF6xsw0Jwl4/shEOCT6p0j8QzwUD2uBDQQA7',
  'base64',
)
const BAD_IMAGE = 'Only jpg, jpeg and png images are allowed'
const BAD_NAME = 'This file name is not allowed'


let t: TestApp
let token: string
let storageDir: string
/** A file just outside STORAGE_DIR that no request may ever read. */
let secretFile: string
const SECRET = 'TOP-SECRET-OUTSIDE-STORAGE'

beforeAll(async () => {
  t = await createTestApp()
  token = await t.login()
  storageDir = t.app.services.config.storageDir
  secretFile = join(dirname(storageDir), 'secret.txt')
  writeFileSync(secretFile, SECRET)
  mkdirSync(storageDir, { recursive: true })
})
afterAll(() => t.close())

/** Every stored file, relative to STORAGE_DIR. */
function storedFiles(): string[] {
  if (!existsSync(storageDir)) return []
  return (readdirSync(storageDir, { recursive: true }) as string[]).filter((f) => statSync(join(storageDir, f)).isFile()).sort()
}

/** What POST /common/upload answers. */
type Uploaded = { fileName: string; originalFilename: string; url: string }

function upload(parts: MultipartPart[], opts: { token?: string; app?: TestApp; url?: string } = {}) {
  return (opts.app ?? t).call<Uploaded>({ method: 'POST', url: opts.url ?? '/api/common/upload', token: 'token' in opts ? opts.token : token, ...multipart(parts) })
}

async function uploaded(bytes: Buffer, name: string): Promise<string> {
  const res = await upload([{ name, bytes }])
  expect(res.status, res.msg).toBe(200)
  return res.data.fileName as string
}

describe('POST /api/common/upload', () => {
  it('accepts a real PNG, stores its exact bytes under upload/ with a fresh name and answers how to fetch it', async () => {
    const res = await upload([{ name: 'photo.png', bytes: PNG }])
    expect(res.status).toBe(200)
    expect(res.code).toBe(200)
    expect(res.data.fileName).toMatch(/^upload\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f-]{36}\.png$/)
    expect(res.data.originalFilename).toBe('photo.png')
    expect(res.data.url).toBe(`/api/common/download?fileName=${encodeURIComponent(res.data.fileName)}`)
    expect(readFileSync(join(storageDir, res.data.fileName)).equals(PNG)).toBe(true)
  })

  it('accepts a real JPEG whatever the case of its .jpeg extension, stored as .jpg', async () => {
    const res = await upload([{ name: 'Holiday.JPEG', bytes: JPEG }])
    expect(res.status).toBe(200)
    expect(res.data.fileName).toMatch(/^upload\/.+\.jpg$/)
    expect(res.data.originalFilename).toBe('Holiday.JPEG')
    expect(readFileSync(join(storageDir, res.data.fileName)).equals(JPEG)).toBe(true)
  })

  it.each([
    ['a text file named x.png', 'x.png', Buffer.from('just some text, not an image at all')],
    ['a PNG named x.gif', 'x.gif', PNG],
    ['a real GIF named x.png', 'x.png', GIF],
    ['a JPEG with no extension', 'photo', JPEG],
    ['an empty file named x.png', 'x.png', Buffer.alloc(0)],
  ])('refuses %s and stores nothing', async (_label, name, bytes) => {
    const before = storedFiles()
    const res = await upload([{ name, bytes }])
    expect(res.status).toBe(400)
    expect(res.code).toBe(400)
    expect(res.msg).toBe(BAD_IMAGE)
    expect(storedFiles()).toEqual(before)
  })

  it('says so in Chinese when asked', async () => {
    const res = await t.call({ method: 'POST', url: '/api/common/upload', token, lang: 'zh_CN', ...multipart([{ name: 'x.gif', bytes: GIF }]) })
    expect(res.status).toBe(400)
    expect(res.msg).toBe('只能上传 jpg、jpeg、png 格式的图片')
  })

  it('refuses two files in one request and stores neither', async () => {
    const before = storedFiles()
    const res = await upload([
      { name: 'a.png', bytes: PNG },
      { name: 'b.png', bytes: PNG },
    ])
    expect(res.status).toBe(400)
    expect(res.code).toBe(400)
    expect(res.msg).toBe('Only one file can be uploaded at a time')
    expect(storedFiles()).toEqual(before)
  })

  it('refuses a request with no file: a form with only text fields, or a JSON body', async () => {
    const before = storedFiles()
    const fieldsOnly = await upload([{ field: 'note', value: 'hello' }])
    expect(fieldsOnly.status).toBe(400)
    expect(fieldsOnly.msg).toBe('Please choose a file')
    const json = await t.call({ method: 'POST', url: '/api/common/upload', token, body: { file: 'x.png' } })
    expect(json.status).toBe(400)
    expect(json.msg).toBe('Please choose a file')
    expect(storedFiles()).toEqual(before)
  })

  it('refuses a file over UPLOAD_MAX_MB with 413 and keeps nothing, while a smaller one passes', async () => {
    const small = await createTestApp({ UPLOAD_MAX_MB: '0.001' }) // 1049 bytes
    try {
      const smallToken = await small.login()
      const dir = small.app.services.config.storageDir
      const ok = await upload([{ name: 'small.jpg', bytes: JPEG }], { app: small, token: smallToken })
      expect(ok.status).toBe(200)
      // Still a valid PNG signature: only the size is wrong.
      const big = Buffer.concat([PNG, Buffer.alloc(4000, 0)])
      const res = await upload([{ name: 'big.png', bytes: big }], { app: small, token: smallToken })
      expect(res.status).toBe(413)
      expect(res.code).toBe(413)
      expect(res.msg).toMatch(/^The file is larger than 0\.001\d* MB$/)
      const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile())
      expect(files).toEqual([ok.data.fileName])
    } finally {
      await small.close()
    }
  })

  it('refuses a caller without a token with 401 / code 50008 and stores nothing', async () => {
    const before = storedFiles()
    const res = await upload([{ name: 'a.png', bytes: PNG }], { token: undefined })
    expect(res.status).toBe(401)
    expect(res.code).toBe(50008)
    expect(res.msg).toBe('Please sign in first')
    expect(storedFiles()).toEqual(before)
  })
})

describe('GET /api/common/download', () => {
  it('returns the stored bytes as an attachment with the right type', async () => {
    const name = await uploaded(PNG, 'chart.png')
    const res = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(name)}`, token })
    expect(res.status).toBe(200)
    expect(res.raw.equals(PNG)).toBe(true)
    expect(res.headers['content-type']).toBe('image/png')
    const base = name.split('/').at(-1)
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${base}"; filename*=UTF-8''${base}`)
  })

  it('needs a signed-in caller', async () => {
    const name = await uploaded(PNG, 'private.png')
    const res = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(name)}` })
    expect(res.status).toBe(401)
    expect(res.code).toBe(50008)
    expect(res.raw.includes(PNG)).toBe(false)
  })

  it('with delete=true hands a generated download over once and removes it; the next call is 404', async () => {
    const name = 'download/report-once.jpg'
    mkdirSync(join(storageDir, 'download'), { recursive: true })
    writeFileSync(join(storageDir, name), JPEG)
    const first = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(name)}&delete=true`, token })
    expect(first.status).toBe(200)
    expect(first.raw.equals(JPEG)).toBe(true)
    expect(first.headers['content-type']).toBe('image/jpeg')
    expect(existsSync(join(storageDir, name))).toBe(false)
    const second = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(name)}&delete=true`, token })
    expect(second.status).toBe(404)
    expect(second.code).toBe(404)
    expect(second.msg).toBe('The file does not exist')
  })

  it('refuses delete=true on an uploaded file, which others may use, and keeps it', async () => {
    const name = await uploaded(JPEG, 'shared.jpg')
    const res = await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(name)}&delete=true`, token })
    expect(res.status).toBe(403)
    expect(res.msg).toBe('Only generated downloads can be deleted after download')
    expect(existsSync(join(storageDir, name))).toBe(true)
  })

  it('without delete keeps the file; a bad delete flag is refused and keeps it too', async () => {
    const name = await uploaded(PNG, 'keep.png')
    expect((await t.call({ url: `/api/common/download?fileName=${encodeURIComponent(name)}&delete=false`, token })).status).toBe(200)
    const bad = await t.call<Refusal>({ url: `/api/common/download?fileName=${encodeURIComponent(name)}&delete=yes`, token })
    expect(bad.status).toBe(400)
    expect(bad.data.errors[0]!.field).toBe('delete')
    expect(existsSync(join(storageDir, name))).toBe(true)
  })

  it('answers 404 for a safe name that is not stored, and 400 without a name', async () => {
    const missing = await t.call({ url: '/api/common/download?fileName=upload/2020/01/01/nothing.png', token })
    expect(missing.status).toBe(404)
    expect(missing.msg).toBe('The file does not exist')
    const none = await t.call<Refusal>({ url: '/api/common/download', token })
    expect(none.status).toBe(400)
    expect(none.data.errors.map((e: { field: string }) => e.field)).toContain('fileName')
  })

  // Query values as sent on the wire (already URL-encoded where they need to be).
  const traversals: [string, () => string][] = [
    ['../x', () => '../x'],
    ['..%2F..%2Fetc%2Fpasswd', () => '..%2F..%2Fetc%2Fpasswd'],
    ['/etc/passwd', () => '/etc/passwd'],
    ['upload/../../x', () => 'upload/../../x'],
    ['..\\x', () => encodeURIComponent('..\\x')],
    ['a\\0b', () => 'a%00b'],
    ['../secret.txt (the file just outside storage)', () => '../secret.txt'],
    ['..%2Fsecret.txt', () => '..%2Fsecret.txt'],
    ['the absolute path of the outside file', () => encodeURIComponent(secretFile)],
    ['upload/../../secret.txt', () => encodeURIComponent('upload/../../secret.txt')],
    ['..\\secret.txt', () => encodeURIComponent('..\\secret.txt')],
    ['upload/..\\..\\secret.txt', () => encodeURIComponent('upload/..\\..\\secret.txt')],
    ['secret.txt%00.png after ../', () => '..%2Fsecret.txt%00.png'],
  ]

  it.each(traversals)('refuses %s with 400 and never reads outside STORAGE_DIR', async (_label, query) => {
    const res = await t.call({ url: `/api/common/download?fileName=${query()}`, token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(400)
    expect(res.msg).toBe(BAD_NAME)
    expect(res.raw.toString()).not.toContain(SECRET)
    expect(readFileSync(secretFile, 'utf8')).toBe(SECRET)
  })

  it('refuses delete=true on a traversal name and leaves the outside file in place', async () => {
    const res = await t.call({ url: '/api/common/download?fileName=..%2Fsecret.txt&delete=true', token })
    expect(res.status).toBe(400)
    expect(existsSync(secretFile)).toBe(true)
  })

  it('does not decode twice: a double-encoded ../ is just an odd name that is not there', async () => {
    const res = await t.call({ url: '/api/common/download?fileName=%252e%252e%252fsecret.txt', token })
    expect(res.status).toBe(404)
    expect(res.raw.toString()).not.toContain(SECRET)
  })
})

describe('avatars', () => {
  async function uploadAvatar(bytes: Buffer, name: string, tok = token) {
    return t.call<{ imgUrl: string }>({ method: 'POST', url: '/api/system/user/profile/avatar', token: tok, ...multipart([{ field: 'avatarfile', name, bytes }]) })
  }

  it('an uploaded avatar becomes the user avatar and is served without a token', async () => {
    const res = await uploadAvatar(PNG, 'me.png')
    expect(res.status).toBe(200)
    const stored = res.data.imgUrl as string
    expect(stored).toMatch(/^avatar\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f-]{36}\.png$/)
    const info = await t.call<UserInfo>({ url: '/api/getUserInfo', token })
    expect(info.data.user.avatar).toBe(stored)
    const img = await t.call({ url: `/api/common/avatar?url=${encodeURIComponent(stored)}` })
    expect(img.status).toBe(200)
    expect(img.headers['content-type']).toBe('image/png')
    expect(img.raw.equals(PNG)).toBe(true)
    // With a leading slash, as an <img src> might carry it.
    expect((await t.call({ url: `/api/common/avatar?url=${encodeURIComponent(`/${stored}`)}` })).raw.equals(PNG)).toBe(true)
  })

  it('a new avatar replaces the old one, whose file is removed', async () => {
    const first = (await uploadAvatar(PNG, 'one.png')).data.imgUrl as string
    const second = (await uploadAvatar(JPEG, 'two.jpg')).data.imgUrl as string
    expect(second).toMatch(/^avatar\/.+\.jpg$/)
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.user.avatar).toBe(second)
    expect(existsSync(join(storageDir, first))).toBe(false)
    const old = await t.call({ url: `/api/common/avatar?url=${encodeURIComponent(first)}` })
    expect(old.status).toBe(404)
    const now = await t.call({ url: `/api/common/avatar?url=${encodeURIComponent(second)}` })
    expect(now.headers['content-type']).toBe('image/jpeg')
    expect(now.raw.equals(JPEG)).toBe(true)
  })

  it('refuses a non-image avatar and keeps the current one', async () => {
    const before = (await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.user.avatar
    const res = await uploadAvatar(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'me.png')
    expect(res.status).toBe(400)
    expect(res.msg).toBe(BAD_IMAGE)
    expect((await t.call<UserInfo>({ url: '/api/getUserInfo', token })).data.user.avatar).toBe(before)
  })

  it('never serves a file outside avatar/, with or without a token', async () => {
    const upload = await uploaded(PNG, 'not-an-avatar.png')
    const names = [
      upload,
      `avatar/../${upload}`,
      `avatar/./../${upload}`,
      '../secret.txt',
      'avatar/../../secret.txt',
      'avatar/..\\..\\secret.txt',
      secretFile,
      'avatar/x\0.png',
    ]
    for (const name of names) {
      for (const tok of [undefined, token]) {
        const res = await t.call({ url: `/api/common/avatar?url=${encodeURIComponent(name)}`, token: tok })
        expect(res.status, name).toBe(400)
        expect(res.msg).toBe(BAD_NAME)
        expect(res.raw.includes(PNG)).toBe(false)
        expect(res.raw.toString()).not.toContain(SECRET)
      }
    }
  })

  it('answers 404 for an avatar name that is not stored', async () => {
    const res = await t.call({ url: '/api/common/avatar?url=avatar/2020/01/01/none.png' })
    expect(res.status).toBe(404)
    expect(res.code).toBe(404)
  })
})
