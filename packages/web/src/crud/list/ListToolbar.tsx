import type { ReactNode } from 'react'
import { Button, Space, Tooltip } from 'antd'
import { ReloadOutlined, SearchOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'

export interface ListToolbarProps {
  /** The list's action buttons (add, delete, export …). */
  actions: ReactNode
  searchShown: boolean
  onToggleSearch: () => void
  onRefresh: () => void
  /** More tools on the right (the column chooser). */
  tools?: ReactNode
}

/** The shared toolbar of every list (SPEC §2): actions on the left; search toggle, refresh and tools on the right. */
export function ListToolbar({ actions, searchShown, onToggleSearch, onRefresh, tools }: ListToolbarProps) {
  const { t } = useTranslation()
  const searchLabel = t(searchShown ? 'crud.hideSearch' : 'crud.showSearch')
  return (
    <div className="crud-toolbar" data-testid="crud-toolbar">
      <Space wrap>{actions}</Space>
      <Space>
        <Tooltip title={searchLabel}>
          <Button shape="circle" icon={<SearchOutlined />} onClick={onToggleSearch} aria-label={searchLabel} data-testid="crud-toggle-search" />
        </Tooltip>
        <Tooltip title={t('crud.refresh')}>
          <Button shape="circle" icon={<ReloadOutlined />} onClick={onRefresh} aria-label={t('crud.refresh')} data-testid="crud-refresh" />
        </Tooltip>
        {tools}
      </Space>
    </div>
  )
}
