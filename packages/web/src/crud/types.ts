import type { ComponentType, ReactNode } from 'react'
import type { ColumnType } from 'antd/es/table'
import type { ResolvedEntity } from '@velo/shared'
import type { EntityRow, Filters, Row } from './api/crudApi'
import type { EntityFormProps } from './form/EntityForm'
import type { CellRenderer, InputRenderer } from './kinds/types'
import type { RowActionList } from './list/RowActions'

/** What opens the form: a row to modify by id, or an add form with preset values. */
export interface FormRequest {
  id?: unknown
  preset?: Row
}

/** The list as the page's own columns, actions and toolbar see it. */
export interface ListContext<E extends ResolvedEntity = ResolvedEntity> {
  entity: E
  /** The ticked rows (of the current page). */
  selectedRows: readonly EntityRow<E>[]
  /** The filters the list and its export use now: the search form's and the page's forced ones. */
  filters: Filters
  /** Fetches the list again. */
  refresh: () => void
  /** Opens the add/modify form. */
  openForm: (request?: FormRequest) => void
}

/** The escape hatches of the generic list page, with the rows of `E`; see src/crud/README.md. */
export interface EntityListPageProps<E extends ResolvedEntity = ResolvedEntity> {
  entity: E
  /** Filters sent with every list and export call (e.g. the department picked beside the list); their fields leave the search form. */
  params?: Filters
  /** Shown left of the list (e.g. a department tree that sets `params`). */
  left?: ReactNode
  /** Columns after the generated ones, before the actions. */
  extraColumns?: readonly ColumnType<EntityRow<E>>[]
  /** Cells of generated columns in place of the kind's, by field name (a switch for a status, an icon for an icon name). */
  cells?: Readonly<Record<string, CellRenderer<EntityRow<E>>>>
  /** Values an "add child" form starts with besides the parent (trees), e.g. a menu's child of a page is a button. */
  childPreset?: (parent: EntityRow<E>) => Row
  /**
   * More actions of each row, after modify, add child and delete; a row shows two and puts the rest
   * in a More menu. Leave one out with `false` (no permission, not for this row).
   */
  rowActions?: (row: EntityRow<E>, list: ListContext<E>) => RowActionList
  /** More buttons in the toolbar, after the standard ones. */
  toolbarActions?: (list: ListContext<E>) => ReactNode
  /** A whole form of the page's own in place of the generated one. */
  form?: ComponentType<EntityFormProps<E>>
  /** Inputs of the generated form in place of the kind's, by field name. */
  formInputs?: Readonly<Record<string, InputRenderer>>
  /**
   * Whether the list's search, page and sort live in its page's URL (`?severity=critical&pageNum=2`;
   * see list/urlFilters.ts). On by default; off for a list inside another page or a drawer (a
   * record's related rows, a dictionary's items): one list owns a page's URL.
   */
  urlFilters?: boolean
  search?: {
    /** Fields left out of the search form. */
    hide?: readonly string[]
    /** Inputs in place of the generated ones, by field name. */
    inputs?: Readonly<Record<string, InputRenderer>>
  }
}
