import { useMemo, type ReactNode } from 'react'
import { Form } from 'antd'
import { type FieldDef, PERSONAL_CATEGORY_LABELS, type ResolvedEntity, type ValueType } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { fieldRules, kindOf } from '../kinds/kindTable'
import { OtherFieldsContext, type OtherFields } from '../kinds/otherFields'
import type { InputComponent, InputProps, InputRenderer } from '../kinds/types'
import { FieldControl } from './FieldControl'
import { isLocked, isShown, type FormMode } from './formValues'
import { TypedValueInput, typedValueRule, typeFor } from './typedValue'
import { widgetNamed } from './widgets'
import { MaskedInput } from '../privacy/MaskedInput'
import './formTexts'

/** One input component per value type, so a type's input keeps its identity (and focus) across renders. */
const typedInputs = new Map<ValueType | undefined, InputComponent>()
function typedInputFor(valueType: ValueType | undefined): InputComponent {
  let input = typedInputs.get(valueType)
  if (!input) typedInputs.set(valueType, (input = (props: InputProps) => <TypedValueInput {...props} valueType={valueType} />))
  return input
}

export interface EntityFormItemProps {
  entity: ResolvedEntity
  field: FieldDef
  /** On modify an immutable field is shown locked, and not checked. Default: add. */
  mode?: FormMode
  /** The page's input in place of the generated one (`formInputs`). */
  override?: InputRenderer
  /** Shown locked, and not checked: the row's state no longer lets it change (the definition's `states`). */
  locked?: boolean
  /** The row being modified (a tree's parent picker leaves out the row's own subtree). */
  rowId?: unknown
  /**
   * A personal field whose category the user has no right to see (modify only): shown disabled with
   * its mask and why, not checked; the form leaves it out of the PUT, which the server refuses with
   * it. `masked`: the row has a value there (the server named it in `masked`).
   */
  hiddenPersonal?: { masked: boolean }
  /**
   * Puts the item in its place (a grid column). A field another field's value leaves out (`when`)
   * leaves out its place too.
   */
  place?: (item: ReactNode) => ReactNode
}

const asIs = (item: ReactNode) => item

/**
 * One field of a form built from a definition, as the add/modify form and a step's or action's input
 * dialog show it: the label, the kind's input (or the named widget, or the page's own), the help
 * under it, and the field's rules: the shared value schema the server checks with (required,
 * lengths, money's two decimals, dictionary and enum options, files). A field typed by another
 * (`typedBy`) takes the input and the check of its type, following that field's value; a field with
 * `when` is shown, and checked, only while the other field has one of the values.
 */
export function EntityFormItem({ entity, field: f, mode = 'add', override, locked: lockedByState = false, rowId, hiddenPersonal, place = asIs }: EntityFormItemProps) {
  const { t } = useTranslation()
  const kind = kindOf(f)
  const locked = lockedByState || isLocked(f, mode)

  const formItem = (typed?: { values: Row }) => {
    if (hiddenPersonal) {
      return (
        <Form.Item name={f.name} label={localized(f.label)} extra={t('crud.maskedField', { category: localized(PERSONAL_CATEGORY_LABELS[f.personal!]) })}>
          <MaskedInput masked={hiddenPersonal.masked} />
        </Form.Item>
      )
    }
    const valueType = typed && typeFor(f, typed.values)
    return (
      <Form.Item
        name={f.name}
        label={localized(f.label)}
        rules={locked ? [] : [...fieldRules(f, t), ...(typed ? typedValueRule(valueType, typed.values[f.typedBy!.field], t) : [])]}
        validateFirst
        extra={f.help ? localized(f.help) : undefined}
        valuePropName={kind.valuePropName}
        normalize={kind.normalize}
      >
        <FieldControl
          entity={entity}
          field={f}
          input={typed ? typedInputFor(valueType) : (widgetNamed(f.widget) ?? kind.Input)}
          override={override}
          disabled={locked}
          rowId={rowId}
        />
      </Form.Item>
    )
  }

  // A hidden value has no type to follow: it is shown as its mask whatever the other field says.
  const by = hiddenPersonal ? undefined : f.typedBy?.field
  const item = by ? (
    <Form.Item noStyle shouldUpdate={(before: Row, after: Row) => before[by] !== after[by]}>
      {({ getFieldValue }) => formItem({ values: { [by]: getFieldValue(by) } })}
    </Form.Item>
  ) : (
    formItem()
  )
  const within = f.kind === 'reference' ? f.within : undefined
  const placed = place(within ? <WatchedField name={within}>{item}</WatchedField> : item)
  const when = f.when
  if (!when) return placed
  // Shown, and checked, only while the other field has one of the values (a menu's type decides its fields).
  return (
    <Form.Item noStyle shouldUpdate={(before: Row, after: Row) => before[when.field] !== after[when.field]}>
      {({ getFieldValue }) => (isShown(f, { [when.field]: getFieldValue(when.field) }) ? placed : null)}
    </Form.Item>
  )
}

/** The value of the field an input lies within (a colour's model), as this form holds it now. */
function WatchedField({ name, children }: { name: string; children: ReactNode }) {
  const form = Form.useFormInstance()
  const value = Form.useWatch(name, form) as unknown
  const fields = useMemo<OtherFields>(() => ({ get: (other) => (other === name ? value : form.getFieldValue(other)) }), [name, value, form])
  return <OtherFieldsContext.Provider value={fields}>{children}</OtherFieldsContext.Provider>
}
