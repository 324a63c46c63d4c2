import type { ReactNode } from 'react'
import { Button, Space } from 'antd'
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import type { Operations } from './useOperations'

export interface RowActionsProps {
  allowed: Operations
  /** Set for tree entities: add a node below this one. */
  onAddChild?: () => void
  onEdit: () => void
  onDelete: () => void
  extra?: ReactNode
}

/** The actions column of a row: modify, add child (trees), delete, then the page's own. */
export function RowActions({ allowed, onAddChild, onEdit, onDelete, extra }: RowActionsProps) {
  const { t } = useTranslation()
  return (
    <Space size={0} wrap>
      {allowed.edit && (
        <Button type="link" size="small" icon={<EditOutlined />} onClick={onEdit} data-testid="row-edit">
          {t('crud.edit')}
        </Button>
      )}
      {allowed.add && onAddChild && (
        <Button type="link" size="small" icon={<PlusOutlined />} onClick={onAddChild} data-testid="row-add-child">
          {t('crud.addChild')}
        </Button>
      )}
      {allowed.remove && (
        <Button type="link" size="small" danger icon={<DeleteOutlined />} onClick={onDelete} data-testid="row-delete">
          {t('crud.delete')}
        </Button>
      )}
      {extra}
    </Space>
  )
}
