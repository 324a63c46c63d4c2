import { Input } from 'antd'
import type { FormRule } from 'antd'
import type { TFunction } from 'i18next'
import { parseJsonObject } from './json'

/** A form rule: the text must be a JSON object (empty counts as {}). */
export const jsonObjectRule = (t: TFunction): FormRule => ({
  validator: (_rule, value: string | undefined) =>
    parseJsonObject(value ?? '') ? Promise.resolve() : Promise.reject(new Error(t('iot.json.invalid'))),
})

/** A text area for JSON, monospaced, no spell checking; Form.Item supplies value and onChange. */
export function JsonEditor(props: { value?: string; onChange?: (value: string) => void; id?: string; rows?: number; disabled?: boolean; testId?: string }) {
  const { value, onChange, id, rows = 6, disabled, testId } = props
  return (
    <Input.TextArea
      id={id}
      className="iot-json-editor"
      value={value}
      onChange={(e) => onChange?.(e.target.value)}
      autoSize={{ minRows: rows, maxRows: 20 }}
      spellCheck={false}
      disabled={disabled}
      data-testid={testId}
    />
  )
}
