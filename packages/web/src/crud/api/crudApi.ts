import type { ActionPreview, ApiRowOf, Paged, ResolvedEntity } from '@velo/shared'
import { http, requestFile, requestWithMessage } from '../../api/http'

// The standard calls of one entity (docs/entity-engine.md, HTTP contract) and the query keys under
// which their answers are cached. Every key of an entity starts with ['crud', key], so one
// invalidation after a change refreshes its lists, rows and the options other forms load from it.

/**
 * A row of whichever entity: for code that works the same for every entity and finds its fields by
 * the names the definition gives at run time (cells and inputs by field kind, the tree nesting of
 * any tree entity, a row's name for a confirmation, the values of a generated form), so no field is
 * known to the type checker. Code about one entity reads `ApiRowOf<typeof thatEntity>`, or
 * `EntityRow<E>` when it is generic over the entity.
 */
export type Row = Record<string, unknown>
export type Filters = Record<string, unknown>

/**
 * One row of `E` as the API answers it: `ApiRowOf<E>` for an entity whose definition the type
 * checker knows (`typeof systemEntities.role`), else a `Row` (the generic page of an entity found by
 * its path at run time, typed only `ResolvedEntity`).
 */
export type EntityRow<E extends ResolvedEntity> = ResolvedEntity extends E ? Row : ApiRowOf<E>

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

const confirmedParams = (confirmed: boolean) => (confirmed ? { confirmed: 'true' } : undefined)

export function crudApi<E extends ResolvedEntity>(e: E) {
  return {
    list: (body: ListBody) => http.post<Paged<EntityRow<E>>>(`${e.path}/list`, body),
    /**
     * Id and name of the rows in the caller's scope, for the pickers of other forms. Open to whoever
     * may use a page that refers to the entity; a refusal leaves the picker empty, without a red message.
     */
    options: (params?: Record<string, number | string>) => http.get<PickOption[]>(`${e.path}/options`, params, { silent: true }),
    get: (id: unknown) => http.get<EntityRow<E>>(`${e.path}/${encodeURIComponent(String(id))}`),
    // Field errors go onto the form; the form reports anything else itself. `confirmed`: sent again
    // after the user said yes to the server's question (a 409 with data.confirm, confirmQuestionOf).
    add: (values: Row, confirmed = false) => http.post<EntityRow<E>>(e.path, values, { silent: true, params: confirmedParams(confirmed) }),
    edit: (values: Row, confirmed = false) => http.put<EntityRow<E>>(e.path, values, { silent: true, params: confirmedParams(confirmed) }),
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
      requestWithMessage<EntityRow<E>>({ method: 'POST', url: `${e.path}/${encodeURIComponent(String(id))}/${step}`, data: body, silent: true }),
    rowAction: (id: unknown, action: string, body: Row) =>
      requestWithMessage<unknown>({ method: 'POST', url: `${e.path}/${encodeURIComponent(String(id))}/action/${action}`, data: body, silent: true }),
    /** A toolbar action, or a selection action with `ids` in the body. */
    action: (action: string, body: Row) => requestWithMessage<unknown>({ method: 'POST', url: `${e.path}/action/${action}`, data: body, silent: true }),
    // What an action with `preview` would do (POST {action route}/preview), asked as the user types:
    // silent, the dialog shows no failure while typing (the fields' own rules say what is wrong).
    rowActionPreview: (id: unknown, action: string, body: Row, signal?: AbortSignal) =>
      http.post<ActionPreview>(`${e.path}/${encodeURIComponent(String(id))}/action/${action}/preview`, body, { silent: true, signal }),
    /** A toolbar or selection action's preview, `ids` in the body as for the action. */
    actionPreview: (action: string, body: Row, signal?: AbortSignal) => http.post<ActionPreview>(`${e.path}/action/${action}/preview`, body, { silent: true, signal }),
    history: (id: unknown) => http.get<TransitionRecord[]>(`${e.path}/${encodeURIComponent(String(id))}/history`),
    counts: (filters: Filters) => http.post<StateCounts>(`${e.path}/counts`, filters),
  }
}
