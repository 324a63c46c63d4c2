import { type FormInstance } from 'antd'
import { useTranslation } from 'react-i18next'
import type { Row } from '../api/crudApi'
import { useFeedback } from '../../lib/feedback'
import './formTexts'

/** A blank value however an input leaves it (undefined, null, '', no items): typed and erased is no change. */
const isBlank = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)

/** A value as it would be compared: dates (dayjs) and lists by their JSON form. */
const comparable = (value: unknown) => (isBlank(value) ? null : JSON.stringify(value))

/** The first field whose value differs from the one the form started with, if any. */
function firstChangedField(initial: Readonly<Row>, current: Readonly<Row>): string | undefined {
  const names = new Set([...Object.keys(initial), ...Object.keys(current)])
  for (const name of names) if (comparable(initial[name]) !== comparable(current[name])) return name
  return undefined
}

/** Whether any value differs from the one the form started with (a field typed into and restored is unchanged). */
export function hasUnsavedChanges(initial: Readonly<Row>, current: Readonly<Row>): boolean {
  return firstChangedField(initial, current) !== undefined
}

/** The class of the question's modal and the test id of its OK button (the tests find them). */
export const DISCARD_CONFIRM_CLASS = 'form-confirm-discard'
const DISCARD_OK = { danger: true, 'data-testid': 'form-discard-ok' } as const

/**
 * Closing a form (Esc, the mask, the close icon, Cancel) asks "Discard your changes?" while it holds
 * values the user entered; an untouched form closes at once. Cancel of the question keeps editing,
 * back in the field that was changed: the question took the focus, and a click outside had put it
 * nowhere, so a second Esc would otherwise reach no dialog at all.
 */
export function useDiscardGuard() {
  const { t } = useTranslation()
  const { modal } = useFeedback()
  return (form: FormInstance<Row>, initial: Readonly<Row>, close: () => void) => {
    const changed = form.isFieldsTouched() ? firstChangedField(initial, form.getFieldsValue(true) as Row) : undefined
    if (changed === undefined) return close()
    let keepEditing = false
    modal.confirm({
      title: t('crud.discardTitle'),
      content: t('crud.discardContent'),
      className: DISCARD_CONFIRM_CLASS,
      okText: t('crud.discard'),
      cancelText: t('crud.keepEditing'),
      okButtonProps: DISCARD_OK,
      onOk: close,
      onCancel: () => {
        keepEditing = true
      },
      afterClose: () => {
        if (keepEditing) form.focusField(changed)
      },
    })
  }
}
