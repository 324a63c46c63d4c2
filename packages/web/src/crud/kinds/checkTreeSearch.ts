import type { Key } from 'react'

/** A node of a checkable tree as the search reads it: its key, its shown title and its children. */
export interface SearchableNode {
  key: Key
  title?: unknown
  children?: readonly SearchableNode[]
}

/** Every key of the tree, parents and leaves: what "Select all" ticks. */
export function allKeys(nodes: readonly SearchableNode[], into: Key[] = []): Key[] {
  for (const n of nodes) {
    into.push(n.key)
    if (n.children?.length) allKeys(n.children, into)
  }
  return into
}

/** The keys of nodes without children (pages and buttons of a menu tree): what the count of ticks counts. */
export function leafKeys(nodes: readonly SearchableNode[], into: Key[] = []): Key[] {
  for (const n of nodes) {
    if (n.children?.length) leafKeys(n.children, into)
    else into.push(n.key)
  }
  return into
}

/** The keys of nodes with children: what "Expand all" opens. */
export function parentKeys(nodes: readonly SearchableNode[], into: Key[] = []): Key[] {
  for (const n of nodes) {
    if (n.children?.length) {
      into.push(n.key)
      parentKeys(n.children, into)
    }
  }
  return into
}

export interface TreeSearchResult {
  /** Nodes shown: those whose title matches, the folders above them and everything below them. */
  visible: Set<Key>
  /** Folders to open so each match shows: its ancestors. */
  expand: Key[]
  /** Nodes whose own title matches (highlighted). */
  matches: Set<Key>
}

/**
 * What a search of a tree's titles shows: a match keeps its path from the root (to be found where it
 * is) and its whole subtree (a page found by name brings its buttons). Case and surrounding blanks do
 * not matter; a blank query is no search (null).
 */
export function searchTree(nodes: readonly SearchableNode[], query: string): TreeSearchResult | null {
  const needle = query.trim().toLocaleLowerCase()
  if (!needle) return null
  const result: TreeSearchResult = { visible: new Set(), expand: [], matches: new Set() }
  const showAll = (n: SearchableNode) => {
    result.visible.add(n.key)
    for (const c of n.children ?? []) showAll(c)
  }
  // Whether the node or something below it matches; the path to a match is shown and opened.
  const walk = (n: SearchableNode): boolean => {
    if (String(n.title ?? '').toLocaleLowerCase().includes(needle)) {
      result.matches.add(n.key)
      showAll(n)
      return true
    }
    let below = false
    for (const c of n.children ?? []) if (walk(c)) below = true
    if (below) {
      result.visible.add(n.key)
      result.expand.push(n.key)
    }
    return below
  }
  for (const n of nodes) walk(n)
  return result
}
