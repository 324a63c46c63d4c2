import type { CellProps } from './types'

/** JSON text indented for reading; anything else as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** Request parameters and responses of the operation log, formatted. */
export function JsonCell({ value }: CellProps) {
  if (typeof value !== 'string' || value === '') return null
  return <pre className="crud-json">{prettyJson(value)}</pre>
}
