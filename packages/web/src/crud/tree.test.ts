import { describe, expect, it } from 'vitest'
import { leafIds, nestRows, parentKeys, pathUp, subtreeIds } from './tree'

const rows = [
  { deptId: 1, parentId: 0, deptName: 'HQ' },
  { deptId: 2, parentId: 1, deptName: 'R&D' },
  { deptId: 3, parentId: 1, deptName: 'Sales' },
  { deptId: 4, parentId: 2, deptName: 'Firmware' },
  // Its parent did not match the search: shown at the top rather than hidden.
  { deptId: 9, parentId: 8, deptName: 'Orphan' },
]

describe('tree nesting', () => {
  const tree = nestRows(rows, 'deptId', 'parentId')

  it('nests rows under their parents in the server order; unknown parents make roots', () => {
    expect(tree.map((n) => n.deptName)).toEqual(['HQ', 'Orphan'])
    expect(tree[0]!.children!.map((n) => n.deptName)).toEqual(['R&D', 'Sales'])
    expect(tree[0]!.children![0]!.children!.map((n) => n.deptName)).toEqual(['Firmware'])
    // Leaves have no children array, so the table shows no expander for them.
    expect('children' in tree[0]!.children![1]!).toBe(false)
    expect('children' in tree[1]!).toBe(false)
  })

  it('does not change the rows it was given', () => {
    expect('children' in rows[0]!).toBe(false)
  })

  it('finds the keys to expand, a subtree and the leaves', () => {
    expect(parentKeys(tree, 'deptId')).toEqual([1, 2])
    expect([...subtreeIds(tree, 'deptId', 2)]).toEqual([2, 4])
    expect([...leafIds(tree, 'deptId')].sort()).toEqual([3, 4, 9])
  })

  it('finds the nodes to open for a row under a node: the node and those above it, nearest first', () => {
    expect(pathUp(rows, 'deptId', 'parentId', 4)).toEqual([4, 2, 1])
    expect(pathUp(rows, 'deptId', 'parentId', 1)).toEqual([1])
    // The top, or a node the list does not hold: nothing to open; a node whose parent a search left out: itself.
    expect(pathUp(rows, 'deptId', 'parentId', 0)).toEqual([])
    expect(pathUp(rows, 'deptId', 'parentId', 8)).toEqual([])
    expect(pathUp(rows, 'deptId', 'parentId', 9)).toEqual([9])
    expect(pathUp([{ deptId: 5, parentId: 6 }, { deptId: 6, parentId: 5 }], 'deptId', 'parentId', 5)).toEqual([5, 6])
  })
})
