import { useEffect, useRef, useState } from 'react'
import { Alert, Button, Col, Descriptions, Form, Modal, Row as GridRow, Space, Spin, Typography, type ButtonProps } from 'antd'
import { useMutation, useQuery } from '@tanstack/react-query'
import { NOTE_PLACEHOLDER, noteApplies, type OperationNote, type ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { crudApi, crudKeys, type Row } from '../api/crudApi'
import { placeFieldErrors } from '../api/fieldErrors'
import { FieldValue } from '../details/FieldValue'
import { useDiscardGuard } from '../form/discardChanges'
import { EntityFormItem } from '../form/EntityFormItem'
import { formPayload, initialFormValues, isShown } from '../form/formValues'
import { OptionsCell } from '../kinds/cells'
import { enumOption } from '../kinds/options'
import { ChoiceInput } from '../kinds/inputs'
import { OperationPreview, PREVIEW_DEBOUNCE_MS, useOperationPreview } from './OperationPreview'
import { confirmText, inputComplete, previewOperation, subjectOf, type Operation } from './operations'
import { useFeedback } from '../../lib/feedback'
import { isMaskedIn } from '../privacy/personal'
import './operationTexts'

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

/** Long values (the feedback's text) and pictures take the context's whole width. */
const WIDE_CONTEXT_KINDS = new Set(['longText', 'richText', 'image'])

/**
 * The row's fields the definition names as the step's `context` (what a reply answers: the member,
 * stars, tags, the whole text and the pictures), read with GET {path}/{id} so fields the list leaves
 * out show too, each as the details show it.
 */
function OperationContext({ entity, fields, id }: { entity: ResolvedEntity; fields: readonly string[]; id: unknown }) {
  const { t } = useTranslation()
  const row = useQuery({ queryKey: crudKeys.row(entity, id), queryFn: () => crudApi(entity).get(id), gcTime: 0 })
  const shown = fields.map((name) => entity.fieldMap.get(name)).filter((f) => f !== undefined)
  return (
    <section className="crud-operation-context" data-testid="operation-context">
      <Typography.Title level={5}>{t('crud.operationContext', { entity: localized(entity.singular) })}</Typography.Title>
      {!row.data ? (
        <Spin spinning style={{ display: 'block', padding: 32 }} />
      ) : (
        <Descriptions
          bordered
          size="small"
          column={1}
          className="crud-details"
          items={shown
            // A picture the member did not send leaves no empty line; a hidden one shows its mask.
            .filter((f) => f.kind !== 'image' || row.data[f.name] || isMaskedIn(row.data, f))
            .map((f) => ({
              key: f.name,
              label: localized(f.label),
              children: (
                <div className={WIDE_CONTEXT_KINDS.has(f.kind) ? 'crud-operation-context-long' : undefined} data-testid={`operation-context-${f.name}`}>
                  <FieldValue entity={entity} field={f} row={row.data} />
                </div>
              ),
            }))}
        />
      )}
    </section>
  )
}

/** A note's `{field}` placeholders as the details show the row's values (a device's SN for its reference). */
function NoteText({ entity, text, row }: { entity: ResolvedEntity; text: string; row: Row }) {
  // split() with a capturing group: the text between placeholders at even places, the names at odd ones.
  const parts = text.split(NOTE_PLACEHOLDER)
  return (
    <>
      {parts.map((part, i) => {
        const field = i % 2 === 1 ? entity.fieldMap.get(part) : undefined
        return field ? <FieldValue key={i} entity={entity} field={field} row={row} /> : part
      })}
    </>
  )
}

/**
 * What the operation does beyond the row (the definition's `notes`): each note the row meets, read
 * from the row as GET {path}/{id} answers it (the same query as the context).
 */
function OperationNotes({ entity, notes, id }: { entity: ResolvedEntity; notes: readonly OperationNote[]; id: unknown }) {
  const row = useQuery({ queryKey: crudKeys.row(entity, id), queryFn: () => crudApi(entity).get(id), gcTime: 0 })
  if (!row.data) return null
  return notes
    .filter((note) => noteApplies(note, row.data))
    .map((note, i) => <Alert key={i} type="info" showIcon title={<NoteText entity={entity} text={localized(note.text)} row={row.data} />} style={{ marginBottom: 16 }} data-testid="operation-note" />)
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
  const { modal } = useFeedback()
  const [form] = Form.useForm<Row>()
  const statusField = entity.transitions && entity.fieldMap.get(entity.transitions.field)
  const label = localized(operation.label)
  const [initialValues] = useState(() => initialFormValues(operation.input, 'add', {}))
  // Esc, the close icon and Cancel ask before what was entered is lost.
  const askDiscard = useDiscardGuard()
  const close = () => askDiscard(form, initialValues, onClose)
  const contextRow = operation.context.length > 0 && rows.length === 1 ? rows[0] : undefined

  /**
   * The body as sent: the chosen state and the shown inputs in their wire form. Blank optional
   * inputs, and those another input's value leaves out (`when`), are left out, as the history keeps them.
   */
  const bodyOf = (values: Row, current: Row = values): Row => {
    const shown = operation.input.filter((f) => isShown(f, current))
    const body = { ...(operation.choices.length ? { [TARGET]: values[TARGET] } : {}), ...formPayload(entity, shown, values, 'add') }
    return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== null && v !== ''))
  }

  // The preview follows the input once it rests for a moment, and only a complete input is asked
  // about: a half-typed one would be refused (400) for what the fields' own rules already say. Start
  // values that are complete (an action without input) are asked at once.
  const [previewBody, setPreviewBody] = useState<Row | null>(() => (inputComplete(operation.input, initialValues) ? bodyOf(initialValues) : null))
  const preview = useOperationPreview(entity, operation, rows, previewBody)
  const debounce = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(debounce.current), [])
  const inputChanged = () => {
    if (!operation.preview) return
    clearTimeout(debounce.current)
    debounce.current = setTimeout(() => {
      const current = form.getFieldsValue(true) as Row
      // The same rules as the submit (limits, formats), without marking the fields while the user types.
      form
        .validateFields({ validateOnly: true })
        .then(() => setPreviewBody(inputComplete(operation.input, current) ? bodyOf(current) : null))
        .catch(() => setPreviewBody(null))
    }, PREVIEW_DEBOUNCE_MS)
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

  // The preview and its second confirmation are part of the run: the button stays loading through them.
  const operationRun = useMutation({
    /** Whether it ran: false when the second confirmation was cancelled. */
    mutationFn: async (values: Row): Promise<boolean> => {
      let body = bodyOf(values, form.getFieldsValue(true) as Row)
      if (operation.preview) {
        // Asked for exactly what is sent, not the last debounced input.
        const answer = await previewOperation(entity, operation, rows, body)
        if (answer.secondConfirm) {
          if (!(await confirmAgain(answer.secondConfirm))) return false
          body = { ...body, confirmed: true }
        }
      }
      await onRun(body)
      return true
    },
    onSuccess: (ran) => {
      if (ran) onClose()
    },
    onError: (error) => placeFieldErrors(form, [TARGET, ...operation.input.map((f) => f.name)], error),
  })

  async function submit() {
    let values: Row
    try {
      values = await form.validateFields()
    } catch {
      return // antd marks the fields
    }
    operationRun.mutate(values)
  }

  const inputs = (
    <>
      {operation.confirm && <Alert type={operation.danger ? 'warning' : 'info'} showIcon title={confirmText(entity, operation, rows, t)} style={{ marginBottom: 16 }} />}
      {operation.notes.length > 0 && rows.length === 1 && <OperationNotes entity={entity} notes={operation.notes} id={rows[0]![entity.idField]} />}
      <Form<Row>
        form={form}
        name={`${entity.key}-${operation.name}`}
        layout={contextRow ? 'vertical' : 'horizontal'}
        labelCol={contextRow ? undefined : { flex: '130px' }}
        labelWrap
        initialValues={initialValues}
        onValuesChange={inputChanged}
        data-testid="operation-form"
      >
        {statusField && operation.choices.length > 0 && (
          <Form.Item name={TARGET} label={t('crud.moveTo')} rules={[{ required: true, message: t('crud.moveToRequired') }]}>
            <ChoiceInput
              placeholder={t('crud.choose', { label: localized(statusField.label) })}
              choices={operation.choices.map((state) => {
                const defined = statusField.kind === 'enum' ? statusField.options.find((o) => o.value === state) : undefined
                const option = defined && enumOption(defined)
                return { value: state, label: <OptionsCell entity={entity} field={statusField} value={state} row={{}} />, text: option?.label ?? state, description: option?.description }
              })}
              data-testid="operation-target"
            />
          </Form.Item>
        )}
        {/* The form kit's items: the same inputs and rules as the add/modify form. */}
        {operation.input.map((f) => (
          <EntityFormItem key={f.name} entity={entity} field={f} mode="add" />
        ))}
      </Form>
      {/* An incomplete input has no preview: not the last one of a value since erased. */}
      {operation.preview && previewBody && <OperationPreview preview={preview} />}
    </>
  )

  return (
    <Modal
      open
      title={t(contextRow ? 'crud.operationTitleOf' : 'crud.operationTitle', { operation: label, entity: localized(entity.singular), subject: subjectOf(entity, rows, t) })}
      footer={
        <Space>
          <Button onClick={close}>{t('common.cancel')}</Button>
          <Button type="primary" danger={operation.danger} loading={operationRun.isPending} onClick={() => void submit()} data-testid="operation-submit">
            {label}
          </Button>
        </Space>
      }
      onCancel={close}
      width={contextRow ? 1040 : 560}
      destroyOnHidden
      mask={{ closable: false }}
    >
      {contextRow ? (
        // What the step is about on the left, the input beside it; stacked on a narrow screen.
        <GridRow gutter={24}>
          <Col xs={24} md={12}>
            <OperationContext entity={entity} fields={operation.context} id={contextRow[entity.idField]} />
          </Col>
          <Col xs={24} md={12}>
            {inputs}
          </Col>
        </GridRow>
      ) : (
        inputs
      )}
    </Modal>
  )
}
