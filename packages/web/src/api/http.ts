import { ResultCode, type StepUpRequired } from '@velo/shared'
import { currentLanguage } from '../i18n'
import i18n from '../i18n'
import { actionFailureText, ApiError, failureMessage, fromFetchFailure, interpretResponse } from './errors'
import { confirmSessionEnd, showError } from './feedback'
import { exchange, readBody, send, type Query, type TransportOptions } from './transport'

export { ApiError } from './errors'
export { apiHeaders, buildUrl, type Query } from './transport'

export interface RequestOptions extends TransportOptions {
  /** Skip the automatic red message; the caller shows its own. Session dialogs still appear. */
  silent?: boolean
}

/** The server's msg for envelope failures; our own localized text for transport failures. */
export function feedbackText(error: ApiError): string {
  if (error.kind === 'business' || error.kind === 'session') return failureMessage(error)
  return i18n.t(`request.${error.kind}`, { code: error.code, defaultValue: failureMessage(error) })
}

/** The red message of a silent call whose page names the action: "Change password failed: the old password is wrong". */
export function actionFailedText(action: string, error: unknown): string {
  return actionFailureText(action, error instanceof ApiError ? feedbackText(error) : failureMessage(error), currentLanguage())
}

/** Feedback for a failed call (SPEC §8), then the error is rethrown to the caller. */
function report(error: ApiError, silent: boolean | undefined): never {
  if (!silent && error.kind !== 'canceled') showError(feedbackText(error))
  if (error.kind === 'session') confirmSessionEnd()
  throw error
}

/**
 * Runs a call and, when the server asks for a second proof first (a dangerous action: 401, code
 * 50020), asks the user for it and runs the call again. Cancelled, the call ends as cancelled: no
 * red message for what the user chose not to do.
 */
async function withStepUp<T>(run: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await run()
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== ResultCode.STEP_UP_REQUIRED) throw error
      const { proveAgain } = await import('./stepUp/StepUpDialog')
      if (!(await proveAgain((error.data as StepUpRequired | undefined)?.methods ?? ['password']))) throw new ApiError('canceled', 'canceled', 0)
    }
  }
}

/** A call whose success message matters too (the server's localized msg: "Reboot command sent"). */
export async function requestWithMessage<T>(opts: RequestOptions): Promise<{ data: T; msg: string }> {
  try {
    return await withStepUp(() => exchange<T>(opts))
  } catch (error) {
    return report(error instanceof ApiError ? error : fromFetchFailure(error, false, 0), opts.silent)
  }
}

export async function request<T>(opts: RequestOptions): Promise<T> {
  return (await requestWithMessage<T>(opts)).data
}

export const http = {
  get: <T>(url: string, params?: Query, extra?: Partial<RequestOptions>) => request<T>({ ...extra, url, params }),
  post: <T>(url: string, data?: unknown, extra?: Partial<RequestOptions>) =>
    request<T>({ ...extra, method: 'POST', url, data }),
  put: <T>(url: string, data?: unknown, extra?: Partial<RequestOptions>) =>
    request<T>({ ...extra, method: 'PUT', url, data }),
  delete: <T>(url: string, extra?: Partial<RequestOptions>) => request<T>({ ...extra, method: 'DELETE', url }),
}

/** The file name from a Content-Disposition header (RFC 5987 `filename*` first). */
export function filenameFromDisposition(header: string | null): string | undefined {
  if (!header) return undefined
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(header)
  if (star?.[1]) return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''))
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(header)
  return plain?.[1]?.trim()
}

export interface FileResult {
  blob: Blob
  /** The name from Content-Disposition, when the server sent one. */
  filename: string | undefined
}

/** Reads a body to the end, telling `onProgress` the bytes received so far (exports are streamed, with no length). */
async function readWithProgress(response: Response, onProgress: (bytes: number) => void): Promise<Blob> {
  const type = response.headers.get('Content-Type') ?? ''
  if (!response.body) return response.blob()
  const reader = response.body.getReader()
  const chunks: Uint8Array<ArrayBuffer>[] = []
  let received = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value as Uint8Array<ArrayBuffer>)
    received += value.byteLength
    onProgress(received)
  }
  return new Blob(chunks, { type })
}

/**
 * A call whose answer is a file (an export, a template, a stored image). A JSON answer means the
 * server refused; it is reported like any other failure.
 */
export async function requestFile(opts: RequestOptions, onProgress?: (bytes: number) => void): Promise<FileResult> {
  let response: Response
  try {
    response = await withStepUp(async () => {
      const answer = await send(opts)
      const type = answer.headers.get('Content-Type') ?? ''
      if (!answer.ok || type.includes('application/json')) {
        const result = interpretResponse<unknown>(answer.status, await readBody(answer))
        if (!result.ok) throw result.error
      }
      return answer
    })
  } catch (error) {
    return report(fromFetchFailure(error, false, 0), opts.silent)
  }
  const blob = onProgress ? await readWithProgress(response, onProgress) : await response.blob()
  return { blob, filename: filenameFromDisposition(response.headers.get('Content-Disposition')) }
}

/** POST a filter body and save the answer (an xlsx export) as a file. */
export async function download(url: string, body: unknown, filename?: string): Promise<void> {
  const file = await requestFile({ method: 'POST', url, data: body })
  saveBlob(file.blob, filename ?? file.filename ?? 'download.xlsx')
}

export function saveBlob(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = href
  link.download = filename
  document.body.appendChild(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(href), 0)
}
