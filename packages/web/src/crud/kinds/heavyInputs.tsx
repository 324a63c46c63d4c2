import { DatePicker, Input, InputNumber, Switch } from 'antd'
import type { Dayjs } from 'dayjs'
import { durationUnitOf } from '@velo/shared'
import { durationUnitWord } from '../../i18n/numbers'
import { controlProps, maxLengthOf } from './inputs'
import type { InputProps } from './types'

// The inputs that pull large antd controls (the date picker alone is 31 KB gzipped): the kind table
// reaches them through lazyInputs.tsx, so a list's first rows never wait for them.

export function LongTextInput(props: InputProps) {
  return <Input.TextArea autoSize={{ minRows: 3, maxRows: 10 }} showCount={!!maxLengthOf(props)} maxLength={maxLengthOf(props)} {...controlProps<string>(props)} />
}

export function NumberInput(props: InputProps) {
  const f = props.field
  const bounds = f.kind === 'number' || f.kind === 'money' ? { min: f.min, max: f.max } : {}
  const precision = f.kind === 'money' ? 2 : f.kind === 'number' && f.int ? 0 : undefined
  // A duration is entered as the number it is stored as: the input names its unit.
  const unit = durationUnitOf(f)
  return <InputNumber style={{ width: '100%' }} precision={precision} {...bounds} {...(unit ? { suffix: durationUnitWord(unit) } : {})} {...controlProps<number>(props)} />
}

export function SwitchInput(props: InputProps) {
  return <Switch {...controlProps<boolean>(props)} />
}

export function DateInput(props: InputProps) {
  return <DatePicker style={{ width: '100%' }} showTime={props.field.kind === 'datetime'} {...controlProps<Dayjs>(props)} />
}
