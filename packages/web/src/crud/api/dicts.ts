import { useQuery } from '@tanstack/react-query'
import { systemEntities, type ApiRowOf } from '@velo/shared'
import { http } from '../../api/http'
import { crudKeys } from './crudApi'

/**
 * One enabled item of a dictionary type (GET /system/dict/getDicts/{type}), as far as cells and
 * selects read it: `dictLabelZh` is '' when the item has no Chinese label; `listClass` is the list
 * style (default, primary, success, info, warning, danger or '').
 */
export type DictItem = Pick<ApiRowOf<typeof systemEntities.dictData>, 'dictValue' | 'dictLabel' | 'dictLabelZh' | 'listClass' | 'isDefault'>

// Under the dictionary items' own key: editing an item refreshes every list that shows the type.
const dictKey = (type: string) => [...crudKeys.all(systemEntities.dictData), 'dict', type] as const

/** How a dictionary type is asked for and kept: by the cells and selects, and ahead of a list page (prefetch.ts). */
export const dictQuery = (type: string) => ({
  queryKey: dictKey(type),
  queryFn: () => http.get<DictItem[]>(`/system/dict/getDicts/${encodeURIComponent(type)}`),
  staleTime: Infinity,
})

/** The items of a dictionary type, fetched once per type and shared by every cell and select. */
export function useDict(type: string | null) {
  return useQuery({ ...dictQuery(type ?? ''), enabled: type !== null })
}
