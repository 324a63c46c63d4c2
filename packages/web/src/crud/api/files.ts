import { useQuery } from '@tanstack/react-query'
import type { ResolvedEntity } from '@velo/shared'
import { ApiError, interpretResponse } from '../../api/errors'
import { confirmSessionEnd, showError } from '../../api/feedback'
import { feedbackText, http, requestFile, saveBlob } from '../../api/http'
import { apiHeaders, buildUrl } from '../../api/transport'
import { API_HOST } from '../../lib/config'

/** What POST /common/upload answers. */
export interface UploadResult {
  fileName: string
  originalFilename: string
  url: string
}

export function uploadFile(file: File): Promise<UploadResult> {
  const form = new FormData()
  form.append('file', file, file.name)
  return http.post<UploadResult>('/common/upload', form)
}

/** A stored file by its stored name; /common/download wants the session token, which <img> cannot send. */
export const fetchStoredFile = (fileName: string, silent = true) => requestFile({ url: '/common/download', params: { fileName }, silent })

/** An object URL of a stored image, kept for the session so thumbnails are fetched once. */
export function useStoredImageUrl(fileName: string | null | undefined) {
  return useQuery({
    queryKey: ['storedFile', fileName],
    queryFn: async () => URL.createObjectURL((await fetchStoredFile(fileName ?? '')).blob),
    enabled: !!fileName,
    staleTime: Infinity,
    gcTime: Infinity,
  })
}

/** The last segment of a stored name ('upload/2024/ab12.png' → 'ab12.png'). */
export const storedBaseName = (fileName: string) => fileName.slice(fileName.lastIndexOf('/') + 1)

/** What POST {path}/file/{field} answers for a `file` field: the stored name and what the server made of the file. */
export interface StoredFileInfo {
  fileName: string
  originalName: string
  size: number
  contentType: string
  sha256: string
  md5: string
  crc8: { variant: string; value: string }
}

/** The upload route of a `file` field, and its download route below it. */
export const entityFileUrl = (entity: Pick<ResolvedEntity, 'path'>, field: string) => `${entity.path}/file/${field}`

/** The red message (and the session dialog) a failed upload gets, as every other call's. */
function reportUploadFailure(error: ApiError): never {
  if (error.kind !== 'canceled') showError(feedbackText(error))
  if (error.kind === 'session') confirmSessionEnd()
  throw error
}

/**
 * Uploads one file to a `file` field's route. XMLHttpRequest rather than fetch: only it reports how
 * much of the body has been sent, and a firmware image or a video takes minutes. No timeout: the
 * progress shows it is moving, and the caller's signal cancels it.
 */
export function uploadEntityFile(
  entity: Pick<ResolvedEntity, 'path'>,
  field: string,
  file: File,
  o: { onProgress?: (sent: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<StoredFileInfo> {
  return new Promise<StoredFileInfo>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', buildUrl(entityFileUrl(entity, field)))
    apiHeaders().forEach((value, key) => xhr.setRequestHeader(key, value))
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) o.onProgress?.(event.loaded, event.total)
    }
    xhr.onload = () => {
      let body: unknown = null
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null
      } catch {
        body = xhr.responseText
      }
      const result = interpretResponse<StoredFileInfo>(xhr.status, body)
      if (result.ok) resolve(result.data)
      else reject(result.error)
    }
    xhr.onerror = () => reject(new ApiError('Network Error', 'network', 0))
    xhr.onabort = () => reject(new ApiError('canceled', 'canceled', 0))
    if (o.signal?.aborted) return reject(new ApiError('canceled', 'canceled', 0))
    o.signal?.addEventListener('abort', () => xhr.abort(), { once: true })
    const form = new FormData()
    form.append('file', file, file.name)
    xhr.send(form)
  }).catch((error: unknown) => reportUploadFailure(error instanceof ApiError ? error : new ApiError(String(error), 'network', 0)))
}

/** A stored name in a route's path: each segment encoded, the slashes kept. */
const pathOf = (fileName: string) => fileName.split('/').map(encodeURIComponent).join('/')

/** Fetches a `file` field's stored file (with the session token) and saves it under its original name. */
export async function downloadEntityFile(entity: Pick<ResolvedEntity, 'path'>, field: string, fileName: string): Promise<void> {
  const file = await requestFile({ url: `${entityFileUrl(entity, field)}/${pathOf(fileName)}` })
  saveBlob(file.blob, file.filename ?? storedBaseName(fileName))
}

/** Files a browser's <video> plays (a file field's value is its stored name, with its extension). */
export const VIDEO_EXTENSIONS: readonly string[] = ['mp4', 'webm', 'mov']

export const isVideoFile = (fileName: string) => VIDEO_EXTENSIONS.includes(fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase())

/** A link to one stored file that works without the token until `expiresAt` (ten minutes). */
export interface FileLink {
  url: string
  expiresAt: string
}

/**
 * A link for a <video> element, which cannot send the session token: GET {path}/file/{field}/link/{name}
 * checks the download's rights and data scope and answers a signed URL (with the server's API prefix).
 */
export async function entityFileLink(entity: Pick<ResolvedEntity, 'path'>, field: string, fileName: string): Promise<FileLink> {
  const link = await http.get<FileLink>(`${entityFileUrl(entity, field)}/link/${pathOf(fileName)}`)
  return { ...link, url: `${API_HOST}${link.url}` }
}
