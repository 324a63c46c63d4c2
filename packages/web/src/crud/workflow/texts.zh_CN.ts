import type { TextKey } from './texts.en_US'

const texts: Record<TextKey, string> = {
  'crud.operationTitle': '{{operation}} {{subject}}',
  'crud.moveTo': '流转至',
  'crud.moveToRequired': '请选择下一状态',
  'crud.confirmAgain': '再次确认',
  'crud.operationTitleOf': '{{operation}}：{{entity}} {{subject}}',
  'crud.operationContext': '{{entity}}信息',
}

export default texts
