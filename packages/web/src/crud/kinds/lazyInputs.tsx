import { lazy, Suspense, useState, type ComponentType, type ReactElement } from 'react'
// antd's Input alone: `Input` from 'antd' carries its text area and one-time-code boxes along, which
// a list's first paint does not show (they load with the forms and pages that use them).
import Input from 'antd/es/input/Input'
import type { FieldDef } from '@velo/shared'
import type { InputProps } from './types'

// Inputs whose antd controls are large (date pickers, number inputs, uploads, trees, the rich-text
// editor) load apart from the list: a list's first rows need none of them. A form's inputs load with
// the form (a chunk of its own already); a search field's load when the user turns to it.

type Loader = () => Promise<ComponentType<InputProps>>
/** Any kind's input: the kind table narrows the field's type per kind. */
type AnyKindInput = <F extends FieldDef>(props: InputProps<F>) => ReactElement

const hasValue = (value: unknown) => (Array.isArray(value) ? value.some((v) => v !== null && v !== undefined && v !== '') : value !== null && value !== undefined && value !== '')

/** Loads when first shown, a plain box standing in meanwhile (a form's input). */
export function lazyInput(load: Loader): AnyKindInput {
  const Lazy = lazy(() => load().then((component) => ({ default: component })))
  return function LazyInput(props: InputProps) {
    return (
      <Suspense fallback={<Input disabled style={{ width: '100%' }} />}>
        <Lazy {...props} />
      </Suspense>
    )
  }
}

/**
 * A search field's input that loads when the pointer or the focus comes to it (or it holds a value,
 * from the URL): until then a plain box of the same place, so the search form paints with the list.
 */
export function inputOnDemand(load: Loader, width?: number): AnyKindInput {
  const Lazy = lazy(() => load().then((component) => ({ default: component })))
  const style = width ? { width } : undefined
  return function InputOnDemand(props: InputProps) {
    const [wanted, setWanted] = useState(() => hasValue(props.value))
    const [focused, setFocused] = useState(false)
    const standIn = (
      <Input
        id={props.id}
        readOnly
        placeholder={props.placeholder}
        style={style}
        onMouseEnter={() => setWanted(true)}
        onFocus={() => {
          setFocused(true)
          setWanted(true)
        }}
        data-testid={`search-${props.field.name}`}
      />
    )
    if (!wanted && !hasValue(props.value)) return standIn
    return (
      <Suspense fallback={standIn}>
        <Lazy {...props} {...(focused ? { autoFocus: true } : {})} />
      </Suspense>
    )
  }
}
