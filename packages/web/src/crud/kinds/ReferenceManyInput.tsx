import { useMemo, type Key } from 'react'
import { Spin } from 'antd'
import { CheckTree } from './CheckTree'
import { leafIds } from '../tree'
import { referencedEntity, toDataNodes, useFieldOptions } from './options'
import { OptionsSelect } from './inputs'
import type { InputProps } from './types'

/**
 * Ids of several rows of another entity: a checkable tree for a tree entity (a role's menus), else a
 * multiple select (a user's roles).
 */
export function ReferenceManyInput(props: InputProps) {
  const { tree, nodes, loading } = useFieldOptions(props.entity, props.field)
  const target = referencedEntity(props.entity, props.field)
  const leaves = useMemo(() => leafIds(nodes, target?.idField ?? ''), [nodes, target])
  const treeData = useMemo(() => toDataNodes(tree ?? []), [tree])
  if (!tree) return <OptionsSelect {...props} multiple />
  if (loading) return <Spin size="small" />
  const ids: unknown[] = Array.isArray(props.value) ? props.value : []
  return (
    <CheckTree
      id={props.id}
      testId={`check-tree-${props.field.name}`}
      disabled={props.disabled}
      treeData={treeData}
      // A checked parent checks its whole subtree in antd, so only the saved leaves are marked and
      // the parents follow from them.
      checkedKeys={ids.filter((id) => leaves.has(id)) as Key[]}
      // A menu cannot show without its folder: the half-checked parents are saved too.
      onCheck={(checked, halfChecked) => props.onChange?.([...checked, ...halfChecked])}
    />
  )
}
