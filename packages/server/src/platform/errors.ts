import type { MessageKey, MessageParams } from './i18n'

export interface FieldIssue {
  field: string
  message: string
}

/**
 * An error the client is meant to see: an envelope code, an HTTP status and a message key
 * localized when the response is written. `data` goes out as the envelope's data.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly messageKey: MessageKey,
    readonly params: MessageParams = {},
    readonly code: number = status,
    readonly data: unknown = null,
  ) {
    super(messageKey)
  }
}

export const badRequest = (key: MessageKey, params?: MessageParams, data?: unknown) =>
  new AppError(400, key, params, 400, data ?? null)
export const notFound = (key: MessageKey = 'error.recordNotFound', params?: MessageParams) =>
  new AppError(404, key, params)
/** A clash with stored data; `field` names the form field to mark. */
export const conflict = (key: MessageKey, params?: MessageParams, field?: string) =>
  new AppError(409, key, params, 409, field ? { errors: [{ field }] } : null)
export const forbidden = (key: MessageKey, params?: MessageParams) => new AppError(403, key, params)
/**
 * A question before a write goes on ("Protocol already exists, overwrite?"): 409 with
 * `data.confirm: true`. The form asks it with the message and sends the same add or modify again
 * with `?confirmed=true`, which the hooks read as `confirmed`.
 */
export const confirmRequired = (key: MessageKey, params?: MessageParams) => new AppError(409, key, params, 409, { confirm: true })
