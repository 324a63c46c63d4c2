import { DatePicker, InputNumber, Select, Space } from 'antd'
import type { FieldDef, SearchMode } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { kindOf } from '../kinds/kindTable'
import { controlProps, OptionsSelect, TextInput } from '../kinds/inputs'
import type { InputComponent, InputProps } from '../kinds/types'
import { isDayKind } from './searchFields'

/** A day range for dates and instants. */
function DayRangeInput({ value, onChange, id, field }: InputProps) {
  return <DatePicker.RangePicker id={id} value={value} onChange={onChange} allowEmpty={[true, true]} style={{ width: 240 }} data-testid={`search-${field.name}`} />
}

/** From and to for numbers; either may stay empty. */
function NumberRangeInput({ value, onChange, id }: InputProps) {
  const { t } = useTranslation()
  const [from, to] = Array.isArray(value) ? value : [null, null]
  return (
    <Space.Compact id={id}>
      <InputNumber value={from} placeholder={t('crud.from')} onChange={(v) => onChange?.([v, to])} />
      <InputNumber value={to} placeholder={t('crud.to')} onChange={(v) => onChange?.([from, v])} />
    </Space.Compact>
  )
}

/** Several values: the field's choices, or free values typed in. */
function ManyInput(props: InputProps) {
  const choices = ['dict', 'enum', 'boolean', 'timeZone', 'reference', 'referenceMany'].includes(props.field.kind)
  if (choices) return <OptionsSelect {...props} multiple />
  return <Select mode="tags" open={false} allowClear {...controlProps(props)} />
}

const BY_MODE: Record<SearchMode, (f: FieldDef) => InputComponent> = {
  like: () => TextInput,
  eq: (f) => kindOf(f).Search,
  // A subtree search picks its node in the same tree select an exact match on the reference uses.
  subtree: (f) => kindOf(f).Search,
  range: (f) => (isDayKind(f) ? DayRangeInput : NumberRangeInput),
  in: () => ManyInput,
}

export const searchInputFor = (f: FieldDef, mode: SearchMode): InputComponent => BY_MODE[mode](f)
