import type { ReactNode } from 'react'
import { Alert, Button, Col, Drawer, Form, Modal, Row as GridRow, Space, Spin, type ButtonProps } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type ResolvedEntity, stateRules } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { crudApi, crudKeys, type EntityRow, type Row } from '../api/crudApi'
import { refreshAfterChange } from '../api/refresh'
import { confirmQuestionOf, placeFieldErrors } from '../api/fieldErrors'
import { kindOf } from '../kinds/kindTable'
import type { InputRenderer } from '../kinds/types'
import { mayEditRow, refusalText, stateLockedFields } from '../list/stateRefusal'
import { useDiscardGuard } from './discardChanges'
import { EntityFormItem } from './EntityFormItem'
import { formFieldsFor, formPayload, initialFormValues, isShown, type FormMode } from './formValues'
import { useEntitiesNamedBy } from '../../entities/areas'
import { useFeedback } from '../../lib/feedback'
import { isMaskedIn } from '../privacy/personal'
import { useHiddenCategories } from '../privacy/hidden'

/** Up to this many fields the form is a dialog; longer forms get a drawer with two columns. */
export const DIALOG_FIELD_LIMIT = 8

const NO_FIELDS: ReadonlySet<string> = new Set()

/** The OK button of the server's question before a save ("… already exists, overwrite?"). */
const CONFIRM_SAVE_OK = { 'data-testid': 'form-confirm-ok' } as ButtonProps

export interface EntityFormProps<E extends ResolvedEntity = ResolvedEntity> {
  entity: E
  /** The id of the row to modify; none adds a row. */
  id?: unknown
  /** Values an add form starts with, e.g. the parent of a new child node. */
  preset?: Row
  onClose: () => void
  /** After a successful save; the lists of the entity refresh by themselves. */
  onSaved?: (row: EntityRow<E>) => void
  /** Inputs in place of the generated ones, by field name. */
  inputs?: Readonly<Record<string, InputRenderer>>
}

