import type { Paged, ResolvedEntity } from '@velo/shared'
import { http, requestFile, requestWithMessage } from '../../api/http'

// The standard calls of one entity (docs/entity-engine.md, HTTP contract) and the query keys under
// which their answers are cached. Every key of an entity starts with ['crud', key], so one
// invalidation after a change refreshes its lists, rows and the options other forms load from it.

export type Row = Record<string, unknown>
export type Filters = Record<string, unknown>

export interface ListBody extends Filters {
  pageNum?: number
  pageSize?: number
  orderByColumn?: string
  isAsc?: 'asc' | 'desc'
}

/** One step a row went through (GET {path}/{id}/history), oldest first. */
export interface TransitionRecord {
  logId: number
  step: string
  fromState: string
  toState: string
  /** What the caller entered with the step (a remark, a tracking number), blanks left out. */
  input: Row
  userName: string
  operTime: string
}

/** Rows per state of the status field (POST {path}/counts). */
export type StateCounts = Record<string, number>

export interface ImportResult {
  inserted: number
  updated: number
}

export const crudKeys = {
  all: (e: ResolvedEntity) => ['crud', e.key] as const,
  list: (e: ResolvedEntity, body: ListBody) => ['crud', e.key, 'list', body] as const,
  row: (e: ResolvedEntity, id: unknown) => ['crud', e.key, 'row', id] as const,
  options: (e: ResolvedEntity) => ['crud', e.key, 'options'] as const,
  counts: (e: ResolvedEntity, filters: Filters) => ['crud', e.key, 'counts', filters] as const,
  history: (e: ResolvedEntity, id: unknown) => ['crud', e.key, 'history', id] as const,
}

/** One choice of a picker: GET {path}/options answers id and name (and the parent, for a tree). */
export interface PickOption {
  value: number
  label: string
  parentId?: number
}

export function crudApi(e: ResolvedEntity) {
  return {
    list: (body: ListBody) => http.post<Paged<Row>>(`${e.path}/list`, body),
    /**
     * Id and name of the rows in the caller's scope, for the pickers of other forms. Open to whoever
     * may use a page that refers to the entity; a refusal leaves the picker empty, without a red message.
     */
    options: () => http.get<PickOption[]>(`${e.path}/options`, undefined, { silent: true }),
    get: (id: unknown) => http.get<Row>(`${e.path}/${encodeURIComponent(String(id))}`),
    // Field errors go onto the form; the form reports anything else itself.
    add: (values: Row) => http.post<Row>(e.path, values, { silent: true }),
    edit: (values: Row) => http.put<Row>(e.path, values, { silent: true }),
    remove: (ids: readonly unknown[]) => http.delete<{ deleted: number }>(`${e.path}/${ids.map((id) => encodeURIComponent(String(id))).join(',')}`),
    export: (filters: Filters, onProgress: (bytes: number) => void) =>
      requestFile({ method: 'POST', url: `${e.path}/export`, data: filters }, onProgress),
    importTemplate: () => requestFile({ url: `${e.path}/importTemplate` }),
    import: (file: File, updateSupport: boolean) => {
      const form = new FormData()
      form.append('file', file, file.name)
      form.append('updateSupport', String(updateSupport))
      return http.post<ImportResult>(`${e.path}/import`, form, { silent: true })
    },
    // Steps and actions answer the server's localized msg ("Review: now Bike collecting"), which the
    // page shows; their failures are the caller's to show (field errors go onto the dialog's form).
    step: (id: unknown, step: string, body: Row) =>
      requestWithMessage<Row>({ method: 'POST', url: `${e.path}/${encodeURIComponent(String(id))}/${step}`, data: body, silent: true }),
    rowAction: (id: unknown, action: string, body: Row) =>
      requestWithMessage<unknown>({ method: 'POST', url: `${e.path}/${encodeURIComponent(String(id))}/action/${action}`, data: body, silent: true }),
    /** A toolbar action, or a selection action with `ids` in the body. */
    action: (action: string, body: Row) => requestWithMessage<unknown>({ method: 'POST', url: `${e.path}/action/${action}`, data: body, silent: true }),
    history: (id: unknown) => http.get<TransitionRecord[]>(`${e.path}/${encodeURIComponent(String(id))}/history`),
    counts: (filters: Filters) => http.post<StateCounts>(`${e.path}/counts`, filters),
  }
}
