import type { ColumnDef, FieldDef, ResolvedEntity } from '@velo/shared'
import { storedColumns } from '@velo/shared'

// Rows made from definitions alone, for tests that must cover every entity of a kind (a rider's
// package and erasure): a definition a module adds later gets a row without a line here.

type Row = Record<string, unknown>
let serial = 0

/**
 * A row of the entity with every column that must have a value filled from its definition (kind,
 * options, length), then `set` over it: what any definition a module adds later gets too.
 */
export function filled(e: ResolvedEntity, tag: string, refs: Record<string, number>, set: Row): Row {
  const row: Row = {}
  for (const c of storedColumns(e)) {
    if (c.from === 'id' || c.nullable || c.default !== undefined) continue
    const s = c.source as FieldDef | ColumnDef
    const n = ++serial
    const max = (s as { max?: number }).max
    switch (s.kind) {
      case 'email':
        row[c.name] = `${tag}.${n}@example.com`
        break
      case 'phone':
        row[c.name] = '+31612345678'
        break
      case 'version':
        row[c.name] = '1.0.0'
        break
      case 'enum':
        row[c.name] = (s as FieldDef & { kind: 'enum' }).options[0]!.value
        break
      case 'dict':
        row[c.name] = '0'
        break
      case 'number':
      case 'money':
      case 'treeParent':
        row[c.name] = 1
        break
      case 'boolean':
        row[c.name] = 0
        break
      case 'datetime':
        row[c.name] = new Date().toISOString()
        break
      case 'date':
        row[c.name] = '2026-01-01'
        break
      case 'letterCode':
        row[c.name] = 'NL'
        break
      case 'reference':
        // The rider's own member, device or bike where it names one; any other row otherwise (no foreign keys).
        row[c.name] = refs[(s as FieldDef & { kind: 'reference' }).entity] ?? n
        break
      default:
        row[c.name] = `${tag}-${e.key}-${n}`.slice(0, max ?? 200)
    }
  }
  return { ...row, ...set }
}

