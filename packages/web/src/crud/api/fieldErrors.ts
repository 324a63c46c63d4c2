import type { FormInstance } from 'antd'
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

/**
 * The question of a write the server wants confirmed first ("Protocol already exists, overwrite?":
 * 409 with data.confirm, the server's confirmRequired), or null when the call failed otherwise.
 */
export function confirmQuestionOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.kind !== 'business') return null
  return (error.data as { confirm?: unknown } | null | undefined)?.confirm === true ? error.message : null
}

/** The red message a silent call skipped (SPEC §8), for failures that are not field errors. */
export function showFailure(error: unknown): void {
  if (error instanceof ApiError && error.kind !== 'canceled') showError(feedbackText(error))
}

/**
 * The server's field errors under the form's fields (SPEC §8); errors of fields the form does not
 * show, and any other failure, in a red message.
 */
export function placeFieldErrors(form: FormInstance, shownFields: readonly string[], error: unknown): void {
  const errors = fieldErrorsOf(error)
  if (!errors) return showFailure(error)
  const shown = new Set(shownFields)
  form.setFields(errors.filter((e) => shown.has(e.field)).map((e) => ({ name: e.field, errors: [e.message] })))
  const elsewhere = errors.filter((e) => !shown.has(e.field))
  if (elsewhere.length) showError(elsewhere.map((e) => e.message).join('; '))
}
