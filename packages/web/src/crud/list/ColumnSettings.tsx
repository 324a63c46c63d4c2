import { Button, Checkbox, Popover, Tooltip } from 'antd'
import { AppstoreOutlined } from '@ant-design/icons'
import { useTranslation } from 'react-i18next'

export interface ColumnChoice {
  key: string
  title: string
}

/** The toolbar's column chooser: a checkbox per column, unticked ones are hidden. */
export function ColumnSettings({ columns, hidden, onChange }: { columns: readonly ColumnChoice[]; hidden: ReadonlySet<string>; onChange: (hidden: string[]) => void }) {
  const { t } = useTranslation()
  const content = (
    <Checkbox.Group
      className="crud-column-settings"
      value={columns.filter((c) => !hidden.has(c.key)).map((c) => c.key)}
      options={columns.map((c) => ({ value: c.key, label: c.title }))}
      onChange={(shown) => onChange(columns.filter((c) => !shown.includes(c.key)).map((c) => c.key))}
    />
  )
  return (
    <Popover trigger="click" placement="bottomRight" title={t('crud.columns')} content={content}>
      <Tooltip title={t('crud.columns')}>
        <Button shape="circle" icon={<AppstoreOutlined />} aria-label={t('crud.columns')} data-testid="crud-columns" />
      </Tooltip>
    </Popover>
  )
}
