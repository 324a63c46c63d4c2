import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { configValueType, defineEntity } from '@velo/shared'
import { renderWithProviders } from '../../test/render'
import { OperationDialog } from './OperationDialog'
import { actionOperation } from './operations'

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
        { name: 'settingValue', kind: 'text', label: { en_US: 'Setting value', zh_CN: '参数值' }, typedBy: { field: 'settingKey', typeOf: configValueType } },
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

    fireEvent.change(within(dialog).getByLabelText('Amount'), { target: { value: '10.125' } })
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

    fireEvent.change(within(dialog).getByLabelText('Amount'), { target: { value: '10.5' } })
    submit()
    await waitFor(() => expect(onRun).toHaveBeenCalledTimes(1))
    // The voucher code was not shown: neither checked nor sent.
    expect(onRun).toHaveBeenCalledWith({ amount: 10.5, way: 'card', settingKey: 'sys.account.registerUser', settingValue: 'true' })
    expect(onClose).toHaveBeenCalled()
  })
})
