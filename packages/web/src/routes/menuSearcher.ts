import Fuse from 'fuse.js'
import { MAX_PATTERN_LENGTH, type SearchEntry } from './menuSearch'

// The fuzzy matcher of the menu search, apart from its entries: Fuse is loaded when the search
// opens, not with the shell every page waits for.

export function createMenuSearcher(entries: readonly SearchEntry[]) {
  const fuse = new Fuse(entries, {
    shouldSort: true,
    threshold: 0.4,
    location: 0,
    distance: 100,
    minMatchCharLength: 1,
    keys: [
      { name: 'title', weight: 0.7 },
      { name: 'path', weight: 0.3 },
    ],
  })
  // Fuse 7 dropped maxPatternLength; cut the query to the same 32 characters ourselves.
  return (query: string): SearchEntry[] =>
    query.trim() ? fuse.search(query.trim().slice(0, MAX_PATTERN_LENGTH)).map((r) => r.item) : []
}
