import { lazy, Suspense, useContext, useEffect, useMemo, useRef, useState, type Key } from 'react'
import { Grid, Table } from 'antd'
import { UNSAFE_LocationContext, UNSAFE_NavigationContext } from 'react-router'
import type { ColumnType, SorterResult } from 'antd/es/table/interface'
import type { ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import type { EntityRow, Filters, Row } from './api/crudApi'
import { useExport } from './excel/useExport'
import type { CellRenderer } from './kinds/types'
import { ColumnSettings } from './list/ColumnSettings'
import { ListActions } from './list/ListActions'
import { listColumns } from './list/columns'
import { useHiddenColumns } from './list/columnVisibility'
import { COLUMN_KEY_ATTRIBUTE, stretchedCellProps, useStretchToFit } from './list/fitColumns'
import { keyColumnOf } from './list/keyColumn'
import { ListPager } from './list/ListPager'
import { ListToolbar } from './list/ListToolbar'
import { RowActions, standardRowActions, type RowActionList } from './list/RowActions'
import { SearchForm } from './list/SearchForm'
import { deleteRefusal, editRefusal, mayEditRow } from './list/stateRefusal'
import { filtersFrom, searchFieldsOf } from './list/searchFields'
import { useDeleteRows } from './list/useDeleteRows'
import { LIST_WRITE_STATE, listQuery, overdueField, PLACE_PARAMS, placeFromUrl, searchFromUrl, withListQuery, writtenByList, type ListPlace } from './list/urlFilters'
import { exportBody, initialListState, useEntityList, type ListSort } from './list/useEntityList'
import { useLiveReferences } from './list/useLiveReferences'
import { useOperations } from './list/useOperations'
import { nestRows, parentKeys, pathUp } from './tree'
import type { EntityListPageProps, FormRequest, ListContext } from './types'
import { workflowCells } from './workflow/cells'
import { StateFilterBar, useStateCounts, useStateFilter } from './workflow/StateFilterBar'
import { useWorkflow } from './workflow/useWorkflow'
import './crud.css'
import { useEntitiesNamedBy } from '../entities/areas'

// What opens on request loads on request: a list's first rows need neither the form's inputs (date
// picker, upload, trees) nor the import dialog.
const EntityForm = lazy(() => import('./form/EntityForm').then((m) => ({ default: m.EntityForm })))
const ImportDialog = lazy(() => import('./excel/ImportDialog').then((m) => ({ default: m.ImportDialog })))
// The rows as cards are for phones only (antd's Card and Descriptions): a desktop's list never loads
// them. Typed as the module's generic component, which lazy() would narrow to its unknown row.
const RowCards = lazy(() => import('./list/RowCards').then((m) => ({ default: m.RowCards }))) as unknown as typeof import('./list/RowCards').RowCards

const NO_FILTERS: Filters = {}

/** A list fixed to one value of a form field (a dictionary's items, a department's users) adds rows with that value. */
function presetFrom(entity: ResolvedEntity, params: Filters): Row {
  const form = new Set(entity.formFields.map((f) => f.name))
  return Object.fromEntries(
    Object.entries(params).filter(([name, value]) => form.has(name) && ['string', 'number', 'boolean'].includes(typeof value)),
  )
}

/**
 * The list page of an entity, built from its definition: search form, toolbar, table, pager, and the
 * add/modify form, delete, export and import behind the user's permissions; for a definition with
 * transitions or actions also their buttons, a status filter with counts and the details with the
 * timeline. Tree entities list as a nested table without a pager. Pages adapt it through the props
 * (src/crud/README.md).
 */
export function EntityListPage<E extends ResolvedEntity>(props: EntityListPageProps<E>) {
  // The definitions its references and related lists name, from their areas (a page of another area may show this list).
  useEntitiesNamedBy(props.entity)
  const {
    entity,
    params = NO_FILTERS,
    left,
    extraColumns = [],
    cells,
    childPreset,
    rowActions,
    toolbarActions,
    form: FormComponent = EntityForm,
    formInputs,
    search = {},
    urlFilters = true,
  } = props
  const { t } = useTranslation()
  const allowed = useOperations(entity)
  const workflow = useWorkflow(entity)

  // The list's state lives in the page's URL (list/urlFilters.ts), when this list is the page's own: a
  // link, a reload or a bookmark opens it as it was. Outside a router (a list in a test) there is no URL.
  const location = useContext(UNSAFE_LocationContext)?.location
  const navigator = useContext(UNSAFE_NavigationContext)?.navigator
  const urlQuery = location?.search ?? ''
  const offered = useMemo(() => {
    const overdue = overdueField(entity)
    return [...searchFieldsOf(entity, { hide: search.hide, forced: params }), ...(overdue && !(overdue.field.name in params) ? [overdue] : [])]
  }, [entity, search.hide, params])
  const statusField = entity.transitions?.field
  const fromUrl = useMemo(() => {
    const barField = offered.find((f) => f.field.name === statusField)
    const formFields = offered.filter((f) => f !== barField)
    const params = new URLSearchParams(urlFilters ? urlQuery : '')
    return searchFromUrl(formFields, params, barField, placeFromUrl(entity, params))
  }, [entity, offered, statusField, urlFilters, urlQuery])
  // Compared by what the URL asks for: other parameters changing do not reset the user's filters.
  const urlKey = JSON.stringify(fromUrl)

  const stateFilter = useStateFilter(entity, params, { initial: fromUrl.state, off: fromUrl.stateInForm })
  const searchFields = useMemo(
    () => offered.filter((f) => !(stateFilter.field && f.field.name === stateFilter.field)),
    [offered, stateFilter.field],
  )
  const { state, setState, body, query, search: applySearch } = useEntityList(entity, stateFilter.forced, filtersFrom(searchFields, fromUrl.values), fromUrl.place)
  // The search form's values the list's filters came from: the URL says those, not the call's filters.
  const [searchValues, setSearchValues] = useState<Row>(fromUrl.values)
  // The search form is mounted again with a URL's filters, when a link names other ones.
  const [formKey, setFormKey] = useState(0)
  useLiveReferences(entity)
  // The other filters decide the counts; the status is the bar's to choose.
  const stateCounts = useStateCounts(entity, exportBody(state, params), !!stateFilter.field)
  const [searchShown, setSearchShown] = useState(true)
  const [selectedKeys, setSelectedKeys] = useState<Key[]>([])
  const [formRequest, setFormRequest] = useState<FormRequest | null>(null)
  const [importing, setImporting] = useState(false)
  const [expandedKeys, setExpandedKeys] = useState<readonly Key[]>([])
  const [hiddenColumns, setHiddenColumns] = useHiddenColumns(entity.key)
  const exportRows = useExport(entity)
  const tree = entity.treeParent
  // Below the mobile breakpoint (antd's md, 768 px) a flat list shows its rows as cards, a tree its
  // name column and actions only (its nesting needs the table): the row's name beside its actions.
  // Only a width known to be below it: where no breakpoint matches (no media queries) the table stays.
  const screens = Grid.useBreakpoint()
  const phone = Object.values(screens).some(Boolean) && !screens.md
  const tableBox = useRef<HTMLDivElement>(null)
  const stretch = useStretchToFit(tableBox, !phone || !!tree)
  // Rows are told apart by the definition's id field, as for any entity.
  const idOf = (row: Row | undefined) => row?.[entity.idField]

  const rows = useMemo(() => query.data?.rows ?? [], [query.data])
  const total = query.data?.total ?? 0
  const dataSource = useMemo(() => (tree ? nestRows(rows, entity.idField, tree) : rows), [rows, tree, entity.idField])
  const selectedRows = rows.filter((row) => selectedKeys.includes(idOf(row) as Key))

  // A new page, search or sort starts with nothing ticked.
  const bodyKey = JSON.stringify(body)
  const [selectionFor, setSelectionFor] = useState(bodyKey)
  if (selectionFor !== bodyKey) {
    setSelectionFor(bodyKey)
    setSelectedKeys([])
  }
  // Deleting the last rows of the last page steps back to the page that now is the last.
  if (!tree && query.data && !query.isPlaceholderData && rows.length === 0 && total > 0 && state.pageNum > 1) {
    setState({ ...state, pageNum: Math.ceil(total / state.pageSize) })
  }

  // What the list shows and what the URL says, each as the list's URL parameters in one order.
  const asQuery = (values: Row, chosen: string | undefined, place: Required<Omit<ListPlace, 'sort'>> & { sort: ListSort | null }) =>
    listQuery({ fields: searchFields, values, bar: stateFilter.field ? { field: stateFilter.field, chosen } : undefined, ...place, defaultPageSize: initialListState.pageSize })
  const shownQuery = asQuery(searchValues, stateFilter.chosen, state)
  const urlPlace = fromUrl.place
  const urlListQuery = asQuery(fromUrl.values, fromUrl.state, { pageNum: urlPlace.pageNum ?? 1, pageSize: urlPlace.pageSize ?? initialListState.pageSize, sort: urlPlace.sort ?? null })
  const [appliedUrl, setAppliedUrl] = useState(urlKey)
  useEffect(() => {
    if (!urlFilters || !location) return
    if (appliedUrl !== urlKey) {
      setAppliedUrl(urlKey)
      // A link naming a search, page or sort (a home card's, a tag's) opens the list so; a link naming
      // none (the menu's) opens it as the user left it, which the URL then says. An address the list
      // wrote itself is never taken back from: it may be older than the user's last choice.
      if (urlListQuery !== shownQuery && urlListQuery !== '' && !writtenByList(location.state)) {
        stateFilter.choose(fromUrl.state)
        setSearchValues(fromUrl.values)
        setFormKey((key) => key + 1)
        applySearch(filtersFrom(searchFields, fromUrl.values))
        setState((s) => ({ ...s, pageNum: urlPlace.pageNum ?? 1, pageSize: urlPlace.pageSize ?? s.pageSize, sort: urlPlace.sort ?? null }))
        stateCounts.reload()
        return
      }
    }
    // The user searched, chose a status, a page, a page size or a sort: the URL says so, in place of
    // the address it had (no new history entry for each page turned). The page's own parameters stay.
    if (urlListQuery !== shownQuery && navigator) {
      const owned = [...searchFields.map((f) => f.field.name), ...(stateFilter.field ? [stateFilter.field] : []), ...PLACE_PARAMS]
      navigator.replace({ pathname: location.pathname, search: withListQuery(urlQuery, owned, shownQuery), hash: location.hash }, LIST_WRITE_STATE)
    }
    // Only a new URL or a new state of the list; the hooks' functions are new on every render.
  }, [urlKey, shownQuery])

  const list: ListContext<E> = {
    entity,
    selectedRows,
    filters: exportBody(state, stateFilter.forced),
    refresh: () => {
      void query.refetch()
      stateCounts.reload()
    },
    openForm: (request = {}) => setFormRequest(request),
  }
  const confirmDelete = useDeleteRows(entity, () => setSelectedKeys([]))
  /**
   * A tree shows the node it just saved: the nodes above it open (a child added under a closed node,
   * a node moved under another), the user's other open nodes left as they were. Its parent is the
   * saved row's, or the form's preset when the answer leaves it out.
   */
  const revealSaved = (request: FormRequest) => (saved: Row) => {
    if (!tree) return
    const parent = saved?.[tree] ?? request.preset?.[tree]
    const opened = pathUp(rows, entity.idField, tree, parent)
    if (opened.length) setExpandedKeys((keys) => [...keys, ...opened.filter((k) => !keys.includes(k))])
  }
  const addPreset = { ...(tree ? { [tree]: 0 } : {}), ...presetFrom(entity, params) }

  const ownCells: Readonly<Record<string, CellRenderer<EntityRow<E>>>> = { ...workflowCells(entity), ...cells }
  const columns = listColumns(entity, state.sort, ownCells)
  const visibleColumns = [...columns.filter((c) => !hiddenColumns.has(c.key)), ...extraColumns]
  const treeKey = tree && phone ? keyColumnOf(entity, columns.filter((c) => !hiddenColumns.has(c.key))) : undefined
  // Each header cell names its column (the fit to the Actions column measures them); the column that
  // takes the room left before the Actions column gets it as padding (list/fitColumns.ts).
  const shownColumns: ColumnType<EntityRow<E>>[] = (treeKey ? [treeKey] : visibleColumns).map((c) => {
    const key = String(c.key)
    const own = c.onHeaderCell
    // A column of a set width (times) takes the room as width, others as padding: either way its measured width less the extra is its own.
    const sized = stretch?.key === key && typeof c.width === 'number' ? c.width + stretch.extra : undefined
    const widened = stretch?.key === key && sized === undefined ? stretchedCellProps(stretch) : null
    return {
      ...c,
      ...(sized !== undefined ? { width: sized } : {}),
      onHeaderCell: (column) => ({ ...own?.(column), [COLUMN_KEY_ATTRIBUTE]: key, ...widened }) as ReturnType<NonNullable<typeof own>>,
      ...(widened ? { onCell: (row: EntityRow<E>, index?: number) => ({ ...c.onCell?.(row, index), ...widened }) } : {}),
    }
  })
  // The steps the row's state allows come first: they are what the row waits for. Modify and delete
  // only where the row's state allows them (the definition's `states`).
  const actionsOf = (row: EntityRow<E>): RowActionList => {
    const operations = workflow.rowActions(row)
    return [
      ...operations.filter((a) => !a.rare),
      ...standardRowActions(t, { ...allowed, edit: allowed.edit && mayEditRow(entity, row), remove: allowed.remove && !deleteRefusal(t, entity, [row]) }, {
        onEdit: () => setFormRequest({ id: idOf(row) }),
        onAddChild: tree ? () => setFormRequest({ preset: { ...childPreset?.(row), [tree]: idOf(row) } }) : undefined,
        onDelete: () => confirmDelete([row]),
      }),
      workflow.detailsAction(row),
      ...(rowActions?.(row, list) ?? []),
      // A seldom-needed remedy (reset a user's second factors) comes last, in More.
      ...operations.filter((a) => a.rare),
    ]
  }
  if (allowed.edit || allowed.remove || (tree && allowed.add) || rowActions || workflow.offersRowActions) {
    shownColumns.push({
      key: 'actions',
      title: t('crud.actions'),
      fixed: 'right',
      align: 'center',
      render: (_: unknown, row: EntityRow<E>) => <RowActions actions={actionsOf(row)} />,
    })
  }
  const rowSelection =
    (!tree && (allowed.remove || allowed.edit)) || toolbarActions || workflow.selects ? { selectedRowKeys: selectedKeys, onChange: setSelectedKeys } : undefined

  const allExpanded = expandedKeys.length > 0
  const actions = (
    <ListActions
      allowed={allowed}
      selected={selectedRows.length}
      editRefusal={selectedRows.length === 1 ? editRefusal(t, entity, selectedRows[0]!) : null}
      deleteRefusal={deleteRefusal(t, entity, selectedRows)}
      tree={tree ? { expanded: allExpanded, onToggle: () => setExpandedKeys(allExpanded ? [] : parentKeys(dataSource, entity.idField)) } : undefined}
      onAdd={() => setFormRequest({ preset: addPreset })}
      onEdit={() => setFormRequest({ id: idOf(selectedRows[0]) })}
      onDelete={() => confirmDelete(selectedRows)}
      onImport={() => setImporting(true)}
      onExport={() => exportRows(list.filters, total)}
      extra={
        <>
          {workflow.toolbar(selectedRows)}
          {toolbarActions?.(list)}
        </>
      }
    />
  )

  const content = (
    <div className="crud-main">
      {searchShown && (
        <SearchForm
          // Mounted again with the values of a link naming other filters.
          key={formKey}
          initialValues={fromUrl.values}
          entity={entity}
          fields={searchFields}
          inputs={search.inputs}
          onSearch={(filters, values) => {
            setSelectedKeys([])
            setSearchValues(values)
            applySearch(filters)
            stateCounts.reload()
          }}
        />
      )}
      {stateFilter.field && <StateFilterBar entity={entity} counts={stateCounts.counts} value={stateFilter.chosen} onChange={stateFilter.choose} />}
      <ListToolbar
        actions={actions}
        searchShown={searchShown}
        onToggleSearch={() => setSearchShown(!searchShown)}
        onRefresh={list.refresh}
        tools={<ColumnSettings columns={columns.map((c) => ({ key: c.key, title: String(c.title) }))} hidden={hiddenColumns} onChange={setHiddenColumns} />}
      />
      {phone && !tree ? (
        <Suspense fallback={null}>
          <RowCards<EntityRow<E>>
            entity={entity}
            rows={dataSource}
            columns={shownColumns.filter((c) => c.key !== 'actions') as (ColumnType<EntityRow<E>> & { key: string })[]}
            actions={shownColumns.some((c) => c.key === 'actions') ? (row) => <RowActions actions={actionsOf(row)} /> : undefined}
            loading={query.isFetching}
            selection={rowSelection ? { selectedKeys, onChange: setSelectedKeys } : undefined}
          />
        </Suspense>
      ) : (
        <div ref={tableBox}>
          <Table<EntityRow<E>>
            rowKey={entity.idField}
            loading={query.isFetching}
            dataSource={dataSource}
            columns={shownColumns}
            pagination={false}
            scroll={{ x: 'max-content' }}
            rowSelection={rowSelection}
            expandable={tree ? { expandedRowKeys: expandedKeys, onExpandedRowsChange: setExpandedKeys } : undefined}
            onChange={(_pagination, _filters, sorter) => {
              const { columnKey, order } = sorter as SorterResult<EntityRow<E>>
              const sort: ListSort | null = order && columnKey ? { field: String(columnKey), order: order === 'ascend' ? 'asc' : 'desc' } : null
              setState({ ...state, sort, pageNum: 1 })
            }}
            data-testid="crud-table"
          />
        </div>
      )}
      {!tree && (
        <ListPager total={total} pageNum={state.pageNum} pageSize={state.pageSize} onChange={(pageNum, pageSize) => setState({ ...state, pageNum, pageSize })} />
      )}
      <Suspense fallback={null}>
        {formRequest && (
          <FormComponent entity={entity} id={formRequest.id} preset={formRequest.preset} inputs={formInputs} onSaved={revealSaved(formRequest)} onClose={() => setFormRequest(null)} />
        )}
        {importing && <ImportDialog entity={entity} onClose={() => setImporting(false)} />}
      </Suspense>
      {workflow.dialogs}
    </div>
  )

  return (
    <div className={`crud-page${left ? ' crud-with-left' : ''}`} data-testid={`entity-list-${entity.key}`}>
      {left && <aside className="crud-left">{left}</aside>}
      {content}
    </div>
  )
}
