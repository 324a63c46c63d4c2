import { Input } from 'antd'
import { MASK_PLACEHOLDER } from './placeholder'

/**
 * The modify form's input of a personal field the user has no right to see: the mask, disabled. It
 * hands nothing back to the form (no onChange), and the form leaves the field out of the PUT.
 * `masked`: the row has a value there, so a null from the server shows the placeholder.
 */
export function MaskedInput({ id, value, masked }: { id?: string; value?: unknown; masked: boolean }) {
  const text = typeof value === 'string' && value !== '' ? value : masked ? MASK_PLACEHOLDER : ''
  return <Input id={id} value={text} disabled className="crud-masked-input" data-testid="masked-input" />
}
