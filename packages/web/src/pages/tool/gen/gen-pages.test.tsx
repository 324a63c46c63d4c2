import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes } from 'react-router'
import type { GenTableConfig, SessionUser } from '@velo/shared'
import { sessionStore } from '../../../session/sessionStore'
import { removeToken, setToken } from '../../../session/token'
import i18n from '../../../i18n'
import { jsonResponse, renderWithProviders } from '../../../test/render'
import GenEditPage from './edit'
import GenListPage from './index'

// CodeMirror needs layout jsdom lacks; the preview's contract is the text it is given.
vi.mock('../../../lib/code/CodeEditor', () => ({
  CodeEditor: ({ value, testId, language }: { value: string; testId?: string; language: { kind: string } }) => (
    <pre data-testid={testId} data-language={language.kind}>
      {value}
    </pre>
  ),
}))

const fetchMock = vi.fn<typeof fetch>()
const signIn = (permissions: string[]) => sessionStore.setState({ user: { username: 'tester' } as SessionUser, roles: ['dev'], permissions })
const calls = (method: string, path: string) =>
  fetchMock.mock.calls.filter(([url, init]) => String(url).replace(/\?.*$/, '') === `/api${path}` && (init?.method ?? 'GET') === method)
const bodyOf = (call: Parameters<typeof fetch>) => JSON.parse(String(call[1]?.body)) as unknown

const ALL = ['tool:gen:list', 'tool:gen:query', 'tool:gen:remove', 'tool:gen:edit', 'tool:gen:import', 'tool:gen:preview', 'tool:gen:code']

const rows = [{ tableId: 7, tableName: 'shop_item', tableComment: 'Shop items', entityKey: 'shopItem', area: 'service', template: 'plain', createTime: '2026-11-25T01:00:00Z', updateTime: null }]
const dbTables = [
  { tableName: 'shop_order', comment: 'Orders of the shop', columns: 9 },
  { tableName: 'shop_coupon', comment: 'Coupons', columns: 4 },
  { tableName: 'warehouse', comment: 'Stock places', columns: 6 },
]

const column = (over: Partial<GenTableConfig['columns'][number]>): GenTableConfig['columns'][number] => ({
  column: 'x',
  dbType: 'varchar(100)',
  primaryKey: false,
  nullable: true,
  comment: '',
  name: 'x',
  label: { en_US: 'X', zh_CN: '某' },
  kind: 'text',
  required: false,
  search: '',
  list: true,
  form: true,
  export: true,
  dict: '',
  max: 100,
  ...over,
})

const config: GenTableConfig = {
  entityKey: 'shopItem',
  area: 'service',
  path: '/service/shopItem',
  permission: 'service:shopItem',
  label: { en_US: 'Shop items', zh_CN: '商品' },
  template: 'plain',
  treeParent: null,
  columns: [
    column({ column: 'item_id', dbType: 'integer', primaryKey: true, nullable: false, name: 'itemId', label: { en_US: 'Item ID', zh_CN: '商品编号' }, kind: 'number', form: false, max: null }),
    column({ column: 'item_name', name: 'itemName', label: { en_US: 'Item name', zh_CN: '商品名称' }, required: true, search: 'like', comment: '*/ process.exit() /*' }),
    column({ column: 'item_state', dbType: 'char(1)', name: 'itemState', label: { en_US: 'Item state', zh_CN: '商品状态' }, max: 1 }),
  ],
}

const files = [
  { path: 'packages/shared/src/entities/shop-item.ts', language: 'typescript', content: "export const shopItem = defineEntity({ key: 'shopItem' })\n" },
  { path: 'packages/server/src/db/migrations/2026-11-25T09-shop-item.ts', language: 'typescript', content: 'export async function up() {}\n' },
  { path: 'docs/shop-item.md', language: 'markdown', content: '# Shop items\n' },
]

type Route = (path: string, init: RequestInit | undefined) => Response | Promise<Response> | undefined

