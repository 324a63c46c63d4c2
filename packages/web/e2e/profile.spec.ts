import { expect, test } from '@playwright/test'
import { deflateSync } from 'node:zlib'
import { apiLogin, createUserWithoutMenus, openSignedIn, useToken } from './support/session'

/** A tiny valid PNG (solid colour), built here so the spec needs no fixture file. */
function png(size = 8): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (buf: Buffer) => {
    let c = 0xffffffff
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data])
    const out = Buffer.alloc(8 + data.length + 4)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc(body), 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3, 0x40)])
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)))
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))])
}

test('avatar upload shows the new avatar at once', async ({ page, baseURL }) => {
  await openSignedIn(page, baseURL!, '/user/profile')
  const navbarAvatar = page.getByTestId('avatar-menu').locator('img')
  await expect(navbarAvatar).toHaveAttribute('src', '/avatar.gif')

  await page.getByTestId('avatar-upload').locator('..').locator('input[type=file]').setInputFiles({
    name: 'me.png',
    mimeType: 'image/png',
    buffer: png(),
  })
  await expect(page.locator('.ant-message-success')).toContainText('Avatar updated')
  await expect(navbarAvatar).toHaveAttribute('src', /\/api\/common\/avatar\?url=.+&t=\d+$/)
  await expect.poll(() => navbarAvatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(8)

  // Only images are accepted.
  await page.getByTestId('avatar-upload').locator('..').locator('input[type=file]').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('hello'),
  })
  await expect(page.locator('.ant-message-error')).toContainText('JPG, JPEG or PNG')
})

test('the seeded admin saves their profile as it is', async ({ page, baseURL }) => {
  // Issue 12: the seed left the admin without the phone the rules require, so Save was refused.
  await openSignedIn(page, baseURL!, '/user/profile')
  const form = page.getByTestId('profile-form')
  await expect(form.getByLabel('Phone')).not.toHaveValue('')
  await form.getByRole('button', { name: 'Save' }).click()
  await expect(page.locator('.ant-message-success')).toContainText('Saved successfully')
  await expect(form.locator('.ant-form-item-explain-error')).toHaveCount(0)
})

test('change password: a wrong old password fails, a right one succeeds', async ({ page, baseURL, context }) => {
  // A throwaway account, so the admin password used by the other specs never changes.
  const user = await createUserWithoutMenus(page.request)
  await useToken(context, baseURL!, await apiLogin(page.request, user))
  await page.goto('/user/profile')
  await page.locator('.ant-modal-confirm').getByRole('button', { name: 'Cancel' }).click() // no menus: dismiss
  await page.getByRole('tab', { name: 'Change password' }).click()
  const form = page.getByTestId('password-form')

  await form.getByLabel('Old password').fill('wrong-old')
  await form.getByLabel('New password').fill('short')
  await form.getByLabel('Confirm password').fill('other')
  await form.getByRole('button', { name: 'Save' }).click()
  await expect(form).toContainText('6 to 20 letters, digits or special characters')
  await expect(form).toContainText('The two passwords do not match')

  await form.getByLabel('New password').fill('brand-new-1')
  await form.getByLabel('Confirm password').fill('brand-new-1')
  await form.getByRole('button', { name: 'Save' }).click()
  // One prefix, from the page; the server gives the reason (never "failed: … failed: …").
  await expect(page.locator('.ant-message-error')).toHaveText('Change password failed: The old password is wrong')

  await form.getByLabel('Old password').fill(user.password)
  await form.getByRole('button', { name: 'Save' }).click()
  await expect(page.locator('.ant-message-success')).toContainText('Password changed')
  await apiLogin(page.request, { username: user.username, password: 'brand-new-1' })
})
