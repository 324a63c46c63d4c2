import { useMemo } from 'react'
import { DatePicker, Input, InputNumber, Radio, Select, Switch, TreeSelect } from 'antd'
import { useTranslation } from 'react-i18next'
import { subtreeIds } from '../tree'
import { useFieldOptions, type TreeOption } from './options'
import type { InputProps } from './types'

// Form and search inputs, one per way a value is entered; the kind table picks them per kind. Each
// passes Form.Item's value, onChange and id straight to the antd control.

/** Form.Item's props without ours, for the antd control. */
export const controlProps = ({ entity: _entity, field: _field, rowId: _rowId, ...rest }: InputProps) => rest

const maxLengthOf = (props: InputProps) => ('max' in props.field && typeof props.field.max === 'number' ? props.field.max : undefined)

export function TextInput(props: InputProps) {
  return <Input allowClear maxLength={maxLengthOf(props)} {...controlProps(props)} />
}

export function PasswordInput(props: InputProps) {
  return <Input.Password autoComplete="new-password" {...controlProps(props)} />
}

export function LongTextInput(props: InputProps) {
  return <Input.TextArea autoSize={{ minRows: 3, maxRows: 10 }} showCount={!!maxLengthOf(props)} maxLength={maxLengthOf(props)} {...controlProps(props)} />
}

export function NumberInput(props: InputProps) {
  const f = props.field
  const bounds = f.kind === 'number' || f.kind === 'money' ? { min: f.min, max: f.max } : {}
  const precision = f.kind === 'money' ? 2 : f.kind === 'number' && f.int ? 0 : undefined
  return <InputNumber style={{ width: '100%' }} precision={precision} {...bounds} {...controlProps(props)} />
}

export function SwitchInput(props: InputProps) {
  return <Switch {...controlProps(props)} />
}

export function DateInput(props: InputProps) {
  return <DatePicker style={{ width: '100%' }} showTime={props.field.kind === 'datetime'} {...controlProps(props)} />
}

/** A dropdown of the field's choices; several values for an "in" search. */
export function OptionsSelect(props: InputProps & { multiple?: boolean }) {
  const { multiple, ...rest } = props
  const { options, loading } = useFieldOptions(props.entity, props.field)
  return (
    <Select
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      loading={loading}
      mode={multiple ? 'multiple' : undefined}
      options={options.map(({ value, label }) => ({ value: value as string | number, label }))}
      {...controlProps(rest)}
    />
  )
}

/** Few choices show at once as radio buttons; more as a dropdown. */
const RADIO_LIMIT = 4

export function OptionsInput(props: InputProps) {
  const { options } = useFieldOptions(props.entity, props.field)
  if (options.length === 0 || options.length > RADIO_LIMIT) return <OptionsSelect {...props} />
  return <Radio.Group options={options.map(({ value, label }) => ({ value: value as string | number, label }))} {...controlProps(props)} />
}

function TreeChoice(props: InputProps & { treeData: TreeOption[]; loading: boolean }) {
  const { treeData, loading, ...rest } = props
  return (
    <TreeSelect
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeData={treeData}
      loading={loading}
      treeDefaultExpandAll
      styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
      {...controlProps(rest)}
    />
  )
}

/** A row of another entity: a tree select for a tree entity, else a searchable dropdown. */
export function ReferenceInput(props: InputProps) {
  const { tree, loading } = useFieldOptions(props.entity, props.field)
  if (!tree) return <OptionsSelect {...props} />
  return <TreeChoice {...props} treeData={tree} loading={loading} />
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