function serve(route: Route = () => undefined) {
  fetchMock.mockImplementation(async (input, init) => {
    const path = String(input).replace(/^\/api/, '').replace(/\?.*$/, '')
    const own = await route(path, init)
    if (own) return own
    if (path.startsWith('/system/dict/getDicts/')) return jsonResponse([])
    if (path === '/system/dict/list') return jsonResponse({ rows: [{ dictId: 1, dictName: 'Item state', dictType: 'shop_item_state' }, { dictId: 2, dictName: 'Yes/no', dictType: 'sys_yes_no' }], total: 2 })
    if (path === '/tool/gen/list') return jsonResponse({ rows, total: rows.length })
    if (path === '/tool/gen/tables') return jsonResponse(dbTables)
    if (path === '/tool/gen/import') return jsonResponse({ imported: (bodyOf([input, init]) as { tables: string[] }).tables.length })
    if (path === '/tool/gen/7/config' && (init?.method ?? 'GET') === 'GET') return jsonResponse({ tableId: 7, tableName: 'shop_item', tableComment: 'Shop items', config })
    if (path === '/tool/gen/7/config') {
      // The stored settings come back, their keys in the server's own order.
      const { area, ...rest } = bodyOf([input, init]) as GenTableConfig
      return jsonResponse({ tableId: 7, tableName: 'shop_item', tableComment: 'Shop items', config: { ...rest, area } })
    }
    if (path === '/tool/gen/7/preview') return jsonResponse({ files })
    if (path === '/tool/gen/7/sync') return jsonResponse({ tableId: 7, tableName: 'shop_item', tableComment: 'Shop items', config })
    return jsonResponse(null, 404)
  })
}

const open = (url: string) =>
  renderWithProviders(
    <MemoryRouter initialEntries={[url]}>
      <Routes>
        <Route path="/tool/gen" element={<GenListPage />} />
        <Route path="/tool/gen/edit" element={<GenEditPage />} />
      </Routes>
    </MemoryRouter>,
  )

/** OK on the newest dialog saying `text`. */
async function confirm(text: string) {
  const dialog = await waitFor(() => {
    const found = screen.getAllByRole('dialog').findLast((d) => d.textContent?.includes(text))
    expect(found, `a dialog saying ${text}`).toBeTruthy()
    return found!
  })
  fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }))
}

/** Picks an option of an antd Select opened from its labelled input. */
async function pick(label: string, option: string) {
  const input = screen.getByLabelText(label)
  fireEvent.mouseDown(input)
  const dropdown = await waitFor(() => {
    const list = document.getElementById(input.getAttribute('aria-controls') ?? `${input.id}_list`)
    expect(list).toBeTruthy()
    return list!.closest('.ant-select-dropdown') as HTMLElement
  })
  fireEvent.click(await within(dropdown).findByText(option, { selector: '.ant-select-item-option-content, .ant-select-item-option-content *' }))
}

/** A row action, clicked in the row or in its More menu. */
async function rowAction(testId: string) {
  const inline = screen.queryByTestId(testId)
  if (inline && inline.closest('.crud-row-actions')) return fireEvent.click(inline)
  fireEvent.click(screen.getByTestId('row-more'))
  fireEvent.click(await screen.findByTestId(testId))
}

