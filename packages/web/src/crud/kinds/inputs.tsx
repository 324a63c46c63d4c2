import { lazy, Suspense, useEffect, useMemo, useRef, useState, type MouseEvent, type ReactNode } from 'react'
import { Radio, Select } from 'antd'
// antd's Input alone: `Input` from 'antd' carries its text area and one-time-code boxes along, which
// a list's first paint does not show (they load with the forms and pages that use them).
import Input from 'antd/es/input/Input'
import Password from 'antd/es/input/Password'
import { entityByKey, PICKER_LIMIT, type ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { subtreeIds } from '../tree'
import { useOtherField } from './otherFields'
import { useEntityChoices, useFieldOptions, type FieldOption, type TreeOption } from './options'
import type { ControlProps, InputProps } from './types'

// Form and search inputs, one per way a value is entered; the kind table picks them per kind. Each
// passes Form.Item's value, onChange and id straight to the antd control.

/** Form.Item's props without ours, for the antd control; `V` is the value the control holds. */
export const controlProps = <V = unknown,>({ entity: _entity, field: _field, rowId: _rowId, ...rest }: InputProps) => rest as ControlProps<V>

export const maxLengthOf = (props: InputProps) => ('max' in props.field && typeof props.field.max === 'number' ? props.field.max : undefined)

export function TextInput(props: InputProps) {
  return <Input allowClear maxLength={maxLengthOf(props)} {...controlProps<string>(props)} />
}

export function PasswordInput(props: InputProps) {
  return <Password autoComplete="new-password" {...controlProps<string>(props)} />
}

/** One choice as a choice input shows it: its name (text or a coloured tag) and what it means. */
export interface Choice {
  value: string | number
  label: ReactNode
  /** The name as text: what a dropdown's search matches and the chosen value shows. */
  text: string
  description?: string
}

/** A choice's name with what it means on a second line (the definition's `description`). */
export function DescribedChoice({ label, description }: { label: ReactNode; description?: string }) {
  return (
    <span className="crud-choice">
      <span className="crud-choice-label">{label}</span>
      {description && <span className="crud-choice-description">{description}</span>}
    </span>
  )
}

export const choicesOf = (options: readonly FieldOption[]): Choice[] =>
  options.map(({ value, label, description }) => ({ value: value as string | number, label, text: label, description }))

/** Few choices show at once as radio buttons; more as a dropdown. */
export const RADIO_LIMIT = 4

type ChoiceControl = Omit<InputProps, 'entity' | 'field' | 'rowId'> & { 'data-testid'?: string; multiple?: boolean; loading?: boolean }

/**
 * A dropdown of choices; several values for an "in" search. A choice that says what it means shows
 * that under its name in the list; the chosen value shows its name.
 */
export function ChoiceSelect({ choices, multiple, loading, ...control }: ChoiceControl & { choices: readonly Choice[] }) {
  const described = choices.some((c) => c.description)
  return (
    <Select
      allowClear
      showSearch={{ optionFilterProp: 'text' }}
      loading={loading}
      mode={multiple ? 'multiple' : undefined}
      options={choices.map(({ value, label, text, description }) => ({ value, label, text, description }))}
      optionRender={described ? (o) => <DescribedChoice label={o.data.label} description={o.data.description} /> : undefined}
      {...control}
    />
  )
}

/**
 * Up to RADIO_LIMIT choices at once as radio buttons, more in a dropdown. Choices that say what they
 * mean are a list, one a line with its meaning under its name, so the meaning is read before choosing.
 */
export function ChoiceInput({ choices, ...control }: ChoiceControl & { choices: readonly Choice[] }) {
  if (choices.length === 0 || choices.length > RADIO_LIMIT) return <ChoiceSelect choices={choices} {...control} />
  const { multiple: _multiple, loading: _loading, ...radio } = control
  const described = choices.some((c) => c.description)
  return (
    <Radio.Group
      vertical={described}
      className={described ? 'crud-choice-list' : undefined}
      options={choices.map(({ value, label, description }) => ({ value, label: described ? <DescribedChoice label={label} description={description} /> : label }))}
      {...radio}
    />
  )
}

/** A dropdown of the field's choices; several values for an "in" search. */
export function OptionsSelect(props: InputProps & { multiple?: boolean }) {
  const { options, loading } = useFieldOptions(props.entity, props.field)
  return <ChoiceSelect choices={choicesOf(options)} loading={loading} {...controlProps(props)} />
}

export function OptionsInput(props: InputProps) {
  const { options } = useFieldOptions(props.entity, props.field)
  return <ChoiceInput choices={choicesOf(options)} {...controlProps(props)} />
}

// antd's TreeSelect (with rc-tree-select, 7 KB gzipped) loads with the first tree a form or search
// field shows: no list's search form shows one at first paint (System › Users picks its department
// from the tree beside the list). Meanwhile a loading select of the same place stands in, as the tree's
// nodes are usually still on their way too. A press on the stand-in is not lost: the tree opens,
// focused, when it arrives. The press is let finish first: the tree select, mounted while it still
// travels, would take it for a press outside itself and close; and the browser would move the focus
// from the stand-in, gone by then, to the drawer around the form.
const LazyTreeChoice = lazy(() => import('./TreeChoice').then((m) => ({ default: m.TreeChoice })))

function TreeChoice(props: InputProps & { treeData: TreeOption[]; loading: boolean }) {
  const [pressed, setPressed] = useState(false)
  const onStandInPress = (e: MouseEvent) => {
    e.preventDefault()
    setTimeout(() => setPressed(true))
  }
  return (
    <Suspense fallback={<Select loading open={false} id={props.id} disabled={props.disabled} placeholder={props.placeholder} onMouseDown={onStandInPress} />}>
      <LazyTreeChoice {...props} {...(pressed && { autoFocus: true, defaultOpen: true })} />
    </Suspense>
  )
}

/** A row of another entity: a tree select for a tree entity, else a searchable dropdown. */
export function ReferenceInput(props: InputProps) {
  if (props.field.kind === 'reference' && props.field.within) return <NarrowedReference {...props} within={props.field.within} mustChoose />
  return <AnyReference {...props} />
}

/** The search form's: without the owner chosen (a model), every row; with it, that owner's. */
export function ReferenceSearch(props: InputProps) {
  if (props.field.kind === 'reference' && props.field.within) return <NarrowedReference {...props} within={props.field.within} mustChoose={false} />
  return <AnyReference {...props} />
}

function AnyReference(props: InputProps) {
  const { tree, loading } = useFieldOptions(props.entity, props.field)
  if (tree) return <TreeChoice {...props} treeData={tree} loading={loading} />
  if (props.field.kind !== 'reference') return <OptionsSelect {...props} />
  return <ReferenceSelect {...props} target={entityByKey(props.field.entity)} />
}

/** How long typing pauses before the server is asked for the rows named like it. */
const SEARCH_PAUSE_MS = 250

/**
 * The rows of another entity in a dropdown (`params`: those of one owner). Up to PICKER_LIMIT rows
 * the list is filtered as the user types; an entity with more (12,000 IoT devices) is searched on
 * the server instead, and the chosen row keeps its name whether or not the first rows include it.
 */
function ReferenceSelect(props: InputProps & { target: ResolvedEntity | null; params?: Record<string, number> }) {
  const { target, params, ...input } = props
  const first = useEntityChoices(target, params)
  const remote = first.options.length >= PICKER_LIMIT
  const [keyword, setKeyword] = useState('')
  const found = useEntityChoices(remote && keyword ? target : null, { ...params, keyword })
  const value = input.value as number | undefined | null
  const listed = (remote && keyword ? found : first).options
  const unnamed = typeof value === 'number' && !first.options.some((o) => o.value === value) && !found.options.some((o) => o.value === value)
  const chosen = useEntityChoices(remote && unnamed ? target : null, { id: value as number })
  const options = useMemo(() => {
    const own = chosen.options.find((o) => o.value === value)
    const all = own && !listed.some((o) => o.value === value) ? [own, ...listed] : listed
    return all.map(({ value: v, label }) => ({ value: v as string | number, label }))
  }, [listed, chosen.options, value])
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), [])
  const search = (text: string) => {
    if (timer.current) clearTimeout(timer.current)
    timer.current = setTimeout(() => setKeyword(text.trim()), SEARCH_PAUSE_MS)
  }
  return (
    <Select
      allowClear
      showSearch={remote ? { filterOption: false, onSearch: search } : { optionFilterProp: 'label' }}
      loading={first.loading || found.loading}
      options={options}
      // The rows may have changed since they were loaded (the list's search form loads them with the
      // page): opening the dropdown asks again, so a row added meanwhile can be chosen.
      onOpenChange={(open) => open && !remote && first.refresh?.()}
      {...controlProps(input)}
    />
  )
}

