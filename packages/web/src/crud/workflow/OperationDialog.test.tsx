import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { defineEntity } from '@velo/shared'
import { jsonResponse, renderWithProviders } from '../../test/render'
import { OperationDialog } from './OperationDialog'
import { actionOperation, sendOperation } from './operations'

// A step's or action's input is the form kit's EntityFormItem: the same rules as the add/modify form
// (money's two decimals, lengths, required), `typedBy` and `when`.

const invoice = defineEntity({
  key: 'opDialogInvoice',
  table: 'opDialogInvoice',
  path: '/test/invoice',
  permission: 'test:invoice',
  label: { en_US: 'Invoices', zh_CN: '发票' },
  idField: 'invoiceId',
  labelField: 'invoiceNo',
  defaultSort: { field: 'invoiceId', order: 'asc' },
  fields: [
    { name: 'invoiceId', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'invoiceNo', kind: 'text', label: { en_US: 'Number', zh_CN: '单号' }, required: true, max: 20 },
  ],
  actions: [
    {
      name: 'refund',
      label: { en_US: 'Refund', zh_CN: '退款' },
      on: 'row',
      input: [
        { name: 'amount', kind: 'money', label: { en_US: 'Amount', zh_CN: '金额' }, required: true, min: 0 },
        { name: 'reference', kind: 'text', label: { en_US: 'Reference', zh_CN: '参考号' }, max: 4 },
        {
          name: 'way',
          kind: 'enum',
          label: { en_US: 'Way', zh_CN: '方式' },
          default: 'card',
          options: [
            { value: 'card', label: { en_US: 'Card', zh_CN: '银行卡' } },
            { value: 'voucher', label: { en_US: 'Voucher', zh_CN: '代金券' } },
          ],
        },
        { name: 'voucherCode', kind: 'text', label: { en_US: 'Voucher code', zh_CN: '代金券码' }, required: true, when: { field: 'way', is: ['voucher'] } },
        { name: 'settingKey', kind: 'text', label: { en_US: 'Setting', zh_CN: '参数' } },
        { name: 'settingValue', kind: 'text', label: { en_US: 'Setting value', zh_CN: '参数值' }, typedBy: { field: 'settingKey', table: 'config' } },
      ],
    },
  ],
})

function renderDialog() {
  const onRun = vi.fn(async () => {})
  const onClose = vi.fn()
  renderWithProviders(<OperationDialog entity={invoice} operation={actionOperation(invoice, invoice.actions![0]!)} rows={[{ invoiceId: 1, invoiceNo: 'INV-1' }]} onClose={onClose} onRun={onRun} />)
  const dialog = screen.getByRole('dialog')
  const submit = () => fireEvent.click(within(dialog).getByTestId('operation-submit'))
  return { dialog, submit, onRun, onClose }
}

describe('operation dialog', () => {
  beforeEach(() => {
    // Nothing here loads options from the server.
    vi.stubGlobal('fetch', vi.fn())
  })
  afterEach(() => vi.unstubAllGlobals())

  it('checks the input with the shared rules of each kind before sending anything', async () => {
    const { dialog, submit, onRun } = renderDialog()
    submit()
    expect(await within(dialog).findByText('Amount is required')).toBeTruthy()

    fireEvent.change(await within(dialog).findByLabelText('Amount'), { target: { value: '10.125' } })
    fireEvent.change(within(dialog).getByLabelText('Reference'), { target: { value: 'ABCDE' } })
    submit()
    expect(await within(dialog).findByText('Amount may have at most 2 decimal places')).toBeTruthy()
    expect(await within(dialog).findByText('Reference must be at most 4 characters')).toBeTruthy()
    expect(onRun).not.toHaveBeenCalled()
  })

  it('shows a field only while another input has its values (`when`), and types one by another (`typedBy`)', async () => {
    const { dialog, submit, onRun, onClose } = renderDialog()
    expect(within(dialog).queryByLabelText('Voucher code')).toBeNull()
    fireEvent.change(within(dialog).getByLabelText('Setting'), { target: { value: 'sys.account.registerUser' } })
    await waitFor(() => expect(within(dialog).getByLabelText('Setting value').getAttribute('role')).toBe('switch'))

    fireEvent.click(within(dialog).getByLabelText('Setting value'))

    fireEvent.change(await within(dialog).findByLabelText('Amount'), { target: { value: '10.5' } })
    submit()
    await waitFor(() => expect(onRun).toHaveBeenCalledTimes(1))
    // The voucher code was not shown: neither checked nor sent.
    expect(onRun).toHaveBeenCalledWith({ amount: 10.5, way: 'card', settingKey: 'sys.account.registerUser', settingValue: 'true' })
    expect(onClose).toHaveBeenCalled()
  })
})

// An action with `preview`: the dialog asks POST {action route}/preview as the input changes and
// shows what the action would do; a preview with `secondConfirm` asks once more at submit.

