// The words of masked personal values and of the reveal (MaskedValue.tsx, RevealBar.tsx): loaded with
// the first masked value a page shows, never with a list's first screen.

const texts = {
  'crud.maskedTip': 'Personal data ({{category}}), hidden: you have no right to see it',
  'crud.reveal': 'Reveal personal data',
  'crud.revealOk': 'Reveal',
  'crud.revealIntro': 'The clear values of {{fields}} show in this view until you close it. Your reason is kept in the operation log.',
  'crud.revealReason': 'Reason',
  'crud.revealReasonHint': 'Why do you need to see these values?',
  'crud.revealReasonRequired': 'Please give a reason',
  'crud.revealReasonLength': 'The reason must be {{min}} to {{max}} characters',
  'crud.revealedNote': 'Personal data shown in this view only; your reason was logged',
}

export type TextKey = keyof typeof texts
export default texts
