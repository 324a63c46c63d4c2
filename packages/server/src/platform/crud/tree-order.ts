type Row = Record<string, unknown>

/**
 * A tree's rows in the order its page shows them, expanded: each node followed by everything below
 * it, siblings in the order given (the list's sort). An export in id order scatters a menu's buttons
 * far from their page, and one in sort order interleaves the levels; this one reads like the tree.
 * A row whose parent is not among the rows (filtered out) starts a tree of its own where it stands.
 */
export function inTreeOrder(rows: readonly Row[], idField: string, parentField: string): Row[] {
  const ids = new Set(rows.map((r) => String(r[idField])))
  const children = new Map<string, Row[]>()
  const roots: Row[] = []
  for (const r of rows) {
    const parent = String(r[parentField] ?? '')
    if (!ids.has(parent) || parent === String(r[idField])) roots.push(r)
    else children.set(parent, [...(children.get(parent) ?? []), r])
  }
  const out: Row[] = []
  const seen = new Set<string>()
  // Iterative and guarded: a loop in stored data (written around the engine) must not hang an export.
  const stack = [...roots].reverse()
  while (stack.length) {
    const r = stack.pop()!
    const id = String(r[idField])
    if (seen.has(id)) continue
    seen.add(id)
    out.push(r)
    stack.push(...(children.get(id) ?? []).slice().reverse())
  }
  // Rows only reachable through a loop still belong in the file.
  for (const r of rows) if (!seen.has(String(r[idField]))) out.push(r)
  return out
}
