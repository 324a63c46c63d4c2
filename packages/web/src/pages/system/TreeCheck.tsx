import { useMemo, type Key } from 'react'
import { Spin, Tree } from 'antd'
import type { DataNode } from 'antd/es/tree'
import type { TreeNode } from '../../api/system'

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
    <div className="crud-check-tree" id={id} data-testid={testId}>
      <Tree
        checkable
        disabled={disabled}
        defaultExpandAll
        treeData={treeData}
        checkedKeys={checkedKeys as Key[]}
        onCheck={(checked, info) => {
          const full = (checked as Key[]).map(Number)
          onChange?.(mode === 'withParents' ? [...full, ...(info.halfCheckedKeys ?? []).map(Number)] : full)
        }}
      />
    </div>
  )
}
