import type { FormRule } from 'antd'
import type { FieldDef, FieldIssue, FieldProblem, FieldProblemRule } from '@velo/shared'
import type { TFunction } from 'i18next'
import { localized } from '../../i18n'

// The form checks each field with the very schema the server checks it with (shared
// entity/value-schema.ts, in its 'form' mode: a required field must be filled in, default or not),
// so the two cannot drift apart; only the words are the web's, from its i18n files.

type Say<R extends FieldProblemRule> = (p: Extract<FieldProblem, { rule: R }>, t: TFunction, label: string) => string

/** The words for each problem; a new problem in shared does not compile until it has them here. */
const PROBLEM_TEXT: { [R in FieldProblemRule]: Say<R> } = {
  required: (_p, t, label) => t('crud.required', { label }),
  type: (p, t, label) =>
    t({ text: 'crud.notText', number: 'crud.notNumber', boolean: 'crud.notBoolean', list: 'crud.notList' }[p.expected], { label }),
  minLength: (p, t, label) => t('crud.minLength', { label, min: p.min }),
  maxLength: (p, t, label) => t('crud.maxLength', { label, max: p.max }),
  min: (p, t, label) => t('crud.min', { label, min: p.min }),
  max: (p, t, label) => t('crud.max', { label, max: p.max }),
  integer: (_p, t, label) => t('crud.integer', { label }),
  decimals: (p, t, label) => t('crud.decimals', { label, places: p.places }),
  // A definition's own words for its pattern say the whole sentence.
  pattern: (p, t, label) => (p.message ? localized(p.message) : t('crud.pattern', { label })),
  enum: (p, t, label) => t('crud.oneOf', { label, values: p.values.join(', ') }),
  date: (_p, t, label) => t('crud.date', { label }),
  datetime: (_p, t, label) => t('crud.datetime', { label }),
  storedFile: (_p, t, label) => t('crud.storedFile', { label }),
  fileType: (p, t, label) => t('crud.fileType', { label, types: p.accept.join(', ') }),
  version: (_p, t, label) => t('crud.version', { label }),
  letterCode: (p, t, label) => t('crud.letterCode', { label, max: p.max }),
  email: (_p, t) => t('validation.email'),
  phone: (_p, t) => t('validation.phone'),
  password: (_p, t) => t('validation.password'),
  choose: (_p, t, label) => t('crud.mustChoose', { label }),
  timeZone: (_p, t, label) => t('crud.timeZone', { label }),
  checkDigit: (_p, t, label) => t('crud.checkDigit', { label }),
  // The geometry input says which shape rule a value breaks, in its own words (they load with it).
  geometry: (_p, t, label) => t('crud.pattern', { label }),
}

/** A problem of the shared schema in the page's language. */
export function problemText(issue: FieldIssue, t: TFunction): string {
  return (PROBLEM_TEXT[issue.rule] as Say<FieldProblemRule>)(issue as never, t, localized(issue.label))
}

/** The first problem the shared schema finds with a value as it would be sent, in words; null when it passes. */
export async function valueProblem(f: FieldDef, wire: unknown, t: TFunction): Promise<string | null> {
  const { formIssue } = await import('./formSchema')
  const issue = formIssue(f, wire)
  if (issue === null) return null
  return issue === 'other' ? t('crud.pattern', { label: localized(f.label) }) : problemText(issue, t)
}

/**
 * The one rule of a field: the shared schema run on the value as it would be sent (`toWire`: trimmed
 * text, a date as 'YYYY-MM-DD'). `required` marks the label; the schema decides what "filled in" means.
 */
export const schemaRule = (f: FieldDef, t: TFunction, toWire: (value: unknown) => unknown): FormRule => ({
  required: !!f.required,
  validator: async (_, value) => {
    const problem = await valueProblem(f, toWire(value), t)
    if (problem !== null) throw new Error(problem)
  },
})
