import { Dropdown, Tooltip } from 'antd'
import { ColumnHeightOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'
import { layoutActions, layoutStore, SIZES, type UiSize } from '../../preferences/layoutStore'
import { useRefreshView } from '../useRefreshView'
import { useFeedback } from '../../lib/feedback'

export function SizeSelect() {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const size = layoutStore.use((s) => s.size)
  const { refreshAll } = useRefreshView()

  function choose(next: UiSize) {
    layoutActions.setSize(next)
    // Kept-alive pages were laid out at the old size; rebuild them.
    refreshAll()
    void message.success(t('navbar.switchSizeSuccess'))
  }

  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [size],
        items: SIZES.map((s) => ({ key: s, label: t(`size.${s}`), disabled: s === size })),
        onClick: ({ key }) => choose(key as UiSize),
      }}
    >
      <Tooltip title={t('navbar.size')} placement="bottom">
        <ColumnHeightOutlined className="navbar-icon" data-testid="size-select" aria-label={t('navbar.size')} />
      </Tooltip>
    </Dropdown>
  )
}
