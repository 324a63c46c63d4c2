import type { ColumnShape, IndexShape, Snapshot, TableShape } from './shape'

// What changed between the last snapshot and the definitions, table by table.

export interface ColumnChange {
  from: ColumnShape
  to: ColumnShape
  /** Only a varchar's length differs (SQLite ignores lengths). */
  lengthOnly: boolean
}

export interface TableChanges {
  table: string
  /** The table as it was (absent: it is new) and as it will be (absent: its definition is gone). */
  before?: TableShape
  after?: TableShape
  added: ColumnShape[]
  dropped: ColumnShape[]
  altered: ColumnChange[]
  createdIndexes: IndexShape[]
  droppedIndexes: IndexShape[]
  /** A join table's key changed (not generated: a developer writes it). */
  primaryKeyChanged: boolean
}

const sameColumn = (a: ColumnShape, b: ColumnShape) =>
  a.type === b.type && a.nullable === b.nullable && a.default === b.default && !!a.unique === !!b.unique

const sameIndex = (a: IndexShape, b: IndexShape) => a.unique === b.unique && a.columns.join() === b.columns.join()

const varcharFamily = (type: string) => /^(varchar\(\d+\)|text)$/.test(type)

/** The tables that differ, in name order; empty when the definitions match the snapshot. */
export function diffSnapshots(before: Snapshot, after: Snapshot): TableChanges[] {
  const out: TableChanges[] = []
  const names = [...new Set([...Object.keys(before.tables), ...Object.keys(after.tables)])].sort()
  for (const table of names) {
    const was = before.tables[table]
    const now = after.tables[table]
    const change: TableChanges = { table, before: was, after: now, added: [], dropped: [], altered: [], createdIndexes: [], droppedIndexes: [], primaryKeyChanged: false }
    if (!was || !now) {
      out.push(change)
      continue
    }
    const old = new Map(was.columns.map((c) => [c.name, c]))
    const next = new Map(now.columns.map((c) => [c.name, c]))
    for (const c of now.columns) {
      const prior = old.get(c.name)
      if (!prior) change.added.push(c)
      else if (!sameColumn(prior, c)) {
        const lengthOnly =
          prior.nullable === c.nullable && prior.default === c.default && !!prior.unique === !!c.unique && varcharFamily(prior.type) && varcharFamily(c.type)
        change.altered.push({ from: prior, to: c, lengthOnly })
      }
    }
    for (const c of was.columns) if (!next.has(c.name)) change.dropped.push(c)
    const oldIx = new Map(was.indexes.map((i) => [i.name, i]))
    const newIx = new Map(now.indexes.map((i) => [i.name, i]))
    for (const i of now.indexes) {
      const prior = oldIx.get(i.name)
      if (!prior || !sameIndex(prior, i)) change.createdIndexes.push(i)
    }
    for (const i of was.indexes) {
      const next = newIx.get(i.name)
      if (!next || !sameIndex(i, next)) change.droppedIndexes.push(i)
    }
    change.primaryKeyChanged = (was.primaryKey ?? []).join() !== (now.primaryKey ?? []).join()
    if (change.added.length || change.dropped.length || change.altered.length || change.createdIndexes.length || change.droppedIndexes.length || change.primaryKeyChanged) out.push(change)
  }
  return out
}
