import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor } from '@testing-library/react'
import { defineEntity } from '@velo/shared'
import { renderWithProviders } from '../../test/render'
import { StoredFileInput } from './StoredFileInput'

const entity = defineEntity({
  key: 'firmwareDoc',
  table: 'firmwareDoc',
  path: '/test/firmware',
  permission: 'test:firmware',
  label: { en_US: 'Firmware', zh_CN: '固件' },
  idField: 'id',
  defaultSort: { field: 'id', order: 'asc' },
  fields: [
    { name: 'id', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'image', kind: 'file', accept: ['bin', '.HEX'], maxBytes: 2048, label: { en_US: 'Image', zh_CN: '镜像' } },
  ],
})
const field = entity.fieldMap.get('image')!

const SHA = 'a'.repeat(64)

/** Stands in for the browser's XMLHttpRequest: records what is sent and lets the test play the server. */
class FakeXhr {
  static last: FakeXhr | null = null
  static count = 0
  method = ''
  url = ''
  headers: Record<string, string> = {}
  body: FormData | null = null
  status = 0
  responseText = ''
  aborted = false
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null }
  onload: (() => void) | null = null
  onerror: (() => void) | null = null
  onabort: (() => void) | null = null
  constructor() {
    FakeXhr.last = this
    FakeXhr.count++
  }
  open(method: string, url: string) {
    this.method = method
    this.url = url
  }
  setRequestHeader(key: string, value: string) {
    this.headers[key.toLowerCase()] = value
  }
  send(body: FormData) {
    this.body = body
  }
  abort() {
    this.aborted = true
    this.onabort?.()
  }
  respond(status: number, body: unknown) {
    this.status = status
    this.responseText = JSON.stringify(body)
    this.onload?.()
  }
}

const original = globalThis.XMLHttpRequest
beforeEach(() => {
  FakeXhr.last = null
  FakeXhr.count = 0
  globalThis.XMLHttpRequest = FakeXhr as unknown as typeof XMLHttpRequest
})
afterEach(() => {
  globalThis.XMLHttpRequest = original
})

function renderInput(value?: string) {
  const onChange = vi.fn()
  const view = renderWithProviders(<StoredFileInput entity={entity} field={field} value={value} onChange={onChange} id="image" />)
  const input = () => view.container.querySelector('input[type=file]') as HTMLInputElement
  const choose = (file: File) => fireEvent.change(input(), { target: { files: [file] } })
  return { ...view, onChange, input, choose }
}

describe('the file kind input', () => {
  it('offers the field extensions and says its limits', () => {
    const { input } = renderInput()
    expect(input().accept).toBe('.bin,.hex')
    expect(screen.getByText('bin, hex; at most 2 KB')).toBeTruthy()
  })

  it('refuses a wrong extension and a file over the size limit before sending anything', async () => {
    const { choose, onChange } = renderInput()
    choose(new File(['x'], 'notes.txt'))
    expect(await screen.findByText('Allowed file types: bin, hex')).toBeTruthy()
    choose(new File([new Uint8Array(4096)], 'big.bin'))
    expect(await screen.findByText('big.bin is larger than 2 KB')).toBeTruthy()
    expect(FakeXhr.count).toBe(0)
    expect(onChange).not.toHaveBeenCalled()
  })

  it('uploads to the field route with progress, then shows name, size and SHA-256 and sets the stored name', async () => {
    const { choose, onChange } = renderInput()
    choose(new File([new Uint8Array(1000)], 'bms 1.2.3.bin'))
    await waitFor(() => expect(FakeXhr.last).not.toBeNull())
    const xhr = FakeXhr.last!
    expect(xhr.method).toBe('POST')
    expect(xhr.url).toMatch(/\/test\/firmware\/file\/image$/)
    expect((xhr.body!.get('file') as File).name).toBe('bms 1.2.3.bin')
    expect(xhr.headers.currentlanguage).toBeDefined()

    act(() => xhr.upload.onprogress!({ lengthComputable: true, loaded: 500, total: 1000 }))
    const bar = await screen.findByRole('progressbar')
    expect(bar.getAttribute('aria-valuenow')).toBe('50')

    const fileName = 'file/firmwareDoc/2026/11/24/0b7f.bin'
    act(() =>
      xhr.respond(200, {
        code: 200,
        msg: 'ok',
        data: { fileName, originalName: 'bms 1.2.3.bin', size: 1000, contentType: 'application/octet-stream', sha256: SHA, md5: 'b'.repeat(32), crc8: { variant: 'CRC-8/SMBUS', value: 'F4' } },
      }),
    )
    await waitFor(() => expect(onChange).toHaveBeenCalledWith(fileName))
    expect(screen.queryByRole('progressbar')).toBeNull()
  })

  it('shows what the server answered once the form holds the stored name', async () => {
    const fileName = 'file/firmwareDoc/2026/11/24/0b7f.bin'
    const { choose, rerender } = renderInput()
    choose(new File([new Uint8Array(1000)], 'bms.bin'))
    await waitFor(() => expect(FakeXhr.last).not.toBeNull())
    act(() =>
      FakeXhr.last!.respond(200, {
        code: 200,
        msg: 'ok',
        data: { fileName, originalName: 'bms.bin', size: 1536, contentType: 'application/octet-stream', sha256: SHA, md5: 'b'.repeat(32), crc8: { variant: 'CRC-8/SMBUS', value: 'F4' } },
      }),
    )
    // Form.Item passes the new value back in.
    rerender(<StoredFileInput entity={entity} field={field} value={fileName} onChange={() => undefined} id="image" />)
    expect(await screen.findByText('bms.bin')).toBeTruthy()
    expect(screen.getByText('1.5 KB')).toBeTruthy()
    expect(screen.getByText(SHA)).toBeTruthy()
  })

  it('shows the refusal of the server and keeps the value', async () => {
    const { choose, onChange } = renderInput()
    choose(new File([new Uint8Array(10)], 'x.bin'))
    await waitFor(() => expect(FakeXhr.last).not.toBeNull())
    act(() => FakeXhr.last!.respond(413, { code: 413, msg: 'The file is larger than 1 KB', data: null }))
    expect(await screen.findByText('The file is larger than 1 KB')).toBeTruthy()
    expect(onChange).not.toHaveBeenCalled()
  })

  it('cancels an upload on its way', async () => {
    const { choose, onChange } = renderInput()
    choose(new File([new Uint8Array(10)], 'x.bin'))
    await waitFor(() => expect(FakeXhr.last).not.toBeNull())
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel' }))
    expect(FakeXhr.last!.aborted).toBe(true)
    await waitFor(() => expect(screen.queryByRole('progressbar')).toBeNull())
    expect(onChange).not.toHaveBeenCalled()
  })

  it('links a stored value to its download and lets it be removed', () => {
    const onChange = vi.fn()
    renderWithProviders(<StoredFileInput entity={entity} field={field} value="file/firmwareDoc/2026/11/24/0b7f.bin" onChange={onChange} />)
    expect(screen.getByText('0b7f.bin')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: /Remove/ }))
    expect(onChange).toHaveBeenCalledWith('')
  })
})