const batch = defineEntity({
  key: 'opDialogBatch',
  table: 'opDialogBatch',
  path: '/test/batch',
  permission: 'test:batch',
  label: { en_US: 'Batches', zh_CN: '批次' },
  idField: 'batchId',
  labelField: 'batchNo',
  defaultSort: { field: 'batchId', order: 'asc' },
  fields: [
    { name: 'batchId', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'batchNo', kind: 'text', label: { en_US: 'Number', zh_CN: '批号' }, required: true, max: 20 },
  ],
  actions: [
    {
      name: 'generate',
      label: { en_US: 'Generate numbers', zh_CN: '生成编号' },
      on: 'row',
      preview: true,
      input: [{ name: 'count', kind: 'number', int: true, min: 1, label: { en_US: 'Count', zh_CN: '数量' }, required: true }],
    },
  ],
})

describe('operation dialog with a preview', () => {
  const fetchMock = vi.fn<typeof fetch>()
  const calls = (path: string) => fetchMock.mock.calls.filter(([url]) => String(url) === `/api${path}`)
  const bodies = (path: string) => calls(path).map(([, init]) => JSON.parse(String(init?.body)) as Record<string, unknown>)
  const PREVIEW = '/test/batch/1/action/generate/preview'
  const ACTION = '/test/batch/1/action/generate'

  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock)
    fetchMock.mockImplementation(async (url, init) => {
      const path = String(url).replace(/^\/api/, '')
      const body = JSON.parse(String(init?.body ?? '{}')) as { count?: number }
      if (path === PREVIEW) {
        // Like the action: a missing count is a 400 naming the field.
        if (body.count === undefined) return jsonResponse({ errors: [{ field: 'count', message: 'Count is required' }] }, 400)
        return jsonResponse({
          facts: [
            { label: 'Format', value: 'VL A T MET ###### C' },
            { label: 'Numbers', value: `000001 – ${String(body.count).padStart(6, '0')}` },
          ],
          ...(body.count > 100 ? { warning: `${body.count} is more than 5 % over the order` } : {}),
          ...(body.count > 500 ? { secondConfirm: `Generate ${body.count} numbers, more than the order allows?` } : {}),
        })
      }
      if (path === ACTION) return jsonResponse({ generated: body.count })
      return jsonResponse(null, 404)
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    fetchMock.mockReset()
  })

  function renderPreviewDialog() {
    const operation = actionOperation(batch, batch.actions![0]!)
    const rows = [{ batchId: 1, batchNo: 'B-1' }]
    const onClose = vi.fn()
    // The real call, so the request's body is what is checked.
    const onRun = vi.fn(async (body: Record<string, unknown>) => void (await sendOperation(batch, operation, rows, body)))
    renderWithProviders(<OperationDialog entity={batch} operation={operation} rows={rows} onClose={onClose} onRun={onRun} />)
    const dialog = screen.getByRole('dialog')
    const typeCount = (value: string) => fireEvent.change(within(dialog).getByLabelText('Count'), { target: { value } })
    return { dialog, typeCount, onRun, onClose }
  }

  it('asks the preview only for a complete input, debounced as it changes; shows the facts and the warning', async () => {
    const { dialog, typeCount } = renderPreviewDialog()
    // No count yet: nothing is asked (the server would refuse it, 400), nothing shown (issue 36).
    await new Promise((r) => setTimeout(r, 500))
    expect(calls(PREVIEW)).toHaveLength(0)
    expect(within(dialog).queryByTestId('operation-preview')).toBeNull()
    expect(screen.queryByText('Count is required')).toBeNull()

    // Typed quickly: one request, for the value where the typing rested.
    typeCount('1')
    typeCount('12')
    typeCount('120')
    await waitFor(() => expect(calls(PREVIEW)).toHaveLength(1))
    expect(bodies(PREVIEW)[0]).toEqual({ count: 120 })
    const facts = await within(dialog).findByTestId('operation-preview')
    expect(within(facts).getByText('Format')).toBeTruthy()
    expect(within(facts).getByText('VL A T MET ###### C').closest('code')).toBeTruthy()
    expect(within(facts).getByText('000001 – 000120')).toBeTruthy()
    expect(within(dialog).getByTestId('operation-preview-warning').textContent).toContain('120 is more than 5 % over the order')

    typeCount('50')
    await waitFor(() => expect(within(dialog).getByText('000001 – 000050')).toBeTruthy())
    expect(bodies(PREVIEW)).toHaveLength(2)
    expect(within(dialog).queryByTestId('operation-preview-warning')).toBeNull()

    // Erased: the last facts go with it, and nothing is asked.
    typeCount('')
    await waitFor(() => expect(within(dialog).queryByTestId('operation-preview')).toBeNull())
    await new Promise((r) => setTimeout(r, 500))
    expect(bodies(PREVIEW)).toHaveLength(2)
  })

  it('sends an ordinary preview’s action at once, without a second confirmation', async () => {
    const { dialog, typeCount, onClose } = renderPreviewDialog()
    typeCount('50')
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    await waitFor(() => expect(calls(ACTION)).toHaveLength(1))
    expect(bodies(ACTION)[0]).toEqual({ count: 50 })
    // Asked once more for exactly what was sent.
    expect(bodies(PREVIEW).at(-1)).toEqual({ count: 50 })
    expect(screen.queryByText('Confirm again')).toBeNull()
    await waitFor(() => expect(onClose).toHaveBeenCalled())
  })

  it('asks once more when the preview says so, and sends `confirmed: true` only after OK', async () => {
    const { dialog, typeCount, onClose } = renderPreviewDialog()
    typeCount('600')
    // Submitted before the debounced preview is asked: the submit asks for its own values.
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    const ok = await screen.findByTestId('operation-second-confirm-ok')
    const again = ok.closest('.operation-second-confirm')!
    expect(again.textContent).toContain('Confirm again')
    expect(again.textContent).toContain('Generate 600 numbers, more than the order allows?')
    expect(ok.textContent).toBe('Generate numbers')
    expect(ok.className).toContain('ant-btn-dangerous')
    expect(calls(ACTION)).toHaveLength(0)

    fireEvent.click(ok)
    await waitFor(() => expect(calls(ACTION)).toHaveLength(1))
    expect(bodies(ACTION)[0]).toEqual({ count: 600, confirmed: true })
    await waitFor(() => expect(onClose).toHaveBeenCalled())
  })

  it('sends nothing when the second confirmation is cancelled, and stays open', async () => {
    const { dialog, typeCount, onRun, onClose } = renderPreviewDialog()
    typeCount('600')
    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    const ok = await screen.findByTestId('operation-second-confirm-ok')
    fireEvent.click(within(ok.closest('.operation-second-confirm') as HTMLElement).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(within(dialog).getByTestId('operation-submit').className).not.toContain('ant-btn-loading'))
    expect(onRun).not.toHaveBeenCalled()
    expect(calls(ACTION)).toHaveLength(0)
    expect(onClose).not.toHaveBeenCalled()
    expect(screen.getByTestId('operation-form')).toBeTruthy()
  })
})

