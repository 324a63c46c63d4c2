import type { ReactNode } from 'react'
import { Button } from 'antd'
import { DeleteOutlined, DownloadOutlined, EditOutlined, NodeCollapseOutlined, NodeExpandOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import type { Operations } from './useOperations'

export interface ListActionsProps {
  allowed: Operations
  /** How many rows are ticked: modify takes one, delete at least one. */
  selected: number
  /** Set for tree entities, whose rows carry their own modify/delete and which fold instead of paging. */
  tree?: { expanded: boolean; onToggle: () => void }
  onAdd: () => void
  onEdit: () => void
  onDelete: () => void
  onImport: () => void
  onExport: () => void
  /** The page's own buttons, after the standard ones. */
  extra?: ReactNode
}

/** The list's buttons left in the toolbar, each shown only when permitted. */
export function ListActions({ allowed, selected, tree, onAdd, onEdit, onDelete, onImport, onExport, extra }: ListActionsProps) {
  const { t } = useTranslation()
  return (
    <>
      {allowed.add && (
        <Button type="primary" ghost icon={<PlusOutlined />} onClick={onAdd} data-testid="crud-add">
          {t('crud.add')}
        </Button>
      )}
      {allowed.edit && !tree && (
        <Button icon={<EditOutlined />} disabled={selected !== 1} onClick={onEdit} data-testid="crud-edit">
          {t('crud.edit')}
        </Button>
      )}
      {allowed.remove && !tree && (
        <Button danger icon={<DeleteOutlined />} disabled={selected === 0} onClick={onDelete} data-testid="crud-delete">
          {t('crud.delete')}
        </Button>
      )}
      {allowed.import && (
        <Button icon={<UploadOutlined />} onClick={onImport} data-testid="crud-import">
          {t('crud.import')}
        </Button>
      )}
      {allowed.export && (
        <Button icon={<DownloadOutlined />} onClick={onExport} data-testid="crud-export">
          {t('crud.export')}
        </Button>
      )}
      {tree && (
        <Button icon={tree.expanded ? <NodeCollapseOutlined /> : <NodeExpandOutlined />} onClick={tree.onToggle} data-testid="crud-expand">
          {t(tree.expanded ? 'crud.collapseAll' : 'crud.expandAll')}
        </Button>
      )}
      {extra}
    </>
  )
}
