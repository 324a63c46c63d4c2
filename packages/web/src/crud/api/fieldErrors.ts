import { ApiError } from '../../api/errors'
import { showError } from '../../api/feedback'
import { feedbackText } from '../../api/http'

/** A problem the server found in one field of a form or one cell of an imported sheet (400, data.errors). */
export interface FieldError {
  field: string
  message: string
  /** The spreadsheet row of an import. */
  row?: number
}

/**
 * The field errors of a refused call, or null when it failed for another reason. A field named
 * without a message (a 409 "already exists" points at its field) carries the envelope's msg.
 */
export function fieldErrorsOf(error: unknown): FieldError[] | null {
  if (!(error instanceof ApiError) || error.kind !== 'business') return null
  const errors = (error.data as { errors?: unknown } | null | undefined)?.errors
  if (!Array.isArray(errors) || errors.length === 0) return null
  return (errors as Partial<FieldError>[]).map((e) => ({ ...e, field: String(e.field ?? ''), message: e.message || error.message }))
}

/** The red message a silent call skipped (SPEC §8), for failures that are not field errors. */
export function showFailure(error: unknown): void {
  if (error instanceof ApiError && error.kind !== 'canceled') showError(feedbackText(error))
}
