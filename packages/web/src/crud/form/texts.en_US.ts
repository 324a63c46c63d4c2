// The form's own words (a typed value's rule, the question before discarding changes): they come
// with the form, loaded on first use, instead of riding on every list's first screen.

const texts = {
  'crud.typedBoolean': 'Value of {{key}} must be true or false',
  'crud.typedInteger': 'Value of {{key}} must be a whole number from {{min}} to {{max}}',
  'crud.typedEnum': 'Value of {{key}} must be one of: {{values}}',
  'crud.typedText': 'Value of {{key}} {{rule}}',
  'crud.typedFormat': 'Value of {{key}} has a wrong format',
  'crud.discardTitle': 'Discard your changes?',
  'crud.discardContent': 'What you entered in this form will be lost.',
  'crud.discard': 'Discard',
  'crud.keepEditing': 'Keep editing',
  'crud.maskedField': 'Personal data ({{category}}): you have no right to see or change it',
}

export type TextKey = keyof typeof texts
export default texts
