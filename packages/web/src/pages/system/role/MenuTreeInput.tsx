import { useQuery } from '@tanstack/react-query'
import { menuTree, systemKeys } from '../../../api/system'
import type { InputProps } from '../../../crud/kinds/types'
import { TreeCheck } from '../TreeCheck'

/** A role's menus: the menus the user may grant (GET /system/menu/treeselect), titles translated, as a checkable tree. */
export function MenuTreeInput({ value, onChange, id, disabled }: InputProps) {
  const tree = useQuery({ queryKey: systemKeys.menuTree, queryFn: menuTree, staleTime: 60_000 })
  return (
    <TreeCheck
      nodes={tree.data}
      loading={tree.isPending}
      value={value}
      onChange={onChange}
      id={id}
      disabled={disabled}
      mode="withParents"
      testId="role-menu-tree"
    />
  )
}
