import type { ReactNode } from 'react'
import { Button, Dropdown } from 'antd'
import { DeleteOutlined, DownOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons'
import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import type { Operations } from './useOperations'

/** One action of a row: a link button in the row, or an item of its More menu. */
export interface RowAction {
  key: string
  label: string
  icon?: ReactNode
  danger?: boolean
  onClick: () => void
  /** The data-testid of the button or menu item. */
  testId?: string
  /** Offered after the row's other actions (a definition action's `rare`). */
  rare?: boolean
}

/** A page's actions may leave some out with `false`, `null` or `undefined` (no permission, not for this row). */
export type RowActionList = ReadonlyArray<RowAction | false | null | undefined>

/** How many actions a row shows before the rest go into More (RuoYi: 修改, 删除, 更多). */
export const INLINE_ROW_ACTIONS = 2

export const presentActions = (actions: RowActionList): RowAction[] => actions.filter((a): a is RowAction => !!a)

/** The actions a row shows: all of them up to two, else the first two and More. */
export function splitRowActions(actions: RowActionList): { inline: RowAction[]; more: RowAction[] } {
  const present = presentActions(actions)
  return present.length > INLINE_ROW_ACTIONS
    ? { inline: present.slice(0, INLINE_ROW_ACTIONS), more: present.slice(INLINE_ROW_ACTIONS) }
    : { inline: present, more: [] }
}

/** The kit's own actions of a row: modify, add child (trees), delete, each only when permitted. */
export function standardRowActions(
  t: TFunction,
  allowed: Operations,
  handlers: { onEdit: () => void; onDelete: () => void; onAddChild?: () => void },
): RowAction[] {
  return presentActions([
    allowed.edit && { key: 'edit', label: t('crud.edit'), icon: <EditOutlined />, onClick: handlers.onEdit, testId: 'row-edit' },
    allowed.add && !!handlers.onAddChild && { key: 'addChild', label: t('crud.addChild'), icon: <PlusOutlined />, onClick: handlers.onAddChild, testId: 'row-add-child' },
    allowed.remove && { key: 'delete', label: t('crud.delete'), icon: <DeleteOutlined />, danger: true, onClick: handlers.onDelete, testId: 'row-delete' },
  ])
}

/**
 * The actions column of a row: at most two link buttons; with more than two, the first two and a
 * More menu with the rest, so the fixed column stays narrow.
 */
export function RowActions({ actions }: { actions: RowActionList }) {
  const { t } = useTranslation()
  const { inline, more } = splitRowActions(actions)
  return (
    <span className="crud-row-actions">
      {inline.map((a) => (
        <Button key={a.key} type="link" size="small" danger={a.danger} icon={a.icon} onClick={a.onClick} data-testid={a.testId}>
          {a.label}
        </Button>
      ))}
      {more.length > 0 && (
        <Dropdown
          trigger={['click']}
          menu={{
            items: more.map((a) => ({
              key: a.key,
              icon: a.icon,
              danger: a.danger,
              label: <span data-testid={a.testId}>{a.label}</span>,
            })),
            onClick: ({ key }) => more.find((a) => a.key === key)?.onClick(),
          }}
        >
          <Button type="link" size="small" icon={<DownOutlined />} iconPlacement="end" data-testid="row-more">
            {t('crud.more')}
          </Button>
        </Dropdown>
      )}
    </span>
  )
}