// Choices that say what they mean (an enum option's `description`): any input with choices shows the
// meaning under each name, in a radio list for a few and in the dropdown's options for more.

const described = (value: string, name: string) => ({ value, label: { en_US: name, zh_CN: name }, description: { en_US: `${name}: what it means`, zh_CN: `${name}：含义` } })

const shipment = defineEntity({
  key: 'opDialogShipment',
  table: 'opDialogShipment',
  path: '/test/shipment',
  permission: 'test:shipment',
  label: { en_US: 'Shipments', zh_CN: '货运' },
  idField: 'shipmentId',
  labelField: 'shipmentNo',
  defaultSort: { field: 'shipmentId', order: 'asc' },
  fields: [
    { name: 'shipmentId', kind: 'number', label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true },
    { name: 'shipmentNo', kind: 'text', label: { en_US: 'Number', zh_CN: '单号' }, required: true, max: 20 },
  ],
  actions: [
    {
      name: 'dispatch',
      label: { en_US: 'Dispatch', zh_CN: '发货' },
      on: 'row',
      input: [
        { name: 'speed', kind: 'enum', label: { en_US: 'Speed', zh_CN: '时效' }, required: true, options: [described('slow', 'Slow'), described('fast', 'Fast')] },
        {
          name: 'carrier',
          kind: 'enum',
          label: { en_US: 'Carrier', zh_CN: '承运商' },
          options: ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'].map((name) => described(name.toLowerCase(), name)),
        },
      ],
    },
  ],
})

describe('choices with what they mean', () => {
  beforeEach(() => vi.stubGlobal('fetch', vi.fn()))
  afterEach(() => vi.unstubAllGlobals())

  it('lists a few as radios with the meaning under each name, and more in a dropdown with the meaning in each option', async () => {
    const onRun = vi.fn(async () => {})
    renderWithProviders(<OperationDialog entity={shipment} operation={actionOperation(shipment, shipment.actions![0]!)} rows={[{ shipmentId: 1, shipmentNo: 'S-1' }]} onClose={vi.fn()} onRun={onRun} />)
    const dialog = screen.getByRole('dialog')
    const radios = within(dialog).getAllByRole('radio')
    expect(radios).toHaveLength(2)
    expect(within(dialog).getByText('Slow: what it means').closest('.crud-choice-list')).toBeTruthy()
    expect(within(dialog).getByText('Fast: what it means')).toBeTruthy()
    fireEvent.click(within(dialog).getByRole('radio', { name: /^Fast/ }))

    // Five carriers: a dropdown, each option with its meaning; the chosen one shows its name only.
    fireEvent.mouseDown(within(dialog).getByLabelText('Carrier'))
    expect(await screen.findByText('Delta: what it means')).toBeTruthy()
    fireEvent.click(screen.getByText('Delta: what it means'))
    await waitFor(() => expect(within(dialog).getByTitle('Delta')).toBeTruthy())

    fireEvent.click(within(dialog).getByTestId('operation-submit'))
    await waitFor(() => expect(onRun).toHaveBeenCalledWith({ speed: 'fast', carrier: 'delta' }))
  })
})
