import { DatePicker, InputNumber, Space } from 'antd'
import type { Dayjs } from 'dayjs'
import { useTranslation } from 'react-i18next'
import { durationUnitOf } from '@velo/shared'
import { durationUnitWord } from '../../i18n/numbers'
import type { InputProps } from '../kinds/types'

/** A day range for dates and instants. */
export function DayRangeInput({ value, onChange, id, field, ...rest }: InputProps & { autoFocus?: boolean }) {
  return (
    <DatePicker.RangePicker id={id} value={value as [Dayjs | null, Dayjs | null] | null | undefined} onChange={onChange} allowEmpty={[true, true]} style={{ width: 240 }} autoFocus={rest.autoFocus} data-testid={`search-${field.name}`} />
  )
}

/** From and to for numbers; either may stay empty. */
export function NumberRangeInput({ value, onChange, id, field, ...rest }: InputProps & { autoFocus?: boolean }) {
  const { t } = useTranslation()
  const [from, to] = Array.isArray(value) ? value : [null, null]
  // A duration is searched in the unit it is stored in: both boxes name it.
  const unit = durationUnitOf(field)
  const suffix = unit ? { suffix: durationUnitWord(unit) } : {}
  return (
    <Space.Compact id={id}>
      <InputNumber value={from} placeholder={t('crud.from')} autoFocus={rest.autoFocus} onChange={(v) => onChange?.([v, to])} {...suffix} />
      <InputNumber value={to} placeholder={t('crud.to')} onChange={(v) => onChange?.([from, v])} {...suffix} />
    </Space.Compact>
  )
}
