import { describe, expect, it } from 'vitest'
import { allKeys, leafKeys, parentKeys, searchTree } from './checkTreeSearch'

const tree = [
  {
    key: 1,
    title: 'System',
    children: [
      { key: 2, title: 'Users', children: [{ key: 3, title: 'List' }, { key: 4, title: 'Add' }] },
      { key: 5, title: 'Dictionaries', children: [{ key: 6, title: 'List' }] },
    ],
  },
  { key: 7, title: 'Monitoring', children: [{ key: 8, title: 'Online users' }] },
]

describe('the tree input’s search and whole-tree buttons', () => {
  it('lists every key, the folders and the leaves', () => {
    expect(allKeys(tree)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(parentKeys(tree)).toEqual([1, 2, 5, 7])
    expect(leafKeys(tree)).toEqual([3, 4, 6, 8])
  })

  it('shows a match with the folders above it and all below it, and opens its path', () => {
    const found = searchTree(tree, '  dictionaries ')!
    expect([...found.matches]).toEqual([5])
    expect([...found.visible].sort()).toEqual([1, 5, 6])
    expect(found.expand).toEqual([1])
  })

  it('finds every node whose title contains the words, whatever the case', () => {
    const found = searchTree(tree, 'USERS')!
    expect([...found.matches].sort()).toEqual([2, 8])
    expect([...found.visible].sort()).toEqual([1, 2, 3, 4, 7, 8])
  })

  it('is no search when blank, and finds nothing for an unknown word', () => {
    expect(searchTree(tree, '  ')).toBeNull()
    expect(searchTree(tree, 'reports')!.visible.size).toBe(0)
  })
})
