import type { Key } from 'react'
import type { Row } from './api/crudApi'

// A tree entity's list is every matching row with a parent id (0 for a root); the table and the
// tree selects need them nested. Any tree entity's: the id and parent fields are the definition's.

export type TreeRow<R extends Row = Row> = R & { children?: TreeRow<R>[] }

/**
 * Nests rows under their parents, keeping the server's order among siblings. A row whose parent is
 * not in the list (a search matched the child only) becomes a root, so no match is hidden.
 */
export function nestRows<R extends Row>(rows: readonly R[], idField: string, parentField: string): TreeRow<R>[] {
  const nodes = new Map<unknown, TreeRow<R>>(rows.map((row) => [row[idField], { ...row }]))
  const roots: TreeRow<R>[] = []
  for (const node of nodes.values()) {
    const parent = nodes.get(node[parentField])
    if (parent && parent !== node) (parent.children ??= []).push(node)
    else roots.push(node)
  }
  return roots
}

/** Keys of every node that has children: what "expand all" opens. */
export function parentKeys(nodes: readonly TreeRow[], idField: string): Key[] {
  return nodes.flatMap((n) => (n.children?.length ? [n[idField] as Key, ...parentKeys(n.children, idField)] : []))
}

/** The ids of a node and everything below it. */
export function subtreeIds(nodes: readonly TreeRow[], idField: string, rootId: unknown): Set<unknown> {
  const ids = new Set<unknown>()
  const collect = (list: readonly TreeRow[], inside: boolean) => {
    for (const n of list) {
      const here = inside || n[idField] === rootId
      if (here) ids.add(n[idField])
      if (n.children) collect(n.children, here)
    }
  }
  collect(nodes, false)
  return ids
}

/** Ids of the nodes without children. */
export function leafIds(nodes: readonly TreeRow[], idField: string): Set<unknown> {
  const ids = new Set<unknown>()
  const walk = (list: readonly TreeRow[]) => {
    for (const n of list) {
      if (n.children?.length) walk(n.children)
      else ids.add(n[idField])
    }
  }
  walk(nodes)
  return ids
}

/**
 * The node `id` and the nodes above it, nearest first, by the rows' parent ids: what must be open
 * for a row under `id` to show (a child just added under a closed node). Stops at the top (0) or at
 * a node the rows do not hold, and never loops on a bad parent chain.
 */
export function pathUp(rows: readonly Row[], idField: string, parentField: string, id: unknown): Key[] {
  const parentOf = new Map<unknown, unknown>(rows.map((row) => [row[idField], row[parentField]]))
  const path: Key[] = []
  for (let at = id; parentOf.has(at) && !path.includes(at as Key); at = parentOf.get(at)) path.push(at as Key)
  return path
}
