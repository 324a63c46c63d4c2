import { ColorPicker, Drawer, Switch } from 'antd'
import { useTranslation } from 'react-i18next'
import { layoutActions, layoutStore } from '../../preferences/layoutStore'
import { changeSetting, settingsStore, type Settings } from '../../preferences/settingsStore'
import { DEFAULT_THEME_COLOR } from '../../lib/config'

const PRESET_COLORS = [DEFAULT_THEME_COLOR, '#409eff', '#11a983', '#13c2c2', '#6959cd', '#f5222d', '#fa541c', '#faad14']

type SwitchKey = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings]

function SettingRow({ label, setting }: { label: string; setting: SwitchKey }) {
  const value = settingsStore.use((s) => s[setting])
  return (
    <div className="drawer-item">
      <span>{label}</span>
      <Switch checked={value} onChange={(checked) => changeSetting(setting, checked)} data-testid={`setting-${setting}`} />
    </div>
  )
}

/** 系统布局配置: theme colour, dark mode, tags view, fixed header, sidebar logo; closes on a click outside. */
export function SettingsDrawer() {
  const { t } = useTranslation()
  const open = layoutStore.use((s) => s.settingsOpen)
  const themeColor = settingsStore.use((s) => s.themeColor)
  return (
    <Drawer
      title={t('settings.title')}
      placement="right"
      size={300}
      open={open}
      mask={{ closable: true }}
      onClose={() => layoutActions.openSettings(false)}
      data-testid="settings-drawer"
    >
      <div className="drawer-item">
        <span>{t('settings.themeColor')}</span>
        <ColorPicker
          value={themeColor}
          disabledAlpha
          presets={[{ label: t('settings.presets'), colors: PRESET_COLORS }]}
          onChangeComplete={(color) => changeSetting('themeColor', color.toHexString())}
          data-testid="setting-themeColor"
        />
      </div>
      <SettingRow label={t('settings.darkMode')} setting="darkMode" />
      <SettingRow label={t('settings.tagsView')} setting="tagsView" />
      <SettingRow label={t('settings.fixedHeader')} setting="fixedHeader" />
      <SettingRow label={t('settings.sidebarLogo')} setting="sidebarLogo" />
    </Drawer>
  )
}
