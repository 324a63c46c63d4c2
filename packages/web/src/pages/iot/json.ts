/** The parameters of a command: a JSON object, or null when the text is not one. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return {}
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

export { prettyJson } from '../../crud/kinds/JsonCell'

/** An example or a value as the editor's starting text. */
export const toJsonText = (value: unknown) => JSON.stringify(value ?? {}, null, 2)
