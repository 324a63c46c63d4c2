import { Rate, Select, Space } from 'antd'
import { useTranslation } from 'react-i18next'
import { MENU_ICON_NAMES, MenuIcon } from '../../lib/menuIcons'
import { controlProps } from '../kinds/inputs'
import type { InputComponent, InputProps } from '../kinds/types'

// Named custom inputs a definition asks for with `widget: '<name>'`. A page (or a module of pages)
// adds its own with registerWidget() at import time.

/** '#' is what menus store for "no icon". */
const NO_ICON = '#'

/** A menu icon from the icons the sidebar can draw. */
export function IconPicker(props: InputProps) {
  const { t } = useTranslation()
  const options = [
    { value: NO_ICON, label: <span>{t('crud.noIcon')}</span>, search: '' },
    ...MENU_ICON_NAMES.map((name) => ({
      value: name,
      search: name,
      label: (
        <Space size={8}>
          <MenuIcon name={name} />
          {name}
        </Space>
      ),
    })),
  ]
  return <Select allowClear showSearch={{ optionFilterProp: 'search' }} options={options} {...controlProps(props)} />
}

/** Stars for a whole number from 1 to the field's max (an evaluation); a text box's placeholder means nothing here. */
export function RateInput(props: InputProps) {
  const { placeholder: _placeholder, onChange, ...rest } = controlProps<number>(props)
  const f = props.field
  // Clicking the chosen star again clears it: no value, not 0 stars.
  return <Rate count={f.kind === 'number' && f.max ? f.max : 5} {...rest} onChange={(stars) => onChange?.(stars || undefined)} />
}

const widgets = new Map<string, InputComponent>([
  ['icon', IconPicker],
  ['rate', RateInput],
])

export function registerWidget(name: string, input: InputComponent): void {
  widgets.set(name, input)
}

export const widgetNamed = (name: string | undefined): InputComponent | undefined => (name ? widgets.get(name) : undefined)
