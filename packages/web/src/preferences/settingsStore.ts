import { createStore } from '../lib/createStore'
import { DEFAULT_THEME_COLOR, SETTINGS_KEY } from '../lib/config'

// Layout settings (SPEC §3, §9 defaults), saved in the browser.

export interface Settings {
  themeColor: string
  tagsView: boolean
  fixedHeader: boolean
  sidebarLogo: boolean
  darkMode: boolean
  /** Whether the right-edge settings handle is shown. */
  showSettings: boolean
}

export const defaultSettings: Settings = {
  themeColor: DEFAULT_THEME_COLOR,
  tagsView: true,
  fixedHeader: true,
  sidebarLogo: true,
  darkMode: false,
  showSettings: true,
}

function load(): Settings {
  try {
    const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? '{}') as Partial<Settings>
    return { ...defaultSettings, ...saved }
  } catch {
    return defaultSettings
  }
}

export const settingsStore = createStore<Settings>(load())

export function changeSetting<K extends keyof Settings>(key: K, value: Settings[K]): void {
  settingsStore.setState({ [key]: value } as Pick<Settings, K>)
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(settingsStore.getState()))
}
