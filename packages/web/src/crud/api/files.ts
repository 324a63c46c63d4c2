import { useQuery } from '@tanstack/react-query'
import { http, requestFile } from '../../api/http'

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
