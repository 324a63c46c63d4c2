import type { ComponentType, ReactNode } from 'react'
import type { ColumnType } from 'antd/es/table'
import type { FieldDef, FieldKind, ResolvedEntity } from '@velo/shared'
import type { Row } from '../api/crudApi'

/** The definition of one kind of field ('dict' → its FieldDef with `dict`). */
export type FieldOf<K extends FieldKind> = Extract<FieldDef, { kind: K }>

/**
 * What a list cell gets. The kinds' cells are the same for every entity, so their row is a `Row`; a
 * page's own cells (`cells` of the list page) get the row of their entity (`R`).
 */
export interface CellProps<F extends FieldDef = FieldDef, R = Row> {
  entity: ResolvedEntity
  field: F
  value: unknown
  row: R
}

/** An input of the form or the search form; Form.Item supplies value and onChange. */
export interface InputProps<F extends FieldDef = FieldDef> {
  entity: ResolvedEntity
  field: F
  value?: unknown
  onChange?: (value: unknown) => void
  id?: string
  disabled?: boolean
  placeholder?: string
  /** The id of the row being modified (a tree parent cannot be the node itself or below it). */
  rowId?: unknown
}

/**
 * Form.Item's props as a control holding values of `V` takes them: Form.Item gives each input the
 * value its kind keeps in the form, which the kind table cannot type per kind (and takes back
 * whatever the control's onChange sends, an event or a value).
 */
export type ControlProps<V> = Omit<InputProps, 'entity' | 'field' | 'rowId' | 'value'> & { value?: V }

export type InputComponent<F extends FieldDef = FieldDef> = ComponentType<InputProps<F>>

/** Everything the list page and the form need to know about one kind of field. */
export interface KindUi<F extends FieldDef = FieldDef> {
  /** A value in the list table. */
  Cell: ComponentType<CellProps<F>>
  /** The add/modify form's input. */
  Input: InputComponent<F>
  /** The search form's input for an exact (or subtree) match. */
  Search: InputComponent<F>
  /** Wire value → form value (a date string → dayjs). */
  toForm?: (value: unknown) => unknown
  /** Form value → wire value (dayjs → 'YYYY-MM-DD'). */
  toWire?: (value: unknown) => unknown
  /** Applied as the user types (letter codes are kept upper-case). */
  normalize?: (value: unknown) => unknown
  /** The prop the input's value binds to (Switch: checked). */
  valuePropName?: string
  /** The placeholder's verb for a text box or a list; none leaves the control's own. */
  prompt?: 'enter' | 'choose'
  /** Takes a whole row of the drawer's two-column grid. */
  wide?: boolean
  /** Column hints (width, alignment, ellipsis): the same for every entity's rows. */
  column?: Pick<ColumnType<Row>, 'width' | 'align' | 'ellipsis'>
}

export type KindTable = { [K in FieldKind]: KindUi<FieldOf<K>> }

/** A custom list cell in place of a field's generated one; `R` is the row of the page's entity. */
export type CellRenderer<R = Row> = (props: CellProps<FieldDef, R>) => ReactNode

/** A custom input in place of a field's generated one. */
export type InputRenderer = (props: InputProps) => ReactNode
