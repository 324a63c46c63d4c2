import type { FormRule } from 'antd'
import type { TFunction } from 'i18next'
import { localized } from '../../i18n'
import { isTimeZone } from '@velo/shared'
import type { FieldOf } from './types'

// Form rules mirroring the server's checks (its zod schemas have the last word). Each kind of the
// kind table combines these.


export const lengthRules = (t: TFunction, label: string, min?: number, max?: number): FormRule[] => [
  ...(min ? [{ min, message: t('crud.minLength', { label, min }) }] : []),
  ...(max ? [{ max, message: t('crud.maxLength', { label, max }) }] : []),
]

export const patternRule = (pattern: RegExp, message: string): FormRule[] => [{ pattern, message }]

export function numberRules(f: FieldOf<'number'> | FieldOf<'money'>, t: TFunction, label: string): FormRule[] {
  const rules: FormRule[] = []
  if (f.min !== undefined) rules.push({ type: 'number', min: f.min, message: t('crud.min', { label, min: f.min }) })
  if (f.max !== undefined) rules.push({ type: 'number', max: f.max, message: t('crud.max', { label, max: f.max }) })
  if (f.kind === 'number' && f.int) {
    rules.push({
      validator: (_, value) => (value === null || value === undefined || Number.isInteger(value) ? Promise.resolve() : Promise.reject(new Error(t('crud.integer', { label })))),
    })
  }
  return rules
}

export const textRules = (f: FieldOf<'text'>, t: TFunction, label: string): FormRule[] => [
  ...lengthRules(t, label, f.min, f.max),
  ...(f.pattern ? patternRule(f.pattern, f.patternMessage ? localized(f.patternMessage) : t('crud.pattern', { label })) : []),
]

export const timeZoneRules = (t: TFunction, label: string): FormRule[] => [
  {
    validator: (_, value) =>
      !value || isTimeZone(value) ? Promise.resolve() : Promise.reject(new Error(t('crud.timeZone', { label }))),
  },
]

const REQUIRED_KIND: Record<'text' | 'list' | 'value', Partial<FormRule>> = {
  text: { whitespace: true },
  list: { type: 'array', min: 1 },
  value: {},
}

export const requiredRule = (how: 'text' | 'list' | 'value', t: TFunction, label: string): FormRule =>
  ({ required: true, message: t('crud.required', { label }), ...REQUIRED_KIND[how] }) as FormRule
