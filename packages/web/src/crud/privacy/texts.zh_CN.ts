import type { TextKey } from './texts.en_US'

const texts: Record<TextKey, string> = {
  'crud.maskedTip': '个人数据（{{category}}），您无权查看，已隐藏',
  'crud.reveal': '查看个人数据',
  'crud.revealOk': '查看',
  'crud.revealIntro': '{{fields}}的完整内容将在此视图中显示，直到关闭为止。您填写的原因会记录在操作日志中。',
  'crud.revealReason': '原因',
  'crud.revealReasonHint': '为什么需要查看这些信息？',
  'crud.revealReasonRequired': '请填写原因',
  'crud.revealReasonLength': '原因须为 {{min}} 到 {{max}} 个字符',
  'crud.revealedNote': '个人数据仅在此视图中显示，查看原因已记录',
}

export default texts