/** The add/modify form of an entity, built from its form fields (docs/entity-engine.md). */
export function EntityForm<E extends ResolvedEntity>({ entity, id, preset, onClose, onSaved, inputs = {} }: EntityFormProps<E>) {
  useEntitiesNamedBy(entity)
  const { t } = useTranslation()
  const { message, modal } = useFeedback()
  const queryClient = useQueryClient()
  const [form] = Form.useForm<Row>()
  const mode: FormMode = id === undefined ? 'add' : 'edit'
  const fields = formFieldsFor(entity, mode)
  const api = crudApi(entity)
  const row = useQuery({ queryKey: crudKeys.row(entity, id), queryFn: () => api.get(id), enabled: mode === 'edit', gcTime: 0 })
  const dialog = fields.length <= DIALOG_FIELD_LIMIT
  const source = mode === 'edit' ? row.data : (preset ?? {})
  // What the row's state no longer lets change is shown locked and not sent (a published agreement's
  // text); a row its state makes read-only (finished since the list was read) cannot be saved at all.
  const loaded = mode === 'edit' ? (row.data as Row | undefined) : undefined
  const stateLocked = loaded ? stateLockedFields(entity, loaded) : NO_FIELDS
  const readOnly = !!loaded && !mayEditRow(entity, loaded)
  const lockRefusal = loaded && stateLocked.size ? stateRules(entity, loaded).editRefusal : null
  // Personal fields of a category the user may not see come masked: shown so, and never sent on
  // modify (the server refuses a PUT carrying one). An add takes what the user types, so it asks them all.
  const hidden = useHiddenCategories()
  const hiddenPersonal = mode === 'edit' ? new Set(fields.flatMap((f) => (f.personal && hidden.has(f.personal) ? [f.name] : []))) : NO_FIELDS
  const initialValues = source ? initialFormValues(fields, mode, source) : {}
  // Esc, the mask, the close icon and Cancel ask before what was entered is lost.
  const askDiscard = useDiscardGuard()
  const close = () => askDiscard(form, initialValues, onClose)

  /** The server's question about this save, in its words: true once OK is clicked. */
  const askBeforeSaving = (question: string) =>
    new Promise<boolean>((resolve) => {
      modal.confirm({
        title: t('crud.confirmTitle'),
        content: question,
        className: 'form-confirm-overwrite',
        okButtonProps: CONFIRM_SAVE_OK,
        onOk: () => resolve(true),
        onCancel: () => resolve(false),
      })
    })

  /** The server's field errors go under their fields; the rest is said in a message. */
  const placeErrors = (error: unknown) => placeFieldErrors(form, fields.map((f) => f.name), error)

  // The server's question is part of the save: the button stays loading while it is asked.
  const rowSave = useMutation({
    /** The saved row, or null when the user cancelled the server's question. */
    mutationFn: async (values: Row): Promise<EntityRow<E> | null> => {
      // Fields another field's value leaves out (`when`) are not sent.
      const current = form.getFieldsValue(true) as Row
      const body = formPayload(entity, fields.filter((f) => isShown(f, current) && !stateLocked.has(f.name) && !hiddenPersonal.has(f.name)), values, mode, row.data)
      const send = (confirmed: boolean) => (mode === 'add' ? api.add(body, confirmed) : api.edit(body, confirmed))
      try {
        return await send(false)
      } catch (error) {
        const question = confirmQuestionOf(error)
        if (question === null) throw error
        // Cancel leaves the form open as it was, with nothing sent.
        if (!(await askBeforeSaving(question))) return null
        return send(true)
      }
    },
    onSuccess: (saved) => {
      if (!saved) return
      void message.success(t(mode === 'add' ? 'crud.addSuccess' : 'crud.editSuccess'))
      void refreshAfterChange(queryClient, entity)
      onSaved?.(saved)
      onClose()
    },
    onError: placeErrors,
  })

  async function save() {
    let values: Row
    try {
      values = await form.validateFields()
    } catch {
      return // antd marks the fields
    }
    rowSave.mutate(values)
  }

  const items = fields.map((f) => (
    <EntityFormItem
      key={f.name}
      entity={entity}
      field={f}
      mode={mode}
      override={inputs[f.name]}
      locked={stateLocked.has(f.name)}
      rowId={id}
      hiddenPersonal={hiddenPersonal.has(f.name) ? { masked: !!loaded && isMaskedIn(loaded, f) } : undefined}
      place={
        dialog
          ? undefined
          : (item) => (
              <Col xs={24} md={kindOf(f).wide ? 24 : 12}>
                {item}
              </Col>
            )
      }
    />
  ))

  const body: ReactNode = !source ? (
    <Spin spinning style={{ display: 'block', padding: 48 }} data-testid="entity-form-loading" />
  ) : (
    <Form<Row>
      form={form}
      name={`${entity.key}-form`}
      layout={dialog ? 'horizontal' : 'vertical'}
      labelCol={dialog ? { flex: '130px' } : undefined}
      labelWrap
      initialValues={initialValues}
      scrollToFirstError
      data-testid="entity-form"
    >
      {loaded && lockRefusal && (
        <Alert
          type={readOnly ? 'warning' : 'info'}
          showIcon
          style={{ marginBottom: 16 }}
          title={refusalText(t, entity, loaded, lockRefusal, readOnly ? 'edit' : 'someFields')}
          data-testid="form-state-notice"
        />
      )}
      {dialog ? items : <GridRow gutter={16}>{items}</GridRow>}
    </Form>
  )

  const title = t(mode === 'add' ? 'crud.addTitle' : 'crud.editTitle', { entity: localized(entity.singular) })
  const buttons = (
    <Space>
      <Button onClick={close}>{t('common.cancel')}</Button>
      <Button type="primary" loading={rowSave.isPending} disabled={!source || readOnly} onClick={() => void save()} data-testid="entity-form-save">
        {t('common.save')}
      </Button>
    </Space>
  )
  return dialog ? (
    <Modal open title={title} onCancel={close} footer={buttons} width={640} destroyOnHidden>
      {body}
    </Modal>
  ) : (
    <Drawer open title={title} onClose={close} extra={buttons} size={760} destroyOnHidden>
      {body}
    </Drawer>
  )
}
