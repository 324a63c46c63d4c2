// The operation dialog's own words (a step's or an action's title, its target, its second
// confirmation): they come with the dialog, loaded on first use, not with every list's first screen.

const texts = {
  'crud.operationTitle': '{{operation}} {{subject}}',
  'crud.moveTo': 'Move to',
  'crud.moveToRequired': 'Please choose the next state',
  'crud.confirmAgain': 'Confirm again',
  'crud.operationTitleOf': '{{operation}}: {{entity}} {{subject}}',
  'crud.operationContext': 'The {{entity}}',
}

export type TextKey = keyof typeof texts
export default texts
