import { useState } from 'react'
import { Alert, Button, Form, Modal, Select, Space } from 'antd'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { placeFieldErrors } from '../api/fieldErrors'
import { EntityFormItem } from '../form/EntityFormItem'
import { formPayload, initialFormValues, isShown } from '../form/formValues'
import { OptionsCell } from '../kinds/cells'
import { confirmText, subjectOf, type Operation } from './operations'

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

/**
 * The dialog of a step or action that takes input or lets the caller choose the next state: the
 * states to choose from (in their colours), then the input fields, each the form kit's
 * `EntityFormItem` (the kind's input or widget, the shared rules, `typedBy` and `when`).
 */
export function OperationDialog({ entity, operation, rows, onClose, onRun }: OperationDialogProps) {
  const { t } = useTranslation()
  const [form] = Form.useForm<Row>()
  const [running, setRunning] = useState(false)
  const statusField = entity.transitions && entity.fieldMap.get(entity.transitions.field)

  async function submit() {
    let values: Row
    try {
      values = await form.validateFields()
    } catch {
      return // antd marks the fields
    }
    setRunning(true)
    try {
      // Blank optional inputs, and those another input's value leaves out (`when`), are left out, as the history keeps them.
      const current = form.getFieldsValue(true) as Row
      const shown = operation.input.filter((f) => isShown(f, current))
      const input = Object.entries(formPayload(entity, shown, values, 'add')).filter(([, v]) => v !== undefined && v !== null && v !== '')
      await onRun({ ...(operation.choices.length ? { [TARGET]: values[TARGET] } : {}), ...Object.fromEntries(input) })
      onClose()
    } catch (error) {
      placeFieldErrors(form, [TARGET, ...operation.input.map((f) => f.name)], error)
    } finally {
      setRunning(false)
    }
  }

  const label = localized(operation.label)
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
        initialValues={initialFormValues(operation.input, 'add', {})}
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
    </Modal>
  )
}
