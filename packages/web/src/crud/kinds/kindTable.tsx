import type { FormRule } from 'antd'
import type { FieldDef } from '@velo/shared'
import dayjs, { type Dayjs } from 'dayjs'
import type { TFunction } from 'i18next'
import { ClippedCell, DATE_FORMAT, DateCell, DateTimeCell, FileCell, ImageCell, MoneyCell, NumberCell, OptionsCell, PlainCell, ReferenceCell, RichTextCell } from './cells'
import { OptionsInput, OptionsSelect, PasswordInput, ReferenceInput, ReferenceSearch, TextInput, TreeParentInput } from './inputs'
import { inputOnDemand, lazyInput } from './lazyInputs'
import { schemaRule } from './rules'
import type { KindTable, KindUi } from './types'

// Every field kind → how the list shows it, how the search and the form take it and how its value
// crosses the wire. A kind added to the shared FieldDef union fails to compile here until it has its
// row. What the form accepts is not here: the shared value schema decides it (./rules.ts).

const Nothing = () => null

// The large controls load apart (./lazyInputs.tsx): with the form that shows them, or when a search field is used.
const heavy = () => import('./heavyInputs')
const LongTextInput = lazyInput(() => heavy().then((m) => m.LongTextInput))
const NumberInput = lazyInput(() => heavy().then((m) => m.NumberInput))
const NumberSearch = inputOnDemand(() => heavy().then((m) => m.NumberInput))
const SwitchInput = lazyInput(() => heavy().then((m) => m.SwitchInput))
const DateInput = lazyInput(() => heavy().then((m) => m.DateInput))
const DateSearch = inputOnDemand(() => heavy().then((m) => m.DateInput))
const RichTextInput = lazyInput(() => import('./RichTextInput').then((m) => m.RichTextInput))
const StoredFileInput = lazyInput(() => import('./StoredFileInput').then((m) => m.StoredFileInput))
const ReferenceManyInput = lazyInput(() => import('./ReferenceManyInput').then((m) => m.ReferenceManyInput))
// A map to draw on (MapLibre and terra-draw): only a form with a geometry field loads it.
const GeometryInput = lazyInput(() => import('./GeometryInput').then((m) => m.GeometryInput))

const textual = { Cell: ClippedCell, Input: TextInput, Search: TextInput, prompt: 'enter' } as const
const numeric = { Input: NumberInput, Search: NumberSearch, prompt: 'enter' } as const
const choice = { Cell: OptionsCell, Input: OptionsInput, Search: OptionsSelect, prompt: 'choose' } as const
const reference = { Input: ReferenceInput, Search: ReferenceSearch, prompt: 'choose' } as const
const storedFile = { Input: StoredFileInput, Search: TextInput } as const

const toDayjs = (value: unknown) => (typeof value === 'string' && value ? dayjs(value) : value)
const dayValue = (toWire: (d: Dayjs) => string) => ({
  Input: DateInput,
  Search: DateSearch,
  toForm: toDayjs,
  toWire: (value: unknown) => (dayjs.isDayjs(value) ? toWire(value) : value),
})

export const KINDS: KindTable = {
  text: textual,
  longText: { ...textual, Input: LongTextInput, wide: true },
  richText: { ...textual, Cell: RichTextCell, Input: RichTextInput, wide: true },
  // A duration reads as one ("1 h 12 min"): the field's `duration` unit decides (NumberCell).
  number: { ...numeric, Cell: NumberCell, column: { align: 'right' } },
  money: { ...numeric, Cell: MoneyCell, column: { align: 'right' } },
  boolean: { ...choice, Input: SwitchInput, valuePropName: 'checked' },
  dict: choice,
  enum: choice,
  date: { ...dayValue((d) => d.format(DATE_FORMAT)), Cell: DateCell, column: { width: 120 } },
  // Instants travel in UTC and show in the browser's zone.
  datetime: { ...dayValue((d) => d.toISOString()), Cell: DateTimeCell, column: { width: 170 } },
  image: { ...storedFile, Cell: ImageCell, column: { width: 80 } },
  file: { ...storedFile, Cell: FileCell, wide: true },
  version: textual,
  letterCode: {
    ...textual,
    normalize: (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  },
  email: textual,
  phone: textual,
  password: { ...textual, Cell: Nothing, Input: PasswordInput },
  reference: { ...reference, Cell: ReferenceCell },
  referenceMany: { ...reference, Cell: OptionsCell, Input: ReferenceManyInput, Search: OptionsSelect, wide: true },
  treeParent: { ...reference, Cell: ReferenceCell, Input: TreeParentInput },
  timeZone: { ...choice, Cell: PlainCell, Input: OptionsSelect },
  geometry: { ...textual, Input: GeometryInput, wide: true },
}

/** The row of a field's kind, typed for any field. */
export const kindOf = (f: FieldDef): KindUi => KINDS[f.kind] as unknown as KindUi

/** Everything the form checks for a field: its shared value schema, on the value as it would be sent. */
export function fieldRules(f: FieldDef, t: TFunction): FormRule[] {
  return [schemaRule(f, t, (value) => toWireValue(f, value))]
}

/** A row's value as the form holds it. */
export const toFormValue = (f: FieldDef, value: unknown) => kindOf(f).toForm?.(value) ?? value

/** A form or search value as the server takes it; text is sent trimmed. */
export function toWireValue(f: FieldDef, value: unknown): unknown {
  const wire = kindOf(f).toWire?.(value) ?? value
  return typeof wire === 'string' && f.kind !== 'password' && f.kind !== 'richText' ? wire.trim() : wire
}
