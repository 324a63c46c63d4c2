import dashboards from '../../dashboards/texts.zh_CN'
import type { TextKey } from './texts.en_US'

// Home's texts in Chinese; the Record type makes a missing or extra key a compile error.

const texts: Record<TextKey, string> = {
  'dashboard.welcome': '欢迎，{{name}}',
  'dashboard.intro': '您所负责国家/地区的数据。点击卡片可打开已按相同条件筛选的列表。',
  'dashboard.links': '数据看板',
}

export default { ...dashboards, ...texts }
