import type { ReactElement, ReactNode } from 'react'
import { Button, Tooltip } from 'antd'
import { DeleteOutlined, DownloadOutlined, EditOutlined, NodeCollapseOutlined, NodeExpandOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import type { Operations } from './useOperations'

export interface ListActionsProps {
  allowed: Operations
  /** How many rows are ticked: modify takes one, delete at least one. */
  selected: number
  /** Why the ticked row's state allows no modify: the button is disabled and says it. */
  editRefusal?: string | null
  /** Why the state of a ticked row keeps it: the button is disabled and says it. */
  deleteRefusal?: string | null
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

/**
 * A button disabled for a reason that says it on hover and focus: a disabled button hears no
 * pointer, so the tooltip sits on a wrapper that does.
 */
function WithReason({ reason, children }: { reason?: string | null; children: ReactElement }) {
  if (!reason) return children
  return (
    <Tooltip title={reason} trigger={['hover', 'focus']}>
      <span className="crud-disabled-reason" tabIndex={0}>
        {children}
      </span>
    </Tooltip>
  )
}

/** The list's buttons left in the toolbar, each shown only when permitted. */
export function ListActions({ allowed, selected, editRefusal, deleteRefusal, tree, onAdd, onEdit, onDelete, onImport, onExport, extra }: ListActionsProps) {
  const { t } = useTranslation()
  return (
    <>
      {allowed.add && (
        <Button type="primary" ghost icon={<PlusOutlined />} onClick={onAdd} data-testid="crud-add">
          {t('crud.add')}
        </Button>
      )}
      {allowed.edit && !tree && (
        <WithReason reason={editRefusal}>
          <Button icon={<EditOutlined />} disabled={selected !== 1 || !!editRefusal} onClick={onEdit} data-testid="crud-edit">
            {t('crud.edit')}
          </Button>
        </WithReason>
      )}
      {allowed.remove && !tree && (
        <WithReason reason={deleteRefusal}>
          <Button danger icon={<DeleteOutlined />} disabled={selected === 0 || !!deleteRefusal} onClick={onDelete} data-testid="crud-delete">
            {t('crud.delete')}
          </Button>
        </WithReason>
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
