import type { GenDbTable, GenPreview, GenTableConfig } from '@velo/shared'
import { http, requestFile, saveBlob } from '../../../api/http'

// Code generation's calls beside the engine's list, row and delete (shared/src/tools/gen.ts).

/** GET /tool/gen/{id}/config: the imported table and how it becomes a module. */
export interface GenConfigAnswer {
  tableId: number
  tableName: string
  tableComment: string
  config: GenTableConfig
}

/** The list page, and the fixed route where a row's settings are edited (SPEC §2). */
export const GEN_LIST_PATH = '/tool/gen'
export const genEditPath = (tableId: number) => `${GEN_LIST_PATH}/edit?tableId=${encodeURIComponent(String(tableId))}`

const at = (tableId: number) => `/tool/gen/${encodeURIComponent(String(tableId))}`

export const genKeys = {
  tables: ['tool', 'gen', 'tables'] as const,
  config: (tableId: number) => ['tool', 'gen', 'config', tableId] as const,
  preview: (tableId: number) => ['tool', 'gen', 'preview', tableId] as const,
}

export const genApi = {
  tables: () => http.get<GenDbTable[]>('/tool/gen/tables'),
  import: (tables: readonly string[]) => http.post<{ imported: number }>('/tool/gen/import', { tables }),
  config: (tableId: number) => http.get<GenConfigAnswer>(`${at(tableId)}/config`),
  // Silent: the page puts the server's field errors beside the inputs and shows its message itself.
  saveConfig: (tableId: number, config: GenTableConfig) => http.put<GenConfigAnswer | null>(`${at(tableId)}/config`, config, { silent: true }),
  sync: (tableId: number) => http.post<GenConfigAnswer>(`${at(tableId)}/sync`),
  preview: (tableId: number) => http.get<GenPreview>(`${at(tableId)}/preview`),
  /** The files as a zip, fetched with the token (a plain link could not send it) and saved. */
  download: async (tableId: number, fallbackName: string) => {
    const file = await requestFile({ url: `${at(tableId)}/download` })
    saveBlob(file.blob, file.filename ?? `${fallbackName}.zip`)
  },
}
