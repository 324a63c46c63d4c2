import { useMemo, useState } from 'react'
import { Table, Tabs } from 'antd'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { entityByKey, relatedListsOf, type ResolvedEntity, type ResolvedRelatedList } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { useAccessCheck } from '../../app/Access'
import { localized } from '../../i18n'
import { crudApi, crudKeys, type ListBody, type Row } from '../api/crudApi'
import { listColumns, type ListColumn } from '../list/columns'
import { workflowCells } from '../workflow/cells'
import { RelatedChart } from './RelatedChart'

/**
 * The columns of a related list: its entity's list columns (or the definition's `columns`, in that
 * order, list: false ones too), with the cells its list page uses; no sorters: the rows come in the
 * entity's default sort.
 */
export function relatedColumns(list: ResolvedRelatedList): ListColumn[] {
  return listColumns({ ...list.entity, listed: list.columns, sortable: new Set<string>() }, null, workflowCells(list.entity))
}

/** One related list: its chart, then a compact table of the rows whose `by` is the row's id, page by page from the entity's list. */
export function RelatedList({ list, id }: { list: ResolvedRelatedList; id: unknown }) {
  const { t } = useTranslation()
  const e = list.entity
  const [page, setPage] = useState(1)
  // A tree answers every matching row at once: it is paged here instead.
  const body: ListBody = e.treeParent ? { [list.by]: id } : { [list.by]: id, pageNum: page, pageSize: list.pageSize }
  const query = useQuery({ queryKey: crudKeys.list(e, body), queryFn: () => crudApi(e).list(body), placeholderData: keepPreviousData })
  const columns = useMemo(() => relatedColumns(list), [list])
  return (
    <div className="crud-related" data-testid={`related-${list.key}`}>
      {list.chart && <RelatedChart list={list} id={id} />}
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
 * The definition's related lists that the user may read (`{permission}:list` of the related entity),
 * one tab each, below a row's descriptions; nothing when there are none.
 */
export function RelatedLists({ entity, id }: { entity: ResolvedEntity; id: unknown }) {
  const may = useAccessCheck()
  const lists = relatedListsOf(entity, entityByKey).filter((l) => may({ permissions: [`${l.entity.permission}:list`] }))
  if (!lists.length) return null
  return (
    <Tabs
      className="crud-details-related"
      size="small"
      data-testid="related-lists"
      items={lists.map((l) => ({ key: l.key, label: localized(l.label), children: <RelatedList list={l} id={id} /> }))}
    />
  )
}
