import { useMemo } from 'react'
import { TreeSelect } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { menuTree, systemKeys, type TreeNode } from '../../../api/system'
import { controlProps } from '../../../crud/kinds/inputs'
import type { InputProps } from '../../../crud/kinds/types'

interface Option {
  value: number
  title: string
  disabled?: boolean
  children?: Option[]
}

/** Menus as tree-select options; the menu being modified and everything below it cannot be its own parent. */
function toOptions(nodes: readonly TreeNode[], own: unknown, inside = false): Option[] {
  return nodes.map((n) => {
    const mine = inside || n.id === Number(own)
    return { value: n.id, title: n.label, disabled: mine, ...(n.children?.length ? { children: toOptions(n.children, own, mine) } : {}) }
  })
}

/** The parent of a menu: the top level or another menu, with titles in the user's language (GET /system/menu/treeselect). */
export function MenuParentInput(props: InputProps) {
  const { t } = useTranslation()
  const tree = useQuery({ queryKey: systemKeys.menuTree, queryFn: menuTree, staleTime: 60_000 })
  const treeData = useMemo(() => [{ value: 0, title: t('crud.root'), children: toOptions(tree.data ?? [], props.rowId) }], [tree.data, props.rowId, t])
  return (
    <TreeSelect
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeData={treeData}
      loading={tree.isPending}
      treeDefaultExpandedKeys={[0]}
      styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
      {...controlProps(props)}
    />
  )
}
