import { useRef, useState, type FormEvent } from 'react'

// A tiny form state for the public pages, doing what their antd forms did: each field is checked
// against its rules as it changes and all of them on submit, the first failing rule's text shows
// under the field, and a field that depends on another (the confirmation) is checked again when
// that one changes.

/** A rule answers the error text, or null when the value passes. */
export type Rule<V> = (value: string, values: V) => string | null

export const required =
  <V>(message: string, { whitespace = false } = {}): Rule<V> =>
  (value) =>
    (whitespace ? value.trim() : value) === '' ? message : null

/** Checked only once there is a value (the required rule speaks for an empty one). */
export const pattern =
  <V>(re: RegExp, message: string): Rule<V> =>
  (value) =>
    value === '' || re.test(value) ? null : message

/** The value must repeat the field `other` (an empty one is left to the required rule). */
export const sameAs =
  <V extends Record<string, string>>(other: keyof V, message: string): Rule<V> =>
  (value, values) =>
    value === '' || value === values[other] ? null : message

export function firstError<V>(rules: readonly Rule<V>[] | undefined, value: string, values: V): string | null {
  for (const rule of rules ?? []) {
    const error = rule(value, values)
    if (error) return error
  }
  return null
}

export type Rules<V> = { [K in keyof V]?: readonly Rule<V>[] }
export type Dependencies<V> = { [K in keyof V]?: readonly (keyof V)[] }

export interface FieldProps {
  name: string
  value: string
  error: string | null
  onChange: (value: string) => void
}

export interface AuthForm<V extends Record<string, string>> {
  values: V
  field: (name: keyof V & string) => FieldProps
  set: (name: keyof V, value: string) => void
  /** Sets a value without checking it, and forgets the field's error (the code after a failed try). */
  reset: (name: keyof V, value: string) => void
  /** A submit handler: runs `onValid` with the values when every field passes. */
  onSubmit: (onValid: (values: V) => void) => (e: FormEvent) => void
}

/** `rules` and `dependencies` are read on every change, so they may depend on props (the captcha). */
export function useAuthForm<V extends Record<string, string>>(initial: V, rules: Rules<V>, dependencies: Dependencies<V> = {}): AuthForm<V> {
  const [values, setValues] = useState(initial)
  const [errors, setErrors] = useState<Record<string, string | null>>({})
  const current = useRef({ values, rules, dependencies })
  current.current = { values, rules, dependencies }
  const check = (name: keyof V, all: V) => firstError(current.current.rules[name], all[name] ?? '', all)

  const set = (name: keyof V, value: string) => {
    const next = { ...current.current.values, [name]: value }
    current.current.values = next
    setValues(next)
    const changed: Record<string, string | null> = { [name]: check(name, next) }
    // A dependent field that has a value is checked again (the confirmation when the password changes).
    for (const [field, on] of Object.entries(current.current.dependencies) as [keyof V & string, (keyof V)[]][]) {
      if (on.includes(name) && next[field] !== '') changed[field] = check(field, next)
    }
    setErrors((e) => ({ ...e, ...changed }))
  }

  const reset = (name: keyof V, value: string) => {
    const next = { ...current.current.values, [name]: value }
    current.current.values = next
    setValues(next)
    setErrors((e) => ({ ...e, [name]: null }))
  }

  return {
    values,
    set,
    reset,
    field: (name) => ({ name, value: values[name] ?? '', error: errors[name] ?? null, onChange: (v) => set(name, v) }),
    onSubmit: (onValid) => (e) => {
      e.preventDefault()
      const all = current.current.values
      const found = Object.fromEntries(Object.keys(all).map((k) => [k, check(k, all)]))
      setErrors(found)
      if (Object.values(found).every((x) => x === null)) onValid(all)
    },
  }
}
