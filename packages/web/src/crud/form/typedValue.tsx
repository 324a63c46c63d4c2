import { InputNumber, Select, Switch } from 'antd'
import type { FormRule } from 'antd'
import { checkTypedValue, type FieldDef, VALUE_TYPE_TABLES, type ValueProblem, type ValueType } from '@velo/shared'
import type { TFunction } from 'i18next'
import { localized } from '../../i18n'
import type { Row } from '../api/crudApi'
import { controlProps, DescribedChoice, TextInput } from '../kinds/inputs'
import type { InputProps } from '../kinds/types'
import './formTexts'

// A text field typed by another field's value (`typedBy`: a configuration value by its key). The
// form value stays the text the server stores ('true', '10'); the input is the type's: a switch, a
// number with the type's limits, a select of its choices, or a text box.

/** The type of the field's value for the form's current values; none for free text. */
export const typeFor = (f: FieldDef, values: Row): ValueType | undefined => (f.typedBy ? VALUE_TYPE_TABLES[f.typedBy.table](values[f.typedBy.field]) : undefined)

export function TypedValueInput(props: InputProps & { valueType: ValueType | undefined }) {
  const { valueType, ...rest } = props
  const { value, onChange, ...control } = controlProps(rest)
  const text = value === undefined || value === null ? '' : String(value)
  switch (valueType?.type) {
    case 'boolean':
      return (
        <Switch
          {...control}
          checked={text.trim().toLowerCase() === 'true'}
          onChange={(on) => onChange?.(on ? 'true' : 'false')}
          checkedChildren="true"
          unCheckedChildren="false"
          data-testid="typed-value-boolean"
        />
      )
    case 'integer': {
      const n = /^[+-]?\d+$/.test(text.trim()) ? Number(text) : null
      return (
        <InputNumber
          {...control}
          style={{ width: '100%' }}
          min={valueType.min}
          max={valueType.max}
          precision={0}
          value={n}
          suffix={valueType.unit ? localized(valueType.unit) : undefined}
          onChange={(v) => onChange?.(v === null || v === undefined ? '' : String(v))}
          data-testid="typed-value-integer"
        />
      )
    }
    case 'enum':
      return (
        <Select
          {...control}
          value={text === '' ? undefined : text}
          onChange={(v) => onChange?.(v ?? '')}
          options={valueType.options.map((o) => ({ value: o.value, label: localized(o.label), description: o.description && localized(o.description) }))}
          optionRender={valueType.options.some((o) => o.description) ? (o) => <DescribedChoice label={o.data.label} description={o.data.description} /> : undefined}
          data-testid="typed-value-enum"
        />
      )
    default:
      return <TextInput {...rest} />
  }
}

function problemText(problem: ValueProblem, key: string, t: TFunction): string {
  switch (problem.type) {
    case 'boolean':
      return t('crud.typedBoolean', { key })
    case 'integer':
      return t('crud.typedInteger', { key, min: problem.min, max: problem.max })
    case 'enum':
      return t('crud.typedEnum', { key, values: problem.values.join(', ') })
    case 'text':
      return problem.rule ? t('crud.typedText', { key, rule: localized(problem.rule) }) : t('crud.typedFormat', { key })
  }
}

/** The type's check, as the server makes it (it has the last word); blank is left to "required". */
export function typedValueRule(valueType: ValueType | undefined, key: unknown, t: TFunction): FormRule[] {
  if (!valueType) return []
  return [
    {
      validator: (_, value) => {
        if (value === undefined || value === null || String(value).trim() === '') return Promise.resolve()
        const checked = checkTypedValue(valueType, String(value))
        return checked.ok ? Promise.resolve() : Promise.reject(new Error(problemText(checked.problem, String(key ?? '').trim(), t)))
      },
    },
  ]
}