describe('code generation pages', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    serve()
  })
  afterEach(async () => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
    sessionStore.setState({ user: null, roles: [], permissions: [] })
    sessionStorage.clear()
    if (i18n.language !== 'en_US') await act(() => i18n.changeLanguage('en_US'))
  })

  it('list: Import is offered only with tool:gen:import', async () => {
    signIn(['tool:gen:list'])
    open('/tool/gen')
    await screen.findByText('shop_item')
    expect(screen.queryByTestId('gen-import')).toBeNull()
    expect(screen.queryByTestId('row-gen-preview')).toBeNull()
    expect(screen.queryByTestId('row-more')).toBeNull()
  })

  it('list: the import dialog finds tables by name, imports the ticked ones and refreshes the list', async () => {
    signIn(ALL)
    open('/tool/gen')
    await screen.findByText('shop_item')
    const listCalls = calls('POST', '/tool/gen/list').length
    fireEvent.click(screen.getByTestId('gen-import'))
    const dialog = await screen.findByTestId('gen-import-dialog')
    await within(dialog).findByText('shop_order')
    expect(within(dialog).getByText('warehouse')).toBeTruthy()

    const okButton = () => screen.getByTestId('gen-import-ok') as HTMLButtonElement
    expect(okButton().disabled).toBe(true)
    fireEvent.change(within(dialog).getByLabelText('Find by table name or comment'), { target: { value: 'shop' } })
    expect(within(dialog).queryByText('warehouse')).toBeNull()
    for (const name of ['shop_order', 'shop_coupon']) fireEvent.click(within(within(dialog).getByText(name).closest('tr')!).getByRole('checkbox'))
    expect(okButton().textContent).toContain('Import selected (2)')
    fireEvent.click(okButton())

    await waitFor(() => expect(calls('POST', '/tool/gen/import')).toHaveLength(1))
    expect(bodyOf(calls('POST', '/tool/gen/import')[0]!)).toEqual({ tables: ['shop_order', 'shop_coupon'] })
    expect(await screen.findByText('2 tables imported')).toBeTruthy()
    await waitFor(() => expect(calls('POST', '/tool/gen/list').length).toBeGreaterThan(listCalls))
    await waitFor(() => expect(screen.queryByTestId('gen-import-dialog')).toBeNull())
  })

  it('list: a refused import keeps the dialog open with the server message', async () => {
    signIn(ALL)
    serve((path) => (path === '/tool/gen/import' ? jsonResponse(null, 400) : undefined))
    open('/tool/gen')
    await screen.findByText('shop_item')
    fireEvent.click(screen.getByTestId('gen-import'))
    const dialog = await screen.findByTestId('gen-import-dialog')
    fireEvent.click(within((await within(dialog).findByText('warehouse')).closest('tr')!).getByRole('checkbox'))
    fireEvent.click(screen.getByTestId('gen-import-ok'))
    expect(await screen.findByText('failed')).toBeTruthy()
    expect(screen.getByTestId('gen-import-dialog')).toBeTruthy()
  })

  it('preview: one tab per file with its path and text, markdown highlighted as markdown, copied on request', async () => {
    signIn(ALL)
    open('/tool/gen')
    await screen.findByText('shop_item')
    await rowAction('row-gen-preview')
    const preview = await screen.findByTestId('gen-preview')
    await within(preview).findByTestId('gen-preview-tab-0')
    expect(within(preview).getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['shop-item.ts', '2026-11-25T09-shop-item.ts', 'shop-item.md'])
    expect(within(preview).getByTestId('gen-preview-path-0').textContent).toBe(files[0]!.path)
    expect(within(preview).getByTestId('gen-preview-file-0').textContent).toBe(files[0]!.content)
    expect(within(preview).getByTestId('gen-preview-file-0').dataset.language).toBe('typescript')

    fireEvent.click(within(preview).getByTestId('gen-preview-tab-2'))
    const markdown = await within(preview).findByTestId('gen-preview-file-2')
    expect(markdown.textContent).toBe('# Shop items\n')
    expect(markdown.dataset.language).toBe('markdown')

    const execCommand = vi.fn(() => true)
    document.execCommand = execCommand
    fireEvent.click(within(preview).getByTestId('gen-preview-copy-2'))
    expect(await screen.findByText('Copied')).toBeTruthy()
    expect(execCommand).toHaveBeenCalledWith('copy')
  })

  it('list: Sync asks first, then says it is done; Download saves the zip, fetched with the token', async () => {
    signIn(ALL)
    setToken('Bearer test-token')
    serve((path) =>
      path === '/tool/gen/7/download'
        ? new Response('PK…', { status: 200, headers: { 'Content-Type': 'application/zip', 'Content-Disposition': 'attachment; filename="shopItem.zip"' } })
        : undefined,
    )
    const saved: string[] = []
    URL.createObjectURL = vi.fn(() => 'blob:zip')
    URL.revokeObjectURL = vi.fn()
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download)
    })
    open('/tool/gen')
    await screen.findByText('shop_item')

    await rowAction('row-gen-sync')
    await confirm('shop_item')
    await waitFor(() => expect(calls('POST', '/tool/gen/7/sync')).toHaveLength(1))
    expect(await screen.findByText('Synced with the database')).toBeTruthy()

    await rowAction('row-gen-download')
    await waitFor(() => expect(saved).toEqual(['shopItem.zip']))
    const [download] = calls('GET', '/tool/gen/7/download')
    expect(new Headers(download![1]!.headers).get('Authorization')).toBe('Bearer test-token')
    click.mockRestore()
    removeToken()
  })

  it('edit: opened from the row, changes a column label and kind, and saves the whole settings', async () => {
    signIn(ALL)
    open('/tool/gen')
    await screen.findByText('shop_item')
    await rowAction('row-gen-edit')
    expect(await screen.findByText('Edit generation config: shop_item')).toBeTruthy()
    expect((screen.getByLabelText('Table name') as HTMLInputElement).value).toBe('shop_item')
    expect((screen.getByLabelText('Table name') as HTMLInputElement).readOnly).toBe(true)
    expect((screen.getByLabelText('Entity key') as HTMLInputElement).value).toBe('shopItem')

    fireEvent.click(screen.getByTestId('gen-tab-columns'))
    const table = await screen.findByTestId('gen-columns')
    // A comment is text, whatever it looks like.
    expect(within(table).getByText('*/ process.exit() /*')).toBeTruthy()
    fireEvent.change(within(table).getByLabelText('Label (English) of item_state'), { target: { value: 'State' } })
    // The dictionary is only for dictionary columns.
    expect(within(table).getByLabelText('Dictionary of item_state').closest('.ant-select')!.className).toContain('disabled')
    await pick('Kind of item_state', 'Dictionary')
    await waitFor(() => expect(within(table).getByLabelText('Dictionary of item_state').closest('.ant-select')!.className).not.toContain('disabled'))
    await pick('Dictionary of item_state', 'Item state (shop_item_state)')
    fireEvent.click(within(table).getByLabelText('List of item_name'))

    fireEvent.click(screen.getByTestId('gen-save'))
    await waitFor(() => expect(calls('PUT', '/tool/gen/7/config')).toHaveLength(1))
    const sent = bodyOf(calls('PUT', '/tool/gen/7/config')[0]!) as GenTableConfig
    expect(sent).toEqual({
      ...config,
      columns: [
        config.columns[0],
        { ...config.columns[1], list: false },
        { ...config.columns[2], label: { en_US: 'State', zh_CN: '商品状态' }, kind: 'dict', dict: 'shop_item_state' },
      ],
    })
    expect(await screen.findByText('Saved successfully')).toBeTruthy()
    // Saved: Back leaves without asking.
    fireEvent.click(screen.getByTestId('gen-back'))
    expect(await screen.findByTestId('gen-import')).toBeTruthy()
  })

  it('edit: the API path is the area and entity key; the permission follows them until written by hand', async () => {
    signIn(ALL)
    open('/tool/gen/edit?tableId=7')
    await screen.findByText('Edit generation config: shop_item')
    fireEvent.change(screen.getByLabelText('Entity key'), { target: { value: 'shopGood' } })
    fireEvent.click(screen.getByTestId('gen-tab-generation'))
    await pick('Menu area', 'Members')
    expect((screen.getByLabelText('API path') as HTMLInputElement).value).toBe('/member/shopGood')
    // The console finds the page's module by its path: it is not written by hand.
    expect((screen.getByLabelText('API path') as HTMLInputElement).disabled).toBe(true)
    expect((screen.getByLabelText('Permission') as HTMLInputElement).value).toBe('member:shopGood')

    fireEvent.change(screen.getByLabelText('Permission'), { target: { value: 'member:goods' } })
    await pick('Menu area', 'Bikes')
    expect((screen.getByLabelText('API path') as HTMLInputElement).value).toBe('/bike/shopGood')
    expect((screen.getByLabelText('Permission') as HTMLInputElement).value).toBe('member:goods')

    fireEvent.click(screen.getByTestId('gen-save'))
    await waitFor(() => expect(calls('PUT', '/tool/gen/7/config')).toHaveLength(1))
    expect(bodyOf(calls('PUT', '/tool/gen/7/config')[0]!)).toMatchObject({ entityKey: 'shopGood', area: 'bike', path: '/bike/shopGood', permission: 'member:goods' })
  })

  it('edit: a refused save shows the server message and puts its field errors on the column', async () => {
    signIn(ALL)
    serve((path, init) =>
      path === '/tool/gen/7/config' && init?.method === 'PUT'
        ? new Response(
            JSON.stringify({ code: 400, msg: 'Invalid input: Field name must be camelCase', data: { errors: [{ field: 'columns.1.name', message: 'Field name must be camelCase' }] } }),
            { status: 400, headers: { 'Content-Type': 'application/json' } },
          )
        : undefined,
    )
    open('/tool/gen/edit?tableId=7')
    await screen.findByText('Edit generation config: shop_item')
    fireEvent.click(screen.getByTestId('gen-tab-columns'))
    fireEvent.change(await screen.findByLabelText('Field name of item_name'), { target: { value: 'Item-Name' } })
    fireEvent.click(screen.getByTestId('gen-save'))

    expect(await screen.findByText('Invalid input: Field name must be camelCase')).toBeTruthy()
    expect(within(screen.getByTestId('gen-errors')).getByText('item_name: Field name must be camelCase')).toBeTruthy()
    expect(screen.getByLabelText('Field name of item_name').closest('.ant-input')?.className ?? screen.getByLabelText('Field name of item_name').className).toContain('status-error')
    expect(screen.queryByText('Saved successfully')).toBeNull()
  })

  it('edit: Preview saves unsaved changes first, then shows the files', async () => {
    signIn(ALL)
    open('/tool/gen/edit?tableId=7')
    await screen.findByText('Edit generation config: shop_item')
    fireEvent.change(screen.getByLabelText('Label (English)'), { target: { value: 'Goods' } })
    fireEvent.click(screen.getByTestId('gen-preview-button'))
    await waitFor(() => expect(calls('PUT', '/tool/gen/7/config')).toHaveLength(1))
    expect(bodyOf(calls('PUT', '/tool/gen/7/config')[0]!)).toMatchObject({ label: { en_US: 'Goods', zh_CN: '商品' } })
    expect(await screen.findByTestId('gen-preview-file-0')).toBeTruthy()
  })

  it('edit: Chinese texts', async () => {
    await act(() => i18n.changeLanguage('zh_CN'))
    signIn(ALL)
    open('/tool/gen/edit?tableId=7')
    expect(await screen.findByText('修改生成配置：shop_item')).toBeTruthy()
    expect(screen.getByText('基本信息')).toBeTruthy()
    expect(screen.getByText('字段信息')).toBeTruthy()
    expect(screen.getByText('生成信息')).toBeTruthy()
    expect(screen.getByLabelText('实体名称')).toBeTruthy()
    fireEvent.click(screen.getByTestId('gen-tab-columns'))
    const table = await screen.findByTestId('gen-columns')
    expect(within(table).getAllByText('显示类型').length).toBeGreaterThan(0)
    expect(within(table).getByLabelText('item_state 的英文标签')).toBeTruthy()
    // Kinds and areas in Chinese.
    expect(within(table).getAllByText('文本框').length).toBeGreaterThan(0)
    fireEvent.click(screen.getByTestId('gen-tab-generation'))
    expect(await screen.findByText('售后服务')).toBeTruthy()
    expect(screen.getByText('单表')).toBeTruthy()
  })

  it('edit: Back asks before dropping unsaved changes, then returns to the list', async () => {
    signIn(ALL)
    open('/tool/gen/edit?tableId=7')
    await screen.findByText('Edit generation config: shop_item')
    fireEvent.change(screen.getByLabelText('Label (Chinese)'), { target: { value: '货品' } })
    fireEvent.click(screen.getByTestId('gen-back'))
    await confirm('Leave without saving?')
    expect(await screen.findByTestId('gen-import')).toBeTruthy()
    expect(calls('PUT', '/tool/gen/7/config')).toHaveLength(0)
  })

  it('edit: without a table in the address it says so', async () => {
    signIn(ALL)
    open('/tool/gen/edit')
    expect(await screen.findByText('No table chosen: open the settings from the code generation list')).toBeTruthy()
  })
})
