import type { TextKey } from './texts.en_US'

const texts: Record<TextKey, string> = {
  'crud.typedBoolean': '{{key}} 的值必须是 true 或 false',
  'crud.typedInteger': '{{key}} 的值必须是 {{min}} 到 {{max}} 之间的整数',
  'crud.typedEnum': '{{key}} 的值必须是以下之一：{{values}}',
  'crud.typedText': '{{key}} 的值{{rule}}',
  'crud.typedFormat': '{{key}} 的值格式不正确',
  'crud.discardTitle': '放弃修改？',
  'crud.discardContent': '此表单中已填写的内容将会丢失。',
  'crud.discard': '放弃',
  'crud.keepEditing': '继续编辑',
  'crud.maskedField': '个人数据（{{category}}）：您无权查看或修改',
}

export default texts
