import type { MessageKey, MessageParams } from './i18n'

const ENVELOPE = Symbol('envelope')

/** A success answer whose message is localized when the response is written. */
export interface Ok<T> {
  [ENVELOPE]: true
  data: T
  messageKey: MessageKey
  params?: MessageParams
}

export function ok<T>(data: T, messageKey: MessageKey = 'ok', params?: MessageParams): Ok<T> {
  return { [ENVELOPE]: true, data, messageKey, params }
}

export function isOk(payload: unknown): payload is Ok<unknown> {
  return typeof payload === 'object' && payload !== null && ENVELOPE in payload
}
