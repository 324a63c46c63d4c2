import { MENU_CATALOGUE, type GenColumn, type GenKind, type GenTableConfig, type Label } from '@velo/shared'

// The edit page's changes to a table's generation settings, as pure steps: what follows what.

/** The menu directories a generated page may go under, in the order of the menu. */
export const MENU_AREAS: readonly { key: string; title: Label }[] = MENU_CATALOGUE.map((area) => ({ key: area.key, title: area.title }))

export const defaultPath = (area: string, entityKey: string) => `/${area}/${entityKey}`
export const defaultPermission = (area: string, entityKey: string) => `${area}:${entityKey}`

/**
 * The settings being edited. The API path is always the area and entity key (the console finds a
 * menu page's module by it; the server refuses another). The permission follows them, as the
 * server derives it on import, until the user writes one by hand.
 */
export interface GenDraft {
  config: GenTableConfig
  permissionFollows: boolean
}

export function draftOf(config: GenTableConfig): GenDraft {
  return {
    config: { ...config, path: defaultPath(config.area, config.entityKey) },
    permissionFollows: config.permission === defaultPermission(config.area, config.entityKey),
  }
}

function withNaming(draft: GenDraft, change: Pick<GenTableConfig, 'area' | 'entityKey'>): GenDraft {
  const config = { ...draft.config, ...change }
  config.path = defaultPath(config.area, config.entityKey)
  if (draft.permissionFollows) config.permission = defaultPermission(config.area, config.entityKey)
  return { ...draft, config }
}

export const setEntityKey = (draft: GenDraft, entityKey: string) => withNaming(draft, { area: draft.config.area, entityKey })
export const setArea = (draft: GenDraft, area: string) => withNaming(draft, { area, entityKey: draft.config.entityKey })

export const setPermission = (draft: GenDraft, permission: string): GenDraft => ({
  ...draft,
  config: { ...draft.config, permission },
  permissionFollows: permission === defaultPermission(draft.config.area, draft.config.entityKey),
})

export const setLabel = (draft: GenDraft, language: keyof Label, text: string): GenDraft => ({
  ...draft,
  config: { ...draft.config, label: { ...draft.config.label, [language]: text } },
})

const withColumns = (draft: GenDraft, columns: GenColumn[], rest: Partial<GenTableConfig> = {}): GenDraft => ({
  ...draft,
  config: { ...draft.config, ...rest, columns },
})

/**
 * One column changed. A dictionary belongs to a `dict` column only; a column that stops being the
 * tree's parent is no longer named as such.
 */
export function setColumn(draft: GenDraft, column: string, patch: Partial<GenColumn>): GenDraft {
  const columns = draft.config.columns.map((c) => {
    if (c.column !== column) return c
    const next = { ...c, ...patch }
    if (next.kind !== 'dict') next.dict = ''
    return next
  })
  const lostParent = draft.config.treeParent === column && patch.kind !== undefined && patch.kind !== 'treeParent'
  return withColumns(draft, columns, lostParent ? { treeParent: null } : {})
}

/** What a former tree parent column becomes: the id it holds. */
const FORMER_PARENT_KIND: GenKind = 'number'

/** The tree's parent column is of kind treeParent; the one it replaces goes back to a number. */
export function setTreeParent(draft: GenDraft, column: string | null): GenDraft {
  const columns = draft.config.columns.map((c) => {
    if (c.column === column) return { ...c, kind: 'treeParent' as const, dict: '' }
    if (c.column === draft.config.treeParent && c.kind === 'treeParent') return { ...c, kind: FORMER_PARENT_KIND }
    return c
  })
  return withColumns(draft, columns, { treeParent: column })
}

export function setTemplate(draft: GenDraft, template: GenTableConfig['template']): GenDraft {
  if (template === 'tree') return { ...draft, config: { ...draft.config, template } }
  // A plain list has no parent column; the column keeps its kind (a reference the user may still want).
  return { ...draft, config: { ...draft.config, template, treeParent: null } }
}

/** The server's field errors (data.errors, paths like 'columns.2.name') by path. */
export function errorsByPath(errors: readonly { field: string; message: string }[] | null): ReadonlyMap<string, string> {
  const map = new Map<string, string>()
  for (const e of errors ?? []) map.set(e.field, map.has(e.field) ? `${map.get(e.field)}; ${e.message}` : e.message)
  return map
}
