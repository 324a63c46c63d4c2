import type { FieldDef } from '../src'

// A minimal entity for the definition checks' tests: every one starts from it and adds what it checks.

/** Everything a definition needs but its fields. */
export const THING = {
  key: 'thing',
  table: 'thing',
  path: '/x/thing',
  permission: 'x:thing',
  label: { en_US: 'Thing', zh_CN: '东西' },
  idField: 'thingId',
  defaultSort: { field: 'thingId', order: 'asc' as const },
}

/** Its id field. */
export const THING_ID = { name: 'thingId', kind: 'number' as const, label: { en_US: 'ID', zh_CN: '编号' }, readOnly: true }

/** The definition with its id field, then the fields a test adds. */
export const thing = <const F extends readonly FieldDef[]>(...fields: F) => ({ ...THING, fields: [THING_ID, ...fields] })