/**
 * A reference `within` another field of the form (a bike's colour, within its model): it offers the
 * rows of the owner chosen there, and lets go of its value when another owner is chosen. In the add
 * and modify form it waits for the owner ("Choose the model first").
 */
function NarrowedReference(props: InputProps & { within: string; mustChoose: boolean }) {
  const { within, mustChoose, ...input } = props
  const { t } = useTranslation()
  const owner = useOtherField(within)
  const ownerId = typeof owner === 'number' ? owner : undefined
  const target = props.field.kind === 'reference' ? entityByKey(props.field.entity) : null
  // Another owner than the one the value was chosen under: the value is none of its rows.
  const chosenUnder = useRef(ownerId)
  const { onChange } = props
  useEffect(() => {
    const before = chosenUnder.current
    chosenUnder.current = ownerId
    if (before !== undefined && before !== ownerId) onChange?.(undefined)
    // Only the owner's change counts: onChange is a new function at each render of the form.
  }, [ownerId])
  const ownerField = props.entity.fieldMap.get(within)
  const waiting = mustChoose && ownerId === undefined
  return (
    <ReferenceSelect
      {...input}
      target={waiting ? null : target}
      params={ownerId === undefined ? undefined : { [within]: ownerId }}
      disabled={input.disabled || waiting}
      placeholder={waiting && ownerField ? t('crud.chooseFirst', { field: localized(ownerField.label).toLowerCase() }) : input.placeholder}
    />
  )
}

const disableIds = (nodes: TreeOption[], ids: Set<unknown>): TreeOption[] =>
  nodes.map((n) => ({ ...n, disabled: ids.has(n.value), ...(n.children ? { children: disableIds(n.children, ids) } : {}) }))

/** The parent of a tree node: the top level (0) or any node but the one being modified and those below it. */
export function TreeParentInput(props: InputProps) {
  const { t } = useTranslation()
  const { tree, nodes, loading } = useFieldOptions(props.entity, props.field)
  const treeData = useMemo(() => {
    const own = props.rowId === undefined ? new Set<unknown>() : subtreeIds(nodes, props.entity.idField, props.rowId)
    return [{ value: 0, title: t('crud.root'), children: disableIds(tree ?? [], own) }]
  }, [tree, nodes, props.rowId, props.entity.idField, t])
  return <TreeChoice {...props} treeData={treeData} loading={loading} />
}
