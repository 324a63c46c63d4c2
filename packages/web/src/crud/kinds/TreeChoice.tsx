import { TreeSelect } from 'antd'
import { controlProps } from './inputs'
import type { TreeOption } from './options'
import type { InputProps } from './types'

/** A node of a tree entity (a department, a menu) in a tree select. */
export function TreeChoice(props: InputProps & { treeData: TreeOption[]; loading: boolean; defaultOpen?: boolean; autoFocus?: boolean }) {
  const { treeData, loading, ...rest } = props
  return (
    <TreeSelect
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      treeData={treeData}
      loading={loading}
      treeDefaultExpandAll
      styles={{ popup: { root: { maxHeight: 400, overflow: 'auto' } } }}
      {...controlProps(rest)}
    />
  )
}
