import type { FormRule } from 'antd'
import { EMAIL_PATTERN, PASSWORD_PATTERN, PHONE_PATTERN, type FieldDef } from '@velo/shared'
import dayjs, { type Dayjs } from 'dayjs'
import type { TFunction } from 'i18next'
import { localized } from '../../i18n'
import { ClippedCell, DATE_FORMAT, DateCell, DateTimeCell, FileCell, ImageCell, MoneyCell, OptionsCell, PlainCell, ReferenceCell, RichTextCell } from './cells'
import { DateInput, LongTextInput, NumberInput, OptionsInput, OptionsSelect, PasswordInput, ReferenceInput, SwitchInput, TextInput, TreeParentInput } from './inputs'
import { ReferenceManyInput } from './ReferenceManyInput'
import { RichTextInput } from './RichTextInput'
import { StoredFileInput } from './StoredFileInput'
import { letterCodePattern, VERSION_PATTERN } from '@velo/shared'
import { lengthRules, numberRules, patternRule, requiredRule, textRules, timeZoneRules } from './rules'
import type { KindTable, KindUi } from './types'

// Every field kind → how the list shows it, how the search and the form take it, which rules the
// form checks and how its value crosses the wire. A kind added to the shared FieldDef union fails to
// compile here until it has its row.

const noRules = () => []
const maxLength = (f: { max?: number }, t: TFunction, label: string) => lengthRules(t, label, undefined, f.max)
const Nothing = () => null

const textual = { Cell: ClippedCell, Input: TextInput, Search: TextInput, required: 'text', prompt: 'enter' } as const
const numeric = { Input: NumberInput, Search: NumberInput, required: 'value', prompt: 'enter', rules: numberRules } as const
const choice = { Cell: OptionsCell, Input: OptionsInput, Search: OptionsSelect, required: 'value', prompt: 'choose', rules: noRules } as const
const reference = { Input: ReferenceInput, Search: ReferenceInput, required: 'value', prompt: 'choose', rules: noRules } as const
const storedFile = { Input: StoredFileInput, Search: TextInput, required: 'text', rules: noRules } as const

const toDayjs = (value: unknown) => (typeof value === 'string' && value ? dayjs(value) : value)
const dayValue = (toWire: (d: Dayjs) => string) => ({
  Input: DateInput,
  Search: DateInput,
  required: 'value' as const,
  rules: noRules,
  toForm: toDayjs,
  toWire: (value: unknown) => (dayjs.isDayjs(value) ? toWire(value) : value),
})

export const KINDS: KindTable = {
  text: { ...textual, rules: textRules },
  longText: { ...textual, Input: LongTextInput, rules: maxLength, wide: true },
  richText: { ...textual, Cell: RichTextCell, Input: RichTextInput, rules: maxLength, wide: true },
  number: { ...numeric, Cell: PlainCell, column: { align: 'right' } },
  money: { ...numeric, Cell: MoneyCell, column: { align: 'right' } },
  boolean: { ...choice, Input: SwitchInput, valuePropName: 'checked' },
  dict: choice,
  enum: choice,
  date: { ...dayValue((d) => d.format(DATE_FORMAT)), Cell: DateCell, column: { width: 120 } },
  // Instants travel in UTC and show in the browser's zone.
  datetime: { ...dayValue((d) => d.toISOString()), Cell: DateTimeCell, column: { width: 170 } },
  image: { ...storedFile, Cell: ImageCell, column: { width: 80 } },
  file: { ...storedFile, Cell: FileCell, wide: true },
  version: { ...textual, rules: (_f, t, label) => patternRule(VERSION_PATTERN, t('crud.version', { label })) },
  letterCode: {
    ...textual,
    rules: (f, t, label) => patternRule(letterCodePattern(f.max ?? 2), t('crud.letterCode', { label, max: f.max ?? 2 })),
    normalize: (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  },
  email: { ...textual, rules: (f, t, label) => [...lengthRules(t, label, undefined, f.max ?? 128), ...patternRule(EMAIL_PATTERN, t('validation.email'))] },
  phone: { ...textual, rules: (_f, t) => patternRule(PHONE_PATTERN, t('validation.phone')) },
  password: { ...textual, Cell: Nothing, Input: PasswordInput, rules: (_f, t) => patternRule(PASSWORD_PATTERN, t('validation.password')) },
  reference: { ...reference, Cell: ReferenceCell },
  referenceMany: { ...reference, Cell: OptionsCell, Input: ReferenceManyInput, Search: OptionsSelect, required: 'list', wide: true },
  treeParent: { ...reference, Cell: ReferenceCell, Input: TreeParentInput },
  timeZone: { ...choice, Cell: PlainCell, Input: OptionsSelect, rules: (_f, t, label) => timeZoneRules(t, label) },
}

/** The row of a field's kind, typed for any field. */
export const kindOf = (f: FieldDef): KindUi => KINDS[f.kind] as unknown as KindUi

/** Everything the form checks for a field: "required" in the kind's sense, then the kind's own rules. */
export function fieldRules(f: FieldDef, t: TFunction): FormRule[] {
  const kind = kindOf(f)
  const label = localized(f.label)
  return [...(f.required ? [requiredRule(kind.required, t, label)] : []), ...kind.rules(f, t, label)]
}

/** A row's value as the form holds it. */
export const toFormValue = (f: FieldDef, value: unknown) => kindOf(f).toForm?.(value) ?? value

/** A form or search value as the server takes it; text is sent trimmed. */
export function toWireValue(f: FieldDef, value: unknown): unknown {
  const wire = kindOf(f).toWire?.(value) ?? value
  return typeof wire === 'string' && f.kind !== 'password' && f.kind !== 'richText' ? wire.trim() : wire
}
