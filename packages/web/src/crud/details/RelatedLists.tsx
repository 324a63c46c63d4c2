import { lazy, Suspense, useMemo, useState } from 'react'
import { Spin, Table, Tabs } from 'antd'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { entityByKey, relatedListsOf, type ResolvedEntity, type ResolvedRelatedList } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccessCheck } from '../../session/Access'
import { localized } from '../../i18n'
import { crudApi, crudKeys, type ListBody, type Row } from '../api/crudApi'
import { listColumns, type ListColumn } from '../list/columns'
import { RowActions } from '../list/RowActions'
import { workflowCells } from '../workflow/cells'
import { everyRowOperation, mayRun } from '../workflow/operations'
import { useWorkflow } from '../workflow/useWorkflow'
import { RelatedChart } from './RelatedChart'

// A managed tab is the related entity's list page. Imported statically it would close a cycle
// (EntityListPage → useWorkflow → EntityDetails → RelatedLists → EntityListPage), so it is loaded
// when the first managed tab shows (it is in the kit's chunk already: nothing more is downloaded).
const EntityListPage = lazy(() => import('../EntityListPage').then((m) => ({ default: m.EntityListPage })))

/**
 * The columns of a related list: its entity's list columns (or the definition's `columns`, in that
 * order, list: false ones too), with the cells its list page uses; no sorters: the rows come in the
 * entity's default sort.
 */
export function relatedColumns(list: ResolvedRelatedList): ListColumn[] {
  return listColumns({ ...list.entity, listed: list.columns, sortable: new Set<string>() }, null, workflowCells(list.entity))
}

/**
 * One related list: its chart, then a compact table of the rows whose `by` is the row's id, page by
 * page from the entity's list; with the row actions the list names (`actions`), each where the row's
 * state allows it and the user holds its permission, opening the dialog the entity's list page opens.
 */
export function RelatedList({ list, id }: { list: ResolvedRelatedList; id: unknown }) {
  const { t } = useTranslation()
  const e = list.entity
  const [page, setPage] = useState(1)
  // A tree answers every matching row at once: it is paged here instead.
  const body: ListBody = e.treeParent ? { [list.by]: id } : { [list.by]: id, pageNum: page, pageSize: list.pageSize }
  const query = useQuery({ queryKey: crudKeys.list(e, body), queryFn: () => crudApi(e).list(body), placeholderData: keepPreviousData })
  const workflow = useWorkflow(e)
  const may = useAccessCheck()
  const offered = useMemo(() => new Set(list.actions), [list])
  // The column only when some named action is the user's; each row then shows those its state allows.
  const acts = everyRowOperation(e).some((op) => offered.has(op.name) && mayRun(op, may))
  const listed = useMemo(() => relatedColumns(list), [list])
  const columns: ListColumn[] = acts
    ? [...listed, { key: 'actions', title: t('crud.actions'), fixed: 'right', align: 'center', render: (_: unknown, row: Row) => <RowActions actions={workflow.rowActions(row, offered)} /> }]
    : listed
  return (
    <div className="crud-related" data-testid={`related-${list.key}`}>
      {list.chart && <RelatedChart list={list} id={id} />}
      {acts && workflow.dialogs}
      <Table<Row>
        size="small"
        rowKey={e.idField}
        loading={query.isFetching}
        dataSource={query.data?.rows ?? []}
        columns={columns}
        scroll={{ x: 'max-content' }}
        pagination={{
          size: 'small',
          current: e.treeParent ? undefined : page,
          pageSize: list.pageSize,
          total: e.treeParent ? undefined : (query.data?.total ?? 0),
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (total) => t('crud.total', { total }),
          onChange: setPage,
        }}
        data-testid="related-table"
      />
    </div>
  )
}

/**
 * A related list with `manage`: the related entity's whole list page fixed to the row (`{ [by]: id }`
 * in every list, count and export call; the field leaves the search form, and an add starts with it),
 * with its search, status filter, toolbar and row actions; the chart, if any, above it.
 */
export function ManagedRelatedList({ list, id }: { list: ResolvedRelatedList; id: unknown }) {
  // One object while the row is the same: the list page keys its filters by them.
  const params = useMemo(() => ({ [list.by]: id }), [list.by, id])
  return (
    <div className="crud-related crud-related-manage" data-testid={`related-${list.key}`}>
      {list.chart && <RelatedChart list={list} id={id} />}
      <Suspense fallback={<Spin spinning style={{ display: 'block', padding: 24 }} />}>
        {/* The page's URL belongs to the page around the details, not to this list. */}
        <EntityListPage entity={list.entity} params={params} urlFilters={false} />
      </Suspense>
    </div>
  )
}

/** The related lists of an entity that the user may read (`{permission}:list` of the related entity). */
export function useRelatedLists(entity: ResolvedEntity): readonly ResolvedRelatedList[] {
  const may = useAccessCheck()
  return relatedListsOf(entity, entityByKey).filter((l) => may({ permissions: [`${l.entity.permission}:list`] }))
}

/**
 * The definition's related lists that the user may read, one tab each, below a row's descriptions:
 * a compact table, or (`manage`) the related entity's list page; nothing when there are none.
 */
export function RelatedLists({ entity, id }: { entity: ResolvedEntity; id: unknown }) {
  const lists = useRelatedLists(entity)
  if (!lists.length) return null
  return (
    <Tabs
      className="crud-details-related"
      size="small"
      data-testid="related-lists"
      items={lists.map((l) => ({
        key: l.key,
        label: localized(l.label),
        children: l.manage ? <ManagedRelatedList list={l} id={id} /> : <RelatedList list={l} id={id} />,
      }))}
    />
  )
}
