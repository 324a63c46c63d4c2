import { useMemo } from 'react'
import { Spin } from 'antd'
import type { DataNode } from 'antd/es/tree'
import type { TreeNode } from '../../api/system'
import { CheckTree } from '../../crud/kinds/CheckTree'

const toDataNodes = (nodes: readonly TreeNode[]): DataNode[] =>
  nodes.map((n) => ({ key: n.id, title: n.label, ...(n.children?.length ? { children: toDataNodes(n.children) } : {}) }))

function leaves(nodes: readonly TreeNode[], into = new Set<number>()): Set<number> {
  for (const n of nodes) {
    if (n.children?.length) leaves(n.children, into)
    else into.add(n.id)
  }
  return into
}

export interface TreeCheckProps {
  nodes: readonly TreeNode[] | undefined
  loading?: boolean
  value?: unknown
  onChange?: (ids: number[]) => void
  id?: string
  disabled?: boolean
  /**
   * 'withParents' (menus): a page cannot show without its folder, so half-checked parents are kept
   * too and only the leaves mark the tree when it opens. 'checked' (departments): only what is fully
   * ticked counts; ticking a department ticks everything below it.
   */
  mode: 'withParents' | 'checked'
  testId?: string
}

/** A checkable tree of ids from one of the treeselect calls (titles already in the user's language). */
export function TreeCheck({ nodes, loading, value, onChange, id, disabled, mode, testId }: TreeCheckProps) {
  const treeData = useMemo(() => toDataNodes(nodes ?? []), [nodes])
  const leafIds = useMemo(() => leaves(nodes ?? []), [nodes])
  if (loading || !nodes) return <Spin size="small" />
  const ids = (Array.isArray(value) ? value : []).map(Number)
  const checkedKeys = mode === 'withParents' ? ids.filter((i) => leafIds.has(i)) : ids
  return (
    // The kit's tree input: search, expand and collapse all, select all (a role's ~450 menus).
    <CheckTree
      id={id}
      testId={testId}
      disabled={disabled}
      treeData={treeData}
      checkedKeys={checkedKeys}
      onCheck={(checked, halfChecked) => {
        const full = checked.map(Number)
        onChange?.(mode === 'withParents' ? [...full, ...halfChecked.map(Number)] : full)
      }}
    />
  )
}
