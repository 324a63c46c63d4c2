import type { ReactNode } from 'react'
import type { FieldDef, ResolvedEntity } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { localized } from '../../i18n'
import { kindOf } from '../kinds/kindTable'
import type { InputComponent, InputProps, InputRenderer } from '../kinds/types'

/** Calls a page's renderer with the value and onChange Form.Item hands to its child. */
function RenderedInput({ render, ...props }: InputProps & { render: InputRenderer }) {
  return render(props)
}

export interface FieldControlProps {
  entity: ResolvedEntity
  field: FieldDef
  /** The generated input to use unless the page overrides it. */
  input: InputComponent
  override?: InputRenderer
  disabled?: boolean
  rowId?: unknown
  [injected: string]: unknown
}

/**
 * The child of a Form.Item: a page's own renderer or the generated input, with a placeholder in the
 * kind's words. Form.Item's value, onChange and id pass through.
 */
export function FieldControl({ entity, field, input: Input, override, ...rest }: FieldControlProps): ReactNode {
  const { t } = useTranslation()
  const prompt = kindOf(field).prompt
  const props = {
    ...rest,
    entity,
    field,
    placeholder: prompt ? t(prompt === 'enter' ? 'crud.enter' : 'crud.choose', { label: localized(field.label) }) : undefined,
  } as InputProps
  return override ? <RenderedInput {...props} render={override} /> : <Input {...props} />
}
