import { Select } from 'antd'
import type { FieldDef, SearchMode } from '@velo/shared'
import { kindOf } from '../kinds/kindTable'
import { controlProps, OptionsSelect, TextInput } from '../kinds/inputs'
import { inputOnDemand } from '../kinds/lazyInputs'
import type { InputComponent, InputProps } from '../kinds/types'
import { isDayKind } from './searchFields'

// The ranges' date picker and number inputs load when the user turns to the field (./rangeInputs.tsx).
const DayRangeInput = inputOnDemand(() => import('./rangeInputs').then((m) => m.DayRangeInput), 240)
const NumberRangeInput = inputOnDemand(() => import('./rangeInputs').then((m) => m.NumberRangeInput))

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
