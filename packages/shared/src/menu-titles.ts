import type { Language } from './api'
import { allEntities } from './entity/registry'
import type { Label } from './entity/types'
import { MENU_TITLES } from './menus'
import { personalDataButtonTitle } from './privacy-labels'

// The titles of the seeded buttons, and any menu name as people read it: apart from menus.ts, whose
// catalogue every signed-in page loads (the sidebar), since only the menu and role pages and the
// server read these.

/** Titles of the seeded buttons, by key 'button.<action>' (the last segment of their permission). */
export const BUTTON_TITLES: Record<string, Label> = {
  'button.list': { en_US: 'List', zh_CN: '列表' },
  'button.query': { en_US: 'Query', zh_CN: '查询' },
  'button.add': { en_US: 'Add', zh_CN: '新增' },
  'button.edit': { en_US: 'Modify', zh_CN: '修改' },
  'button.remove': { en_US: 'Delete', zh_CN: '删除' },
  'button.export': { en_US: 'Export', zh_CN: '导出' },
  'button.import': { en_US: 'Import', zh_CN: '导入' },
  'button.unbind': { en_US: 'Unbind', zh_CN: '解绑' },
  'button.generate': { en_US: 'Generate', zh_CN: '生成' },
  'button.push': { en_US: 'Push', zh_CN: '推送' },
  'button.command': { en_US: 'Send command', zh_CN: '下发指令' },
  'button.publish': { en_US: 'Publish', zh_CN: '发布' },
  'button.send': { en_US: 'Send', zh_CN: '发送' },
  'button.review': { en_US: 'Review', zh_CN: '审核' },
  'button.execute': { en_US: 'Execute', zh_CN: '执行' },
  'button.resetPwd': { en_US: 'Reset password', zh_CN: '重置密码' },
  'button.forceLogout': { en_US: 'Force logout', zh_CN: '强退' },
  'button.unlock': { en_US: 'Unlock', zh_CN: '账户解锁' },
  'button.cancelJob': { en_US: 'Cancel job', zh_CN: '取消任务' },
  'button.write': { en_US: 'Write', zh_CN: '写入' },
  'button.preview': { en_US: 'Preview', zh_CN: '预览' },
  'button.code': { en_US: 'Generate code', zh_CN: '生成代码' },
  'button.runNow': { en_US: 'Run now', zh_CN: '立即执行' },
  // The IoT device's Report stolen and Recovered share one right (stolen mode).
  'button.stolen': { en_US: 'Report stolen and recovered', zh_CN: '报告失窃与找回' },
}

/** A menu name as people read it: i18n keys ('menu.system.user', 'button.add') translated, plain text as is. */
export function menuTitle(name: string, lang: Language): string {
  return (MENU_TITLES[name] ?? BUTTON_TITLES[name] ?? personalDataButtonTitle(name) ?? definedButtonTitle(name))?.[lang] ?? name
}

/** 'button.receive' of a definition's step or action, when no standard title has the name. */
function definedButtonTitle(name: string): Label | undefined {
  if (!name.startsWith('button.')) return undefined
  const key = name.slice('button.'.length)
  for (const e of allEntities()) {
    const found = [...(e.transitions?.steps ?? []), ...(e.actions ?? [])].find((s) => s.name === key)
    if (found) return found.label
  }
  return undefined
}
