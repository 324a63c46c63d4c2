import { MENU_TITLES } from '@velo/shared'

// Titles of server-delivered menus (meta.title keys menu.<area> and menu.<area>.<entity>) come from
// the same catalogue the server seeds its menus from. A key missing here still shows:
// translateTitle() prettifies its last segment.

const pick = (lang: 'en_US' | 'zh_CN') => Object.fromEntries(Object.entries(MENU_TITLES).map(([key, label]) => [key, label[lang]]))

export const menuEnUS: Record<string, string> = pick('en_US')
export const menuZhCN: Record<string, string> = pick('zh_CN')
