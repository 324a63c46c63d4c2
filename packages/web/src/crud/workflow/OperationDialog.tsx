import { useEffect, useRef, useState } from 'react'
import { Alert, App, Button, Form, Modal, Select, Space, type ButtonProps } from 'antd'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { placeFieldErrors } from '../api/fieldErrors'
import { EntityFormItem } from '../form/EntityFormItem'
import { formPayload, initialFormValues, isShown } from '../form/formValues'
import { OptionsCell } from '../kinds/cells'
import { OperationPreview, PREVIEW_DEBOUNCE_MS, useOperationPreview } from './OperationPreview'
import { confirmText, previewOperation, subjectOf, type Operation } from './operations'

/** The field of a step's chosen state in the body (the server's name for it). */
const TARGET = 'to'

export interface OperationDialogProps {
  entity: ResolvedEntity
  operation: Operation
  rows: readonly Row[]
  onClose: () => void
  /** Sends the body; a refusal with field errors leaves the dialog open with them under the fields. */
  onRun: (body: Row) => Promise<void>
}

/** The OK button of the second confirmation (an action whose preview says `secondConfirm`). */
const SECOND_CONFIRM_OK = { 'data-testid': 'operation-second-confirm-ok' } as ButtonProps

/**
 * The dialog of a step or action that takes input, lets the caller choose the next state or shows a
 * preview: the states to choose from (in their colours), then the input fields, each the form kit's
 * `EntityFormItem` (the kind's input or widget, the shared rules, `typedBy` and `when`), then what
 * the action would do (`preview`), asked again as the input changes. A preview with `secondConfirm`
 * at submit asks once more, and the action goes with `confirmed: true`.
 */
export function OperationDialog({ entity, operation, rows, onClose, onRun }: OperationDialogProps) {
  const { t } = useTranslation()
  const { modal } = App.useApp()
  const [form] = Form.useForm<Row>()
  const [running, setRunning] = useState(false)
  const statusField = entity.transitions && entity.fieldMap.get(entity.transitions.field)
  const label = localized(operation.label)
  const [initialValues] = useState(() => initialFormValues(operation.input, 'add', {}))

  /**
   * The body as sent: the chosen state and the shown inputs in their wire form. Blank optional
   * inputs, and those another input's value leaves out (`when`), are left out, as the history keeps them.
   */
  const bodyOf = (values: Row, current: Row = values): Row => {
    const shown = operation.input.filter((f) => isShown(f, current))
    const body = { ...(operation.choices.length ? { [TARGET]: values[TARGET] } : {}), ...formPayload(entity, shown, values, 'add') }
    return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== null && v !== ''))
  }

  // The preview follows the input once it rests for a moment; it is asked at once for the start values.
  const [previewBody, setPreviewBody] = useState(() => bodyOf(initialValues))
  const preview = useOperationPreview(entity, operation, rows, previewBody)
  const debounce = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(debounce.current), [])
  const inputChanged = () => {
    if (!operation.preview) return
    clearTimeout(debounce.current)
    debounce.current = setTimeout(() => setPreviewBody(bodyOf(form.getFieldsValue(true) as Row)), PREVIEW_DEBOUNCE_MS)
  }

  /** The preview's second confirmation: true once OK is clicked, false when cancelled. */
  const confirmAgain = (text: string) =>
    new Promise<boolean>((resolve) => {
      modal.confirm({
        title: t('crud.confirmAgain'),
        content: text,
        className: 'operation-second-confirm',
        okText: label,
        okButtonProps: { ...SECOND_CONFIRM_OK, danger: true },
        onOk: () => resolve(true),
        onCancel: () => resolve(false),
      })
    })

  async function submit() {
    let values: Row
    try {
      values = await form.validateFields()
    } catch {
      return // antd marks the fields
    }
    setRunning(true)
    try {
      let body = bodyOf(values, form.getFieldsValue(true) as Row)
      if (operation.preview) {
        // Asked for exactly what is sent, not the last debounced input.
        const answer = await previewOperation(entity, operation, rows, body)
        if (answer.secondConfirm) {
          if (!(await confirmAgain(answer.secondConfirm))) return
          body = { ...body, confirmed: true }
        }
      }
      await onRun(body)
      onClose()
    } catch (error) {
      placeFieldErrors(form, [TARGET, ...operation.input.map((f) => f.name)], error)
    } finally {
      setRunning(false)
    }
  }

  return (
    <Modal
      open
      title={t('crud.operationTitle', { operation: label, subject: subjectOf(entity, rows, t) })}
      footer={
        <Space>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="primary" danger={operation.danger} loading={running} onClick={() => void submit()} data-testid="operation-submit">
            {label}
          </Button>
        </Space>
      }
      onCancel={onClose}
      width={560}
      destroyOnHidden
      mask={{ closable: false }}
    >
      {operation.confirm && <Alert type={operation.danger ? 'warning' : 'info'} showIcon title={confirmText(entity, operation, rows, t)} style={{ marginBottom: 16 }} />}
      <Form<Row>
        form={form}
        name={`${entity.key}-${operation.name}`}
        layout="horizontal"
        labelCol={{ flex: '130px' }}
        labelWrap
        initialValues={initialValues}
        onValuesChange={inputChanged}
        data-testid="operation-form"
      >
        {statusField && operation.choices.length > 0 && (
          <Form.Item name={TARGET} label={t('crud.moveTo')} rules={[{ required: true, message: t('crud.moveToRequired') }]}>
            <Select
              placeholder={t('crud.choose', { label: localized(statusField.label) })}
              options={operation.choices.map((state) => ({
                value: state,
                label: <OptionsCell entity={entity} field={statusField} value={state} row={{}} />,
              }))}
              data-testid="operation-target"
            />
          </Form.Item>
        )}
        {/* The form kit's items: the same inputs and rules as the add/modify form. */}
        {operation.input.map((f) => (
          <EntityFormItem key={f.name} entity={entity} field={f} mode="add" />
        ))}
      </Form>
      {operation.preview && <OperationPreview preview={preview} />}
    </Modal>
  )
}
